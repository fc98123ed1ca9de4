package main

import (
	"context"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/postgres"
	"github.com/recollect/recollect/store/postgres/pgtest"
)

// TestPostgresStoreFromTheCLI: a data directory whose config.json keeps
// the store on PostgreSQL and that has no memory.db is a store: record,
// consolidate, search and stats work on it, through the URL variable the
// config names, and no SQLite file appears beside the config.
func TestPostgresStoreFromTheCLI(t *testing.T) {
	url, schema := pgtest.Schema(t)
	dir := filepath.Join(t.TempDir(), "team")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Storage = config.Storage{Provider: "postgres", Postgres: config.PostgresStorage{URLEnv: "TEAM_MEMORY_URL", Schema: schema}}
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TEAM_MEMORY_URL": url, "HOME": t.TempDir()}
	machine, err := store.MachineID(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"search", "Render"}, "No knowledge matches"},
		{[]string{"record", "--role", "user", "--content", "We deploy the Atlas service with Render every Friday"}, "recorded event"},
		{[]string{"consolidate"}, "1 new fact"},
		{[]string{"search", "Render"}, "found by: keyword"},
		{[]string{"stats"}, "storage      postgres: schema " + schema},
		{[]string{"stats"}, "machine      " + machine[:8] + "; 0 machines copying into this store\n"},
	} {
		out, errs, code := runApp(t, env, append(c.args, "--data", dir)...)
		if code != 0 || !strings.Contains(out, c.says) {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errs, c.says)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, store.DBFile)); !os.IsNotExist(err) {
		t.Errorf("a postgres store left %s: %v", store.DBFile, err)
	}
	// Two machines' progress and one file from before machines were told
	// apart: stats counts the machines and names the file left over.
	pg, err := postgres.OpenStoreURL(context.Background(), t.TempDir(), url, schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{machine, "remotebox0000002", ""} {
		if _, err := pg.ExecContext(context.Background(), `INSERT INTO source_files(machine, path, kind, updated_at) VALUES (?, '/home/alice/s1.jsonl', 'claude-code', '2026-03-01T10:00:00Z')`, m); err != nil {
			t.Fatal(err)
		}
	}
	pg.Close()
	if out, errs, code := runApp(t, env, "stats", "--data", dir); code != 0 ||
		!strings.Contains(out, "machine      "+machine[:8]+"; 2 machines copying into this store (and 1 file copied before machines were told apart, not yet taken over)\n") {
		t.Errorf("stats with two machines: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	delete(env, "TEAM_MEMORY_URL")
	_, errs, code := runApp(t, env, "stats", "--data", dir)
	if code != 1 || !strings.Contains(errs, "$TEAM_MEMORY_URL is not set") || strings.Count(errs, "\n") != 1 {
		t.Errorf("stats without the URL: exit %d, stderr %q; want exit 1 and one line naming the variable", code, errs)
	}
}

// TestStoreCopyBothWays: recollect store copy moves a SQLite store into a
// PostgreSQL one and back, says every table's count matches, and run again
// copies nothing; the copies answer the same search.
func TestStoreCopyBothWays(t *testing.T) {
	url, schema := pgtest.Schema(t)
	root := t.TempDir()
	src, pg, back := filepath.Join(root, "src"), filepath.Join(root, "pg"), filepath.Join(root, "back")
	if err := os.MkdirAll(pg, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Storage = config.Storage{Provider: "postgres", Postgres: config.PostgresStorage{Schema: schema}}
	if err := config.Write(pg, cfg); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"RECOLLECT_POSTGRES_URL": url, "HOME": t.TempDir()}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"record", "--data", src, "--role", "user", "--content", "We deploy the Atlas service with Render every Friday"}, "recorded event"},
		{[]string{"consolidate", "--data", src}, "1 new fact"},
		{[]string{"store", "copy", "--data", src, "--to", pg}, "(postgres): every table's count matches"},
		{[]string{"store", "copy", "--data", src, "--to", pg}, "0 tables copied"},
		{[]string{"store", "copy", "--data", pg, "--to", back}, "(sqlite): every table's count matches"},
		{[]string{"search", "--data", back, "Render"}, `[fact 1] "We deploy the Atlas service with Render every Friday"`},
		{[]string{"search", "--data", pg, "Render"}, `[fact 1] "We deploy the Atlas service with Render every Friday"`},
	} {
		out, errs, code := runApp(t, env, c.args...)
		if code != 0 || !strings.Contains(out, c.says) {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errs, c.says)
		}
	}
	if _, errs, code := runApp(t, env, "store", "copy", "--data", src); code != 2 || !strings.Contains(errs, "--to DIR") {
		t.Errorf("store copy without --to: exit %d, %q; want 2 naming --to", code, errs)
	}
}

// TestLeastPrivilegeRole: the README's least-privilege role — it logs in
// and owns its schema, and may not create anything in the database — runs
// a store: record, consolidate, search, stats, prune with a vacuum. The
// open asked for CREATE on the database (CREATE SCHEMA IF NOT EXISTS checks
// that before it looks for the schema) and such a role was refused.
func TestLeastPrivilegeRole(t *testing.T) {
	admin := pgtest.URL(t)
	ctx := context.Background()
	role := "rl_" + strings.ToLower(strings.ReplaceAll(t.Name(), "Test", ""))[:8] + "_" + fmt.Sprint(os.Getpid())
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(ctx, `CREATE ROLE `+role+` LOGIN PASSWORD 'rl-test'`); err != nil {
		t.Skipf("SKIPPED: the test server's user cannot create a role (%v); run with a superuser's URL, as .ci/run does", err)
	}
	t.Cleanup(func() {
		if _, err := conn.Exec(context.Background(), `DROP ROLE `+role); err != nil {
			t.Errorf("drop role %s: %v", role, err)
		}
	})
	_, schema := pgtest.Schema(t) // dropped before the role, which owns it
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema+` AUTHORIZATION `+role); err != nil {
		t.Fatal(err)
	}
	u, err := neturl.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.User = neturl.UserPassword(role, "rl-test")
	dir := filepath.Join(t.TempDir(), "team")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Storage = config.Storage{Provider: "postgres", Postgres: config.PostgresStorage{Schema: schema}}
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{postgres.DefaultURLEnv: u.String(), "HOME": t.TempDir()}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"record", "--role", "user", "--content", "The Atlas service deploys with Render every Friday"}, "recorded event"},
		{[]string{"consolidate"}, "1 new fact"},
		{[]string{"search", "Render"}, "found by: keyword"},
		{[]string{"stats"}, "storage      postgres: schema " + schema},
		{[]string{"prune", "--apply", "--vacuum"}, "\nschema       "},
	} {
		out, errs, code := runApp(t, env, append(c.args, "--data", dir)...)
		if code != 0 || !strings.Contains(out, c.says) {
			t.Fatalf("%v as a role owning only its schema: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errs, c.says)
		}
	}
}

// TestSwitchToPostgresInPlace: a data directory's store moved to
// PostgreSQL with `settings set storage.provider postgres` is told what its
// memory.db still holds and the command that brings it over; `store copy
// --from` copies it into the schema (again: nothing), and the memory is
// found there.
func TestSwitchToPostgresInPlace(t *testing.T) {
	url, schema := pgtest.Schema(t)
	dir := filepath.Join(t.TempDir(), "laptop")
	env := map[string]string{postgres.DefaultURLEnv: url, "HOME": t.TempDir()}
	db := filepath.Join(dir, store.DBFile)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"record", "--role", "user", "--content", "The Atlas service deploys with Render every Friday"}, "recorded event"},
		{[]string{"consolidate"}, "1 new fact"},
		{[]string{"init", "--yes", "--force", dir}, ""},
		{[]string{"settings", "set", "storage.postgres.schema", schema}, "storage.postgres.schema"},
		{[]string{"settings", "set", "storage.provider", "postgres"}, "note: " + db + " stays where it is with its 1 fact and 1 event, which the postgres store does not read; bring them over with: recollect store copy --from " + db + " --data " + dir + "\n"},
		{[]string{"search", "Render"}, "No knowledge matches"},
		{[]string{"stats"}, "left behind  " + db + " ("},
		{[]string{"store", "copy", "--from", db}, "(sqlite) → schema " + schema},
		{[]string{"store", "copy", "--from", dir}, "0 tables copied"},
		{[]string{"search", "Render"}, `[fact 1] "The Atlas service deploys with Render every Friday"`},
	} {
		out, errs, code := runApp(t, env, append(c.args, "--data", dir)...)
		if code != 0 || !strings.Contains(out, c.says) {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errs, c.says)
		}
	}
	// A store that never held anything is not worth a note.
	empty := filepath.Join(t.TempDir(), "empty")
	if _, errs, code := runApp(t, env, "init", "--yes", empty); code != 0 {
		t.Fatalf("init: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(empty, store.DBFile)); err != nil {
		t.Fatalf("init made no %s: %v", store.DBFile, err)
	}
	if out, errs, code := runApp(t, env, "settings", "set", "storage.provider", "postgres", "--data", empty); code != 0 || strings.Contains(out, "note:") {
		t.Errorf("switching an empty store: exit %d, stdout %q, stderr %q; want no note", code, out, errs)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"store", "copy", "--from", filepath.Join(dir, "nothing.db")}, "no SQLite store at"},
		{[]string{"store", "copy", "--from", db, "--to", t.TempDir()}, "not both"},
	} {
		if _, errs, code := runApp(t, env, append(c.args, "--data", dir)...); code != 2 || !strings.Contains(errs, c.says) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.args, code, errs, c.says)
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
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
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"search", "Render"}, "No knowledge matches"},
		{[]string{"record", "--role", "user", "--content", "We deploy the Atlas service with Render every Friday"}, "recorded event"},
		{[]string{"consolidate"}, "1 new fact"},
		{[]string{"search", "Render"}, "found by: keyword"},
		{[]string{"stats"}, "storage      postgres: schema " + schema},
	} {
		out, errs, code := runApp(t, env, append(c.args, "--data", dir)...)
		if code != 0 || !strings.Contains(out, c.says) {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errs, c.says)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, store.DBFile)); !os.IsNotExist(err) {
		t.Errorf("a postgres store left %s: %v", store.DBFile, err)
	}
	delete(env, "TEAM_MEMORY_URL")
	_, errs, code := runApp(t, env, "stats", "--data", dir)
	if code != 1 || !strings.Contains(errs, "$TEAM_MEMORY_URL is not set") || strings.Count(errs, "\n") != 1 {
		t.Errorf("stats without the URL: exit %d, stderr %q; want exit 1 and one line naming the variable", code, errs)
	}
}

package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/postgres"
	"github.com/recollect/recollect/store/postgres/pgtest"
	"github.com/recollect/recollect/store/storetest"
)

// openAt opens a new schema migrated to version (0: empty) and returns
// the handle, the server's URL and the schema's name.
func openAt(t *testing.T, version int) (db *sql.DB, url, schema string) {
	t.Helper()
	ctx := context.Background()
	url, schema = pgtest.Schema(t)
	db, err := postgres.Open(ctx, url, schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	// Open migrated to the end; rebuild the schema at version.
	if _, err := db.ExecContext(ctx, `DROP SCHEMA `+schema+` CASCADE; CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	if err := postgres.Migrate(ctx, db, schema, version); err != nil {
		t.Fatalf("migrate to %d: %v", version, err)
	}
	return db, url, schema
}

func open(t *testing.T) *sql.DB {
	t.Helper()
	url, schema := pgtest.Schema(t)
	db, err := postgres.Open(context.Background(), url, schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestMigrationsMatchSQLite pins one PostgreSQL migration per version up
// to store.SchemaVersion, which store/sqlite's migrations reach too
// (TestMigrationsReachSchemaVersion): a store at version n means the same
// on both engines.
func TestMigrationsMatchSQLite(t *testing.T) {
	if postgres.SchemaVersion != store.SchemaVersion {
		t.Fatalf("PostgreSQL schema version %d, store.SchemaVersion %d: add the PostgreSQL form of every new SQLite migration to store/postgres/schema.go",
			postgres.SchemaVersion, store.SchemaVersion)
	}
}

// TestMigrateFromEveryVersion builds a schema at each earlier version,
// writes an event where the version can hold one, migrates forward and
// checks the event is still found by full-text search and every table is
// there.
func TestMigrateFromEveryVersion(t *testing.T) {
	ctx := context.Background()
	for from := 0; from < postgres.SchemaVersion; from++ {
		t.Run(fmt.Sprintf("v%d", from), func(t *testing.T) {
			db, url, schema := openAt(t, from)
			if v, err := postgres.Version(ctx, db); err != nil || v != from {
				t.Fatalf("version = %d, %v; want %d", v, err, from)
			}
			if from >= 1 {
				if _, err := db.ExecContext(ctx, `INSERT INTO sessions(id, source, created_at) VALUES ('s1', 'record', $1)`, store.Now()); err != nil {
					t.Fatal(err)
				}
				if _, err := db.ExecContext(ctx, `INSERT INTO session_events(session_id, source, role, event_type, content_type, content, recorded_at)
					VALUES ('s1', 'record', 'user', 'message', 'text', 'kept across migrations', $1)`, store.Now()); err != nil {
					t.Fatal(err)
				}
			}
			db.Close()
			re, err := postgres.Open(ctx, url, schema)
			if err != nil {
				t.Fatalf("reopen and migrate from %d: %v", from, err)
			}
			defer re.Close()
			if v, _ := postgres.Version(ctx, re); v != postgres.SchemaVersion {
				t.Fatalf("after migration version = %d, want %d", v, postgres.SchemaVersion)
			}
			if from >= 1 {
				var n int
				if err := re.QueryRowContext(ctx, `SELECT count(*) FROM session_events WHERE content_tsv @@ plainto_tsquery('recollect', 'migration')`).Scan(&n); err != nil || n != 1 {
					t.Fatalf("event from v%d not found after migration: n=%d err=%v", from, n, err)
				}
			}
			for _, table := range []string{"sessions", "session_events", "session_facts", "facts", "entities", "fact_entities", "entity_edges",
				"embeddings", "vector_codes", "spend", "mutation_log", "tombstones", "extract_watermarks", "source_files", "source_problems",
				"pruned_keys", "fact_signatures"} {
				var ok bool
				if err := re.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&ok); err != nil || !ok {
					t.Errorf("table %s missing after migration from v%d", table, from)
				}
			}
		})
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	url, schema := pgtest.Schema(t)
	db, err := postgres.Open(ctx, url, schema)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE recollect_schema SET version = 99`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = postgres.Open(ctx, url, schema)
	if !errors.Is(err, postgres.ErrNewerSchema) || !strings.Contains(err.Error(), "upgrade recollect") {
		t.Fatalf("open newer schema: err = %v, want ErrNewerSchema saying to upgrade", err)
	}
}

// TestConcurrentOpenMigratesOnce starts several daemons' worth of Opens on
// one new schema at once: each succeeds and the schema is built once.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	ctx := context.Background()
	url, schema := pgtest.Schema(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := postgres.Open(ctx, url, schema)
			if err == nil {
				db.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
		}
	}
}

// TestWidenedEventSources checks v16: codex and gemini events are refused
// before it and accepted after it, and rows keep their seq.
func TestWidenedEventSources(t *testing.T) {
	ctx := context.Background()
	db, _, schema := openAt(t, 15)
	ins := `INSERT INTO session_events(session_id, source, role, event_type, content_type, content, recorded_at) VALUES ('s1', $1, 'user', 'message', 'text', $2, 'now')`
	if _, err := db.ExecContext(ctx, `INSERT INTO sessions(id, source, created_at) VALUES ('s1', 'record', 'now')`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, ins, "codex", "refused before v16"); err == nil {
		t.Fatal("v15 accepted a codex event; the test no longer tests the widening")
	}
	if _, err := db.ExecContext(ctx, ins, "claude-code", "first kept"); err != nil {
		t.Fatal(err)
	}
	if err := postgres.Migrate(ctx, db, schema, 16); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"codex", "gemini"} {
		if _, err := db.ExecContext(ctx, ins, src, "from "+src); err != nil {
			t.Fatalf("insert %s event after migration: %v", src, err)
		}
	}
	var seqs string
	if err := db.QueryRowContext(ctx, `SELECT string_agg(seq::text, ' ' ORDER BY seq) FROM session_events`).Scan(&seqs); err != nil {
		t.Fatal(err)
	}
	// The refused insert took seq 1 from the identity: seqs are never
	// reused, as AUTOINCREMENT never reuses them.
	if seqs != "2 3 4" {
		t.Fatalf("seqs = %q, want \"2 3 4\"", seqs)
	}
}

func TestUnreachableServerNamesHost(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	_, err := postgres.Open(ctx, "postgres://nobody@/db?host="+dir+"&connect_timeout=2", "s")
	if !errors.Is(err, postgres.ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "socket "+dir) || !strings.Contains(msg, "start the server") || strings.Contains(msg, "\n") {
		t.Errorf("error should be one line naming the socket and the fix: %q", msg)
	}
	_, err = postgres.Open(ctx, "postgres://nobody:hunter2@127.0.0.1:1/db?connect_timeout=2", "s")
	if !errors.Is(err, postgres.ErrUnreachable) || !strings.Contains(err.Error(), "127.0.0.1:1") || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %q, want ErrUnreachable on one line naming 127.0.0.1:1 without the password", err)
	}
}

func TestURLFromEnv(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // no env file of the user's
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("RECOLLECT_TEST_PG_UNSET", "")
	_, err := postgres.URLFromEnv("RECOLLECT_TEST_PG_UNSET")
	if !errors.Is(err, postgres.ErrNoURL) || !strings.Contains(err.Error(), "export RECOLLECT_TEST_PG_UNSET=") {
		t.Fatalf("err = %v, want ErrNoURL naming the variable and how to set it", err)
	}
	t.Setenv(postgres.DefaultURLEnv, "postgres://u@h/d")
	if u, err := postgres.URLFromEnv(""); err != nil || u != "postgres://u@h/d" {
		t.Fatalf("default variable: %q, %v", u, err)
	}
}

func TestSchemaNameChecked(t *testing.T) {
	for _, s := range []string{"", "Upper", "pg_x", "public", "a b", strings.Repeat("x", 64)} {
		if _, err := postgres.Open(context.Background(), "postgres://u@h/d", s); err == nil || !strings.Contains(err.Error(), "storage.postgres.schema") {
			t.Errorf("schema %q: err = %v, want a refusal naming storage.postgres.schema", s, err)
		}
	}
}

func TestDefaultSchema(t *testing.T) {
	for dir, want := range map[string]string{
		"/home/ann/work/atlas/.recollect": "atlas",
		"/home/ann/.recollect":            "ann",
		"/srv/Team Memory":                "team_memory",
		"/tmp/store.2":                    "store_2",
		"/srv/My-Store.2":                 "my-store_2", // as README says: - is kept
		"/data/public":                    "recollect_public",
		"/data/pg_x":                      "recollect_pg_x",
	} {
		if got := postgres.DefaultSchema(dir); got != want {
			t.Errorf("DefaultSchema(%q) = %q, want %q", dir, got, want)
		}
	}
}

// TestPoolKeepsASearchsConnections holds as many connections at once as a
// search with a query vector uses (three arms, then the pending facts) and
// returns them: the pool keeps every one open, so the next search does not
// start a server process per connection.
func TestPoolKeepsASearchsConnections(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	for round := 0; round < 2; round++ {
		var conns []*sql.Conn
		for i := 0; i < 4; i++ {
			c, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.PingContext(ctx); err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		for _, c := range conns {
			c.Close()
		}
	}
	if s := db.Stats(); s.MaxIdleClosed != 0 || s.OpenConnections < 4 {
		t.Errorf("after two rounds of 4 connections at once: %d closed as idle, %d open; want 0 closed and 4 open", s.MaxIdleClosed, s.OpenConnections)
	}
}

// TestSettleVacuumsAndAnalyses checks that a settled store is as
// autovacuum leaves one after a bulk load: its tables vacuumed (counting
// the facts reads the index alone) and analysed.
func TestSettleVacuumsAndAnalyses(t *testing.T) {
	ctx := context.Background()
	db := storeWithFacts(t, 2000)
	if err := db.Engine().Settle(ctx, db); err != nil {
		t.Fatal(err)
	}
	var vacuumed, analysed bool
	if err := db.QueryRowContext(ctx, `SELECT last_vacuum IS NOT NULL, last_analyze IS NOT NULL FROM pg_stat_user_tables
		WHERE schemaname = current_schema() AND relname = 'facts'`).Scan(&vacuumed, &analysed); err != nil {
		t.Fatal(err)
	}
	var allVisible, pages int
	if err := db.QueryRowContext(ctx, `SELECT relallvisible, relpages FROM pg_class WHERE oid = to_regclass('facts')`).Scan(&allVisible, &pages); err != nil {
		t.Fatal(err)
	}
	if !vacuumed || !analysed || pages == 0 || allVisible != pages {
		t.Errorf("after Settle: vacuumed %v, analysed %v, %d of %d pages all-visible; want both and every page", vacuumed, analysed, allVisible, pages)
	}
}

// TestJSONIntsLooksUpEachID checks that a JSON list of ids joined to a
// table of 10k rows is read by index, one lookup per id, as a search's
// conversation seeds are: the planner guessed 100 rows for
// jsonb_array_elements_text, whatever the list held, and read the whole of
// fact_provenance instead.
func TestJSONIntsLooksUpEachID(t *testing.T) {
	ctx := context.Background()
	db := storeWithPlacedFacts(t, 10000)
	var list []string
	for id := 100; id < 100+38*97; id += 97 {
		list = append(list, fmt.Sprint(id))
	}
	eng := db.Engine()
	plan := storetest.Column[string](t, db, `EXPLAIN SELECT p.fact_id, p.session_id FROM fact_provenance p
		WHERE p.fact_id IN (SELECT CAST(s.value AS BIGINT) FROM `+eng.JSONInts("?", "s")+`)`, "["+strings.Join(list, ", ")+"]")
	if p := strings.Join(plan, "\n"); strings.Contains(p, "Seq Scan on fact_provenance") || !strings.Contains(p, "Index") {
		t.Errorf("38 ids from a JSON list, 10k provenance rows: the plan reads the table whole, want a lookup per id:\n%s", p)
	}
	var got []int64
	vals, err := db.QueryContext(ctx, `SELECT CAST(j.value AS INTEGER) FROM `+eng.JSONInts("?", "j"), "[7, 3,\n 5]")
	if err != nil {
		t.Fatal(err)
	}
	defer vals.Close()
	for vals.Next() {
		var v int64
		if err := vals.Scan(&v); err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if err := vals.Err(); err != nil || fmt.Sprint(got) != "[7 3 5]" {
		t.Errorf("JSONInts of [7, 3, 5] read %v (%v), want 7 3 5 in the list's order", got, err)
	}
}

// TestSeedLookupReadsTheIndexAlone checks v24: what the keyword arm reads
// of a seed's provenance rows (its session, event, captured fact and
// adjacent facts) is all in the index keyed by fact, so on a vacuumed
// store each of a search's fifty lookups reads the index alone.
func TestSeedLookupReadsTheIndexAlone(t *testing.T) {
	db := storeWithPlacedFacts(t, 2000)
	plan := strings.Join(storetest.Column[string](t, db, `EXPLAIN SELECT p.fact_id, p.session_id, p.event_seq, p.session_fact_id, `+
		db.Engine().Adjacent("p")+` FROM fact_provenance p WHERE p.fact_id = ?`, 1200), "\n")
	if !strings.Contains(plan, "Index Only Scan using fact_provenance_fact_seq") {
		t.Errorf("a seed's provenance lookup on a vacuumed store: want an index-only scan of fact_provenance_fact_seq, got:\n%s", plan)
	}
}

// storeWithPlacedFacts is storeWithFacts with a provenance row for each
// fact (its event, in sessions of 40), settled as a store at rest is.
func storeWithPlacedFacts(t *testing.T, n int) *store.DB {
	t.Helper()
	ctx := context.Background()
	db := storeWithFacts(t, n)
	if _, err := db.ExecContext(ctx, `INSERT INTO fact_provenance(fact_id, event_seq, session_id, said_at, added_at)
		SELECT id, id, 'session ' || (id / 40), 'now', 'now' FROM facts`); err != nil {
		t.Fatal(err)
	}
	if err := db.Engine().Settle(ctx, db); err != nil {
		t.Fatal(err)
	}
	return db
}

// storeWithFacts opens a new store in a schema of its own holding n plain
// facts ("fact 1" …), closed when the test ends.
func storeWithFacts(t *testing.T, n int) *store.DB {
	t.Helper()
	ctx := context.Background()
	url, schema := pgtest.Schema(t)
	db, err := postgres.OpenStoreURL(ctx, t.TempDir(), url, schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.ExecContext(ctx, `INSERT INTO facts(content, digest, producer, recorded_at)
		SELECT 'fact ' || g, 'digest ' || g, 'heuristic', 'now' FROM generate_series(1, $1::int) g`, n); err != nil {
		t.Fatalf("insert %d facts: %v", n, err)
	}
	return db
}

// TestAdjacentBackfilled checks v23 on a store written before it: every
// provenance row's kept neighbours (prev_fact, next_fact, filled by the
// migration) equal the ones the session's rows define
// (store.AdjacentSeeks) — events out of order, two facts at one event,
// captured facts beside events, rows of no place.
func TestAdjacentBackfilled(t *testing.T) {
	ctx := context.Background()
	db, _, schema := openAt(t, 22)
	for _, q := range []string{
		`INSERT INTO facts(content, digest, producer, recorded_at) SELECT 'fact ' || i, 'd' || i, 'cli', 'a' FROM generate_series(1, 12) i`,
		`INSERT INTO session_facts(session_id, content, digest, producer, created_at) SELECT 'B', 'c' || i, 'c' || i, 'capture', 'a' FROM generate_series(1, 3) i`,
		`INSERT INTO fact_provenance(fact_id, event_seq, session_id, added_at) VALUES (3, 30, 'A', 'a'), (1, 10, 'A', 'a'), (4, 40, 'A', 'a'),
			(2, 20, 'A', 'a'), (5, 20, 'A', 'a'), (6, 15, 'B', 'a'), (10, NULL, NULL, 'a'), (11, NULL, 'A', 'a')`,
		`INSERT INTO fact_provenance(fact_id, session_fact_id, session_id, added_at) VALUES (7, 3, 'B', 'a'), (8, 1, 'B', 'a'), (9, 2, 'B', 'a'), (12, 2, 'B', 'a')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := postgres.Migrate(ctx, db, schema, 23); err != nil {
		t.Fatal(err)
	}
	var linked, wrong int
	if err := db.QueryRowContext(ctx, `SELECT count(p.prev_fact) + count(p.next_fact),
		count(*) FILTER (WHERE a.prev IS DISTINCT FROM p.prev_fact OR a.next IS DISTINCT FROM p.next_fact)
		FROM fact_provenance p CROSS JOIN LATERAL (SELECT `+store.AdjacentSeeks("p")+`) a`).Scan(&linked, &wrong); err != nil {
		t.Fatal(err)
	}
	if wrong != 0 || linked != 14 {
		t.Errorf("after v23: %d rows keep other neighbours than their session's rows define, %d pointers kept; want 0 and 14", wrong, linked)
	}
}

// TestURLFromTheEnvFile: a process that does not start from the user's
// shell (a user service, an editor started from the desktop) finds the URL
// in ~/.config/recollect/postgres.env, written as `recollect service
// print` says; the environment wins over the file; a file others may read
// is refused with the fix; a file that does not set the variable is named
// in the error.
func TestURLFromTheEnvFile(t *testing.T) {
	url, schema := pgtest.Schema(t)
	home := t.TempDir()
	file := filepath.Join(home, ".config", "recollect", postgres.EnvFileName)
	if got := postgres.EnvFilePath(func(k string) string { return map[string]string{"HOME": home}[k] }); got != file {
		t.Fatalf("EnvFilePath = %q, want %q", got, file)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home}
	open := func() error {
		db, err := postgres.OpenStore(context.Background(), t.TempDir(), postgres.Config{URLEnv: "TEAM_URL", Schema: schema, Getenv: func(k string) string { return env[k] }})
		if err == nil {
			db.Close()
		}
		return err
	}
	if err := open(); !errors.Is(err, postgres.ErrNoURL) || !strings.Contains(err.Error(), "$TEAM_URL is not set (nor in "+file+")") {
		t.Fatalf("no variable, no file: %v", err)
	}
	if err := os.WriteFile(file, []byte("# recollect\nOTHER='x'\nexport TEAM_URL='"+url+"'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := open(); err != nil {
		t.Fatalf("URL in the env file: %v", err)
	}
	env["TEAM_URL"] = "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"
	if err := open(); !errors.Is(err, postgres.ErrUnreachable) {
		t.Fatalf("the environment's URL should win over the file's: %v", err)
	}
	delete(env, "TEAM_URL")
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := open(); !errors.Is(err, postgres.ErrNoURL) || !strings.Contains(err.Error(), "chmod 600 "+file) {
		t.Fatalf("a file others may read: %v; want a refusal with the fix", err)
	}
}

// TestMigrateIndexesCJK: rows written before v29 hold Chinese and Japanese
// sentences as whole words; after the migration a word inside one is
// found in facts, pending facts and events, its count is in fact_words,
// and an English fact is found as before.
func TestMigrateIndexesCJK(t *testing.T) {
	ctx := context.Background()
	db, url, schema := openAt(t, 28)
	for _, q := range []string{
		`INSERT INTO sessions(id, source, created_at) VALUES ('s1', 'record', '2026-01-01T00:00:00Z')`,
		`INSERT INTO session_events(session_id, source, role, event_type, content_type, content, recorded_at) VALUES ('s1', 'record', 'user', 'message', 'text', '我昨天在北京买了一本书。', '2026-01-01T00:00:00Z')`,
		`INSERT INTO session_facts(session_id, content, digest, producer, created_at) VALUES ('s1', '東京で新しいカメラを買いました', 'd1', 'capture', '2026-01-01T00:00:00Z')`,
		`INSERT INTO facts(content, digest, producer, recorded_at) VALUES ('我昨天在北京买了一本书。', 'd2', 'cli', '2026-01-01T00:00:00Z')`,
		`INSERT INTO facts(content, digest, producer, recorded_at) VALUES ('Caroline moved to Berlin', 'd3', 'cli', '2026-01-01T00:00:00Z')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	re, err := postgres.Open(ctx, url, schema)
	if err != nil {
		t.Fatalf("reopen and migrate: %v", err)
	}
	defer re.Close()
	for _, tc := range []struct{ table, word string }{
		{"facts", "北京"}, {"facts", "berlin"}, {"session_facts", "カメ & メラ"}, {"session_events", "北京"},
	} {
		var n int
		if err := re.QueryRowContext(ctx, `SELECT count(*) FROM `+tc.table+` WHERE content_tsv @@ to_tsquery('recollect', $1)`, tc.word).Scan(&n); err != nil || n != 1 {
			t.Errorf("%s %q: %d matches after migration (%v), want 1", tc.table, tc.word, n, err)
		}
	}
	var n int
	if err := re.QueryRowContext(ctx, `SELECT COALESCE(sum(n), 0) FROM fact_words WHERE word = '北京'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("fact_words 北京 = %d (%v), want 1", n, err)
	}
}

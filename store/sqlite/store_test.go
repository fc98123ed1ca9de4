package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store"
)

func openTemp(tb testing.TB) *store.DB {
	tb.Helper()
	db, err := Open(context.Background(), tb.TempDir())
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func TestOpenSetsPragmas(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	for _, c := range []struct{ pragma, want string }{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"busy_timeout", "10000"},
		{"cache_size", "-16384"},
	} {
		var got string
		if err := db.QueryRowContext(ctx, "PRAGMA "+c.pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", c.pragma, err)
		}
		if got != c.want {
			t.Errorf("PRAGMA %s = %q, want %q", c.pragma, got, c.want)
		}
	}
	v, err := db.Version(ctx)
	if err != nil || v != store.SchemaVersion {
		t.Fatalf("version = %d, %v; want %d", v, err, store.SchemaVersion)
	}
}

// TestMigrateFromEveryVersion builds a store at each earlier version, writes
// a row that version can hold, then migrates forward and checks the row
// survived and the schema is complete.
func TestMigrateFromEveryVersion(t *testing.T) {
	ctx := context.Background()
	for from := 0; from < store.SchemaVersion; from++ {
		t.Run(strings.Repeat("v", 1)+string(rune('0'+from)), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), store.DBFile)
			// The connections carry recollect's SQL functions, which the
			// migrations from v29 on call.
			raw := sql.OpenDB(watchedConnector{dsn: "file:" + path + "?_foreign_keys=on", h: &handle{path: path}})
			db := store.Wrap(raw, sqliteEngine{}, "", path)
			if err := db.Migrate(ctx, from); err != nil {
				t.Fatalf("migrate to %d: %v", from, err)
			}
			if from >= 1 {
				if _, err := raw.ExecContext(ctx, `INSERT INTO sessions(id, source, created_at) VALUES ('s1', 'record', ?)`, store.Now()); err != nil {
					t.Fatal(err)
				}
				if _, err := raw.ExecContext(ctx, `INSERT INTO session_events(session_id, source, role, event_type, content_type, content, recorded_at)
					VALUES ('s1', 'record', 'user', 'message', 'text', 'kept across migrations', ?)`, store.Now()); err != nil {
					t.Fatal(err)
				}
			}
			raw.Close()

			reopened, err := OpenFile(ctx, path)
			if err != nil {
				t.Fatalf("reopen and migrate from %d: %v", from, err)
			}
			defer reopened.Close()
			if v, _ := reopened.Version(ctx); v != store.SchemaVersion {
				t.Fatalf("after migration version = %d, want %d", v, store.SchemaVersion)
			}
			if from >= 1 {
				var n int
				if err := reopened.QueryRowContext(ctx, `SELECT count(*) FROM events_fts WHERE events_fts MATCH 'migrations'`).Scan(&n); err != nil || n != 1 {
					t.Fatalf("event from v%d not found after migration: n=%d err=%v", from, n, err)
				}
			}
			for _, table := range []string{"sessions", "session_events", "session_facts", "facts", "entities", "fact_entities", "entity_edges", "embeddings", "spend", "mutation_log", "tombstones", "extract_watermarks", "source_files"} {
				var n int
				if err := reopened.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?`, table).Scan(&n); err != nil || n != 1 {
					t.Errorf("table %s missing after migration from v%d", table, from)
				}
			}
		})
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, dir)
	if !errors.Is(err, store.ErrNewerSchema) {
		t.Fatalf("open newer store: err = %v, want ErrNewerSchema", err)
	}
	if !strings.Contains(err.Error(), "upgrade recollect") {
		t.Errorf("error does not say what to do: %v", err)
	}
}

func TestInsertEventDedupeAndValidation(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	ev := store.Event{SessionID: "s", Source: "record", Role: "user", EventType: "message", ContentType: "text", Content: "hello there", DedupeKey: "k1"}
	var first, second int64
	for i, dst := range []*int64{&first, &second} {
		err := db.Tx(ctx, func(tx *store.Tx) error {
			e := ev
			seq, inserted, err := store.InsertEvent(ctx, tx, &e)
			if inserted != (i == 0) {
				t.Errorf("insert %d: inserted = %v", i, inserted)
			}
			*dst = seq
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if first != second {
		t.Errorf("dedupe returned seq %d, want the original %d", second, first)
	}
	bad := []struct {
		mut   func(*store.Event)
		field string
	}{
		{func(e *store.Event) { e.Role = "robot" }, "role"},
		{func(e *store.Event) { e.EventType = "chat" }, "event_type"},
		{func(e *store.Event) { e.ContentType = "pdf" }, "content_type"},
		{func(e *store.Event) { e.Content = "  " }, "content"},
		{func(e *store.Event) { e.SessionID = "" }, "session_id"},
		{func(e *store.Event) { e.Metadata = []byte("{nope") }, "metadata"},
	}
	for _, b := range bad {
		e := ev
		b.mut(&e)
		var fe *store.FieldError
		if err := e.Validate(); !errors.As(err, &fe) || fe.Field != b.field {
			t.Errorf("Validate = %v, want a FieldError on %s", err, b.field)
		}
	}
}

// TestMigrateWidensEventSources checks the v16 rebuild of session_events:
// codex and gemini events are accepted, rows keep their seq, a pruned
// seq is never handed out again, and full-text search follows inserts
// and deletes.
func TestMigrateWidensEventSources(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), store.DBFile)
	raw, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=on")
	if err != nil {
		t.Fatal(err)
	}
	db := store.Wrap(raw, sqliteEngine{}, "", path)
	if err := db.Migrate(ctx, 15); err != nil {
		t.Fatal(err)
	}
	ins := `INSERT INTO session_events(session_id, source, role, event_type, content_type, content, recorded_at) VALUES ('s1', ?, 'user', 'message', 'text', ?, ?)`
	if _, err := raw.ExecContext(ctx, `INSERT INTO sessions(id, source, created_at) VALUES ('s1', 'record', ?)`, store.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, ins, "codex", "refused before v16", store.Now()); err == nil {
		t.Fatal("v15 accepted a codex event; the test no longer tests the widening")
	}
	for _, c := range []string{"first kept", "second pruned"} {
		if _, err := raw.ExecContext(ctx, ins, "claude-code", c, store.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := raw.ExecContext(ctx, `DELETE FROM session_events WHERE seq = 2`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	s, err := OpenFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, src := range []string{"codex", "gemini"} {
		if _, err := s.ExecContext(ctx, ins, src, "from "+src+" zebra", store.Now()); err != nil {
			t.Fatalf("insert %s event after migration: %v", src, err)
		}
	}
	var seqs []int
	rows, err := s.QueryContext(ctx, `SELECT seq FROM session_events ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n int
		_ = rows.Scan(&n)
		seqs = append(seqs, n)
	}
	rows.Close()
	if fmt.Sprint(seqs) != "[1 3 4]" {
		t.Fatalf("seqs after migration = %v, want [1 3 4] (kept row keeps 1, pruned 2 never reused)", seqs)
	}
	count := func(q string) int {
		var n int
		if err := s.QueryRowContext(ctx, `SELECT count(*) FROM events_fts WHERE events_fts MATCH ?`, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if count("zebra") != 2 || count("kept") != 1 {
		t.Fatalf("full-text after migration: zebra %d (want 2), kept %d (want 1)", count("zebra"), count("kept"))
	}
	if _, err := s.ExecContext(ctx, `DELETE FROM session_events WHERE source = 'gemini'`); err != nil {
		t.Fatal(err)
	}
	if count("zebra") != 1 {
		t.Fatalf("full-text keeps a deleted event: zebra %d, want 1", count("zebra"))
	}
}

// A data directory whose name holds a character an SQLite URI gives a
// meaning to ('#', '?', '%') opens its own memory.db, for writing and for
// reading, and leaves no file anywhere else.
func TestOpenDirectoryNamesWithURICharacters(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"notes#2", "what?", "100%done", "a%23b"} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, name)
			db, err := Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, `INSERT INTO sessions(id, source, created_at) VALUES ('s', 'record', '2026-01-01T00:00:00Z')`); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			entries, _ := os.ReadDir(root)
			if len(entries) != 1 || entries[0].Name() != name {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Fatalf("%s holds %v; want only %q", root, names, name)
			}
			r, err := OpenReader(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var n int
			if err := r.QueryRowContext(ctx, `SELECT count(*) FROM sessions`).Scan(&n); err != nil || n != 1 {
				t.Fatalf("reader of %s: %d sessions (%v); want the one written", dir, n, err)
			}
		})
	}
}

// TestRacingFirstOpens: processes that open the same new store at once (a
// session-start hook and an editor's MCP server) each migrate it; every
// step is taken once, and every open succeeds.
func TestRacingFirstOpens(t *testing.T) {
	ctx := context.Background()
	for round := 0; round < 5; round++ {
		dir := t.TempDir()
		const n = 6
		errs := make(chan error, n)
		start := make(chan struct{})
		for i := 0; i < n; i++ {
			go func() {
				<-start
				db, err := Open(ctx, dir)
				if err == nil {
					err = db.Close()
				}
				errs <- err
			}()
		}
		close(start)
		for i := 0; i < n; i++ {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}

// TestMigrateIndexesCJK: a store written before v29 holds Chinese and
// Japanese sentences whole in its indexes; after the migration a word
// inside one is found in facts, pending facts and events, and an English
// row is found as before.
func TestMigrateIndexesCJK(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), store.DBFile)
	raw, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=on")
	if err != nil {
		t.Fatal(err)
	}
	db := store.Wrap(raw, sqliteEngine{}, "", path)
	if err := db.Migrate(ctx, 28); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO sessions(id, source, created_at) VALUES ('s1', 'record', '2026-01-01T00:00:00Z')`,
		`INSERT INTO session_events(session_id, source, role, event_type, content_type, content, recorded_at) VALUES ('s1', 'record', 'user', 'message', 'text', '我昨天在北京买了一本书。', '2026-01-01T00:00:00Z')`,
		`INSERT INTO session_facts(session_id, content, digest, producer, created_at) VALUES ('s1', '東京で新しいカメラを買いました', 'd1', 'capture', '2026-01-01T00:00:00Z')`,
		`INSERT INTO facts(content, digest, producer, recorded_at) VALUES ('我昨天在北京买了一本书。', 'd2', 'cli', '2026-01-01T00:00:00Z')`,
		`INSERT INTO facts(content, digest, producer, recorded_at) VALUES ('Caroline moved to Berlin', 'd3', 'cli', '2026-01-01T00:00:00Z')`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	s, err := OpenFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	count := func(ix store.TextIndex, word string) int {
		t.Helper()
		var n int
		if err := s.QueryRowContext(ctx, `SELECT count(*) FROM `+s.Engine().TextHits(ix)+` k`, s.Engine().TextQuery(text.QueryWords(word))).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, tc := range []struct {
		ix   store.TextIndex
		word string
	}{{store.FactText, "北京"}, {store.FactText, "berlin"}, {store.PendingText, "カメラ"}, {store.EventText, "北京"}} {
		if n := count(tc.ix, tc.word); n != 1 {
			t.Errorf("index %d, %q: %d matches after migration, want 1", tc.ix, tc.word, n)
		}
	}
	// The index agrees with its rows: deleting through the new triggers
	// removes exactly what the migration indexed.
	if _, err := s.ExecContext(ctx, `DELETE FROM facts WHERE digest = 'd2'`); err != nil {
		t.Fatal(err)
	}
	if n := count(store.FactText, "北京"); n != 0 {
		t.Errorf("北京 still matches %d facts after the fact was deleted", n)
	}
	// With no CJK fact left, the index is what FTS5 itself would build
	// from the rows.
	if _, err := s.ExecContext(ctx, `INSERT INTO facts_fts(facts_fts, rank) VALUES ('integrity-check', 0)`); err != nil {
		t.Errorf("facts_fts integrity check: %v", err)
	}
}

// TestMigrationsReachSchemaVersion: the SQLite schema has one migration
// per version up to store.SchemaVersion, the version both engines share.
func TestMigrationsReachSchemaVersion(t *testing.T) {
	if len(migrations) != store.SchemaVersion {
		t.Fatalf("%d SQLite migrations, store.SchemaVersion is %d: add the migration to schema.go and set store.SchemaVersion to match", len(migrations), store.SchemaVersion)
	}
}

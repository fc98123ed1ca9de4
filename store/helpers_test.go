package store_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// The write helpers every layer shares, on every engine.

func TestInsertEventOnEveryEngine(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		at := time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)
		ev := store.Event{SessionID: "s", Source: "codex", Role: "user", EventType: "message", ContentType: "text",
			Content: "hello there", DedupeKey: "k1", OccurredAt: &at, Metadata: []byte(`{"a":1}`)}
		var seqs []int64
		for i := range 2 {
			err := db.Tx(ctx, func(tx *store.Tx) error {
				e := ev
				seq, inserted, err := store.InsertEvent(ctx, tx, &e)
				if inserted != (i == 0) {
					t.Errorf("insert %d: inserted = %v", i, inserted)
				}
				seqs = append(seqs, seq)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		if seqs[0] == 0 || seqs[0] != seqs[1] {
			t.Fatalf("seqs %v: want the first insert's seq twice", seqs)
		}
		row := db.QueryRowContext(ctx, `SELECT `+store.EventColumns+` FROM session_events WHERE seq = ?`, seqs[0])
		got, err := store.ScanEvent(row)
		if err != nil {
			t.Fatal(err)
		}
		if got.Content != "hello there" || got.OccurredAt == nil || !got.OccurredAt.Equal(at) || string(got.Metadata) != `{"a":1}` || got.Source != "codex" {
			t.Errorf("read back %+v", got)
		}
		all, err := store.Events(ctx, db, `SELECT `+store.EventColumns+` FROM session_events WHERE session_id = ? ORDER BY seq`, "s")
		if err != nil || len(all) != 1 || all[0].Seq != seqs[0] || all[0].Content != got.Content {
			t.Errorf("Events = %+v, %v; want the one event stored", all, err)
		}
		if _, err := store.Events(ctx, db, `SELECT seq FROM session_events`); err == nil {
			t.Error("Events of a statement without EventColumns: no error")
		}
	})
}

// TestConcurrentDedupe: writers racing to store the same lines (two
// daemons following one transcript) store each once, and every writer
// learns its seq.
func TestConcurrentDedupe(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 30 {
					err := db.Tx(ctx, func(tx *store.Tx) error {
						ev := store.Event{SessionID: "s", Source: "claude-code", Role: "user", EventType: "message", ContentType: "text",
							Content: "line " + string(rune('a'+i%26)), DedupeKey: "key-" + string(rune('a'+i%26)) + string(rune('0'+i/26))}
						seq, _, err := store.InsertEvent(ctx, tx, &ev)
						if err == nil && seq == 0 {
							t.Errorf("writer %d line %d: seq 0", w, i)
						}
						return err
					})
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM session_events`).Scan(&n); err != nil || n != 30 {
			t.Fatalf("%d events stored (%v), want 30", n, err)
		}
	})
}

func TestTouchSessionWidensWindow(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
		for _, c := range []struct {
			project string
			at      time.Time
		}{{"", day(5)}, {"/p", day(2)}, {"/q", day(9)}} {
			if err := store.TouchSession(ctx, db, "s", "record", c.project, "", c.at); err != nil {
				t.Fatal(err)
			}
		}
		var first, last, project string
		if err := db.QueryRowContext(ctx, `SELECT first_at, last_at, project FROM sessions WHERE id = ?`, "s").Scan(&first, &last, &project); err != nil {
			t.Fatal(err)
		}
		if first != store.FormatTime(day(2)) || last != store.FormatTime(day(9)) || project != "/p" {
			t.Errorf("session window %s..%s project %s; want day 2..9, the first project named", first, last, project)
		}
	})
}

func TestMetaAndMutationLog(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		if _, ok, err := store.GetMeta(ctx, db, "k"); err != nil || ok {
			t.Fatalf("absent key: ok %v, %v", ok, err)
		}
		for _, v := range []string{"one", "two"} {
			if err := store.SetMeta(ctx, db, "k", v); err != nil {
				t.Fatal(err)
			}
		}
		if v, ok, err := store.GetMeta(ctx, db, "k"); err != nil || !ok || v != "two" {
			t.Fatalf("meta k = %q, %v, %v; want two", v, ok, err)
		}
		if err := store.LogMutation(ctx, db, "forget", "fact:1", "cli", "asked", ""); err != nil {
			t.Fatal(err)
		}
		var detail *string
		var op string
		if err := db.QueryRowContext(ctx, `SELECT op, detail FROM mutation_log WHERE target = ?`, "fact:1").Scan(&op, &detail); err != nil || op != "forget" || detail != nil {
			t.Fatalf("mutation log: op %q detail %v err %v", op, detail, err)
		}
	})
}

func TestFactContentIsImmutableOnEveryEngine(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		var id int64
		if err := db.QueryRowContext(ctx, `INSERT INTO facts(content, digest, producer, recorded_at) VALUES ('I live in Lisbon', 'd', 'heuristic', ?) RETURNING id`, store.Now()).Scan(&id); err != nil {
			t.Fatal(err)
		}
		_, err := db.ExecContext(ctx, `UPDATE facts SET content = 'I live in Porto' WHERE id = ?`, id)
		if err == nil || !strings.Contains(err.Error(), "immutable") {
			t.Fatalf("editing a fact's content: err = %v, want the immutability refusal", err)
		}
		if _, err := db.ExecContext(ctx, `UPDATE facts SET status = 'superseded' WHERE id = ?`, id); err != nil {
			t.Fatalf("status change must stay allowed: %v", err)
		}
		if v, err := db.Version(ctx); err != nil || v != store.SchemaVersion {
			t.Fatalf("version %d, %v; want %d", v, err, store.SchemaVersion)
		}
	})
}

// TestFlagsWrittenAsBools: the stages write flags as Go bools into integer
// columns; both engines store them as 0 and 1.
func TestFlagsWrittenAsBools(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		for i, self := range []bool{true, false} {
			if _, err := db.ExecContext(ctx, `INSERT INTO entities(type, name, canonical, fold, is_self, created_at) VALUES ('person', ?, ?, ?, ?, ?)`,
				"n", string(rune('a'+i)), "n", self, store.Now()); err != nil {
				t.Fatalf("insert is_self=%v: %v", self, err)
			}
		}
		var sum, ones int
		if err := db.QueryRowContext(ctx, `SELECT sum(is_self), count(*) FROM entities WHERE is_self = 1`).Scan(&sum, &ones); err != nil {
			t.Fatal(err)
		}
		if sum != 1 || ones != 1 {
			t.Fatalf("is_self sum %d, rows with 1: %d; want 1 and 1", sum, ones)
		}
	})
}

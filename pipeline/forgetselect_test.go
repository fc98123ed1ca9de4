package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/store/storetest"
)

// forgetHome is a Claude Code home with two sessions of project /w/app: an
// old one (January) and a new one (March), each saying what the heuristic
// keeps as a fact.
func forgetHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, "projects", "-w-app")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"old.jsonl": `{"type":"user","sessionId":"old","cwd":"/w/app","timestamp":"2026-01-10T09:00:00Z","uuid":"o1","message":{"role":"user","content":"We deploy the Zephyr billing service with Render every Friday."}}
{"type":"user","sessionId":"old","cwd":"/w/app","timestamp":"2026-01-10T09:01:00Z","uuid":"o2","message":{"role":"user","content":"I prefer tabs over spaces in the Quokka codebase."}}
`,
		"new.jsonl": `{"type":"user","sessionId":"new","cwd":"/w/app","timestamp":"2026-03-10T09:00:00Z","uuid":"n1","message":{"role":"user","content":"We moved the Atlas search service to Fly.io last week."}}
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// TestForgetBySelector: on both engines, --session and --before forget the
// old session's events and the facts they alone support, and nothing of
// the new one; a fact another remaining event still supports stays, its
// old event emptied; one mutation record names the selector; the old
// text is in no table (nor, on SQLite, in the database file or its WAL).
func TestForgetBySelector(t *testing.T) {
	ctx := context.Background()
	for _, engine := range []string{"sqlite", "postgres"} {
		for _, sel := range []Selector{{Session: "old"}, {Before: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}} {
			t.Run(engine+"/"+sel.String(), func(t *testing.T) {
				p := openEngine(t, engine, forgetHome(t))
				if _, err := p.Copy(ctx); err != nil {
					t.Fatal(err)
				}
				consolidate(t, p)
				var zephyr, atlas int64
				if err := p.db.QueryRowContext(ctx, `SELECT id FROM facts WHERE content LIKE '%Zephyr%'`).Scan(&zephyr); err != nil {
					t.Fatalf("fixture: no Zephyr fact: %v", err)
				}
				if err := p.db.QueryRowContext(ctx, `SELECT id FROM facts WHERE content LIKE '%Atlas%'`).Scan(&atlas); err != nil {
					t.Fatalf("fixture: no Atlas fact: %v", err)
				}
				// The Atlas fact also rests on the old session's second
				// event: it stays (the new event supports it), that event
				// loses its text.
				var quokkaSeq int64
				if err := p.db.QueryRowContext(ctx, `SELECT seq FROM session_events WHERE content LIKE '%Quokka%'`).Scan(&quokkaSeq); err != nil {
					t.Fatal(err)
				}
				if _, err := p.db.ExecContext(ctx, `INSERT INTO fact_provenance(fact_id, event_seq, session_id, added_at) VALUES (?, ?, 'old', '2026-03-10T09:00:00Z')`, atlas, quokkaSeq); err != nil {
					t.Fatal(err)
				}

				picked, err := p.Select(ctx, sel)
				if err != nil {
					t.Fatal(err)
				}
				if len(picked.Events) != 2 || !containsID(picked.Facts, zephyr) || containsID(picked.Facts, atlas) {
					t.Fatalf("selection %+v: want the 2 old events, the Zephyr fact, not the Atlas fact", picked)
				}
				rep, _, err := p.ForgetSelected(ctx, sel, ForgetOptions{Actor: "test", Reason: "asked"})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Rows == 0 || rep.RowsBy["facts"] == 0 {
					t.Errorf("report %+v: want rows counted per table", rep)
				}
				if n := storetest.Count(t, p.db, `SELECT count(*) FROM facts WHERE id = ?`, atlas); n != 1 {
					t.Errorf("the Atlas fact, still supported by the new session, was forgotten")
				}
				if n := storetest.Count(t, p.db, `SELECT count(*) FROM session_events WHERE session_id = 'new'`); n != 1 {
					t.Errorf("the new session's event was touched")
				}
				for _, word := range []string{"zephyr", "quokka"} {
					if n := storetest.Count(t, p.db, `SELECT count(*) FROM facts WHERE lower(content) LIKE '%`+word+`%'`) +
						storetest.Count(t, p.db, `SELECT count(*) FROM session_events WHERE lower(content) LIKE '%`+word+`%'`) +
						storetest.Count(t, p.db, `SELECT count(*) FROM session_facts WHERE lower(content) LIKE '%`+word+`%'`); n != 0 {
						t.Errorf("%q is still stored (%d rows)", word, n)
					}
				}
				if n := storetest.Count(t, p.db, `SELECT count(*) FROM mutation_log WHERE op = 'forget' AND target = ?`, "selector:"+sel.String()); n != 1 {
					t.Errorf("%d mutation records for the selector, want 1", n)
				}
				if engine == "sqlite" {
					leftovers(t, p, "zephyr")
					leftovers(t, p, "quokka")
					if _, err := p.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
						t.Fatal(err)
					}
					for _, f := range []string{p.db.Path, p.db.Path + "-wal"} {
						data, _ := os.ReadFile(f)
						if bytes.Contains(bytes.ToLower(data), []byte("quokka")) {
							t.Errorf("%s still holds the forgotten text", f)
						}
					}
				}
			})
		}
	}
}

// TestForgetByEntity: --entity picks the facts that name it, in any case,
// and only those.
func TestForgetByEntity(t *testing.T) {
	ctx := context.Background()
	p := openEngine(t, "sqlite", forgetHome(t))
	if _, err := p.Copy(ctx); err != nil {
		t.Fatal(err)
	}
	consolidate(t, p)
	picked, err := p.Select(ctx, Selector{Entity: "ATLAS"})
	if err != nil {
		t.Fatal(err)
	}
	if len(picked.Facts) != 1 || len(picked.Events) != 0 || !strings.Contains(picked.Sample[0], "Atlas") {
		t.Fatalf("selection %+v: want the Atlas fact alone", picked)
	}
	if _, err := p.Select(ctx, Selector{}); err != ErrEmptySelector {
		t.Errorf("an empty selector: %v", err)
	}
}

func containsID(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/recollect/recollect/store/storetest"
)

// realHome is a Claude Code home holding the claude-code-log fixture's
// projects (six sessions from July 2025 to April 2026) and the spotter
// project (two sessions in February 2026): real transcripts.
func realHome(tb testing.TB) string {
	tb.Helper()
	home := tb.TempDir()
	same := func(rel string) string { return rel }
	copyTree(tb, filepath.Join("claude-code", "claude-code-log"), filepath.Join(home, "projects"), same)
	copyTree(tb, filepath.Join("claude-code", "spotter"), filepath.Join(home, "projects", "-home-marco-projects-spotter"), same)
	return home
}

// TestForgetSelectorsOnRealTranscripts: on a store built from real
// transcripts, each selector forgets what it picks — the facts' text is
// in no table (and, on SQLite, not in the database file or its WAL after
// the checkpoint forget runs) — and keeps the facts it does not pick.
func TestForgetSelectorsOnRealTranscripts(t *testing.T) {
	ctx := context.Background()
	home := realHome(t)
	selectors := []struct {
		name string
		pick func(t *testing.T, p *Pipeline) Selector
	}{
		{"session", func(t *testing.T, p *Pipeline) Selector {
			var s string
			if err := p.db.QueryRowContext(ctx, `SELECT session_id FROM fact_provenance WHERE session_id IS NOT NULL GROUP BY session_id ORDER BY count(*), session_id LIMIT 1`).Scan(&s); err != nil {
				t.Fatal(err)
			}
			return Selector{Session: s}
		}},
		{"entity", func(t *testing.T, p *Pipeline) Selector {
			var name string
			if err := p.db.QueryRowContext(ctx, `SELECT e.name FROM entities e JOIN fact_entities fe ON fe.entity_id = e.id
				WHERE e.is_self = 0 GROUP BY e.id, e.name HAVING count(*) BETWEEN 2 AND 10 ORDER BY count(*) DESC, e.id LIMIT 1`).Scan(&name); err != nil {
				t.Fatal(err)
			}
			return Selector{Entity: name}
		}},
		{"matching", func(t *testing.T, p *Pipeline) Selector {
			return Selector{Matching: "spotter", Limit: 3}
		}},
		{"before", func(t *testing.T, p *Pipeline) Selector {
			return Selector{Before: time.Date(2026, 2, 11, 0, 0, 0, 0, time.UTC)}
		}},
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		// One store per engine; the selectors forget from it in turn.
		p := openEngine(t, engine, home)
		if _, err := p.Copy(ctx); err != nil {
			t.Fatal(err)
		}
		consolidate(t, p)
		for _, tc := range selectors {
			t.Run(engine+"/"+tc.name, func(t *testing.T) {
				sel := tc.pick(t, p)
				picked, err := p.Select(ctx, sel)
				if err != nil {
					t.Fatal(err)
				}
				facts := storetest.Count(t, p.db, `SELECT count(*) FROM facts`)
				if len(picked.Facts) == 0 || len(picked.Facts) == facts {
					t.Fatalf("%s picks %d of %d facts; the fixture should give some and keep some", sel, len(picked.Facts), facts)
				}
				var texts []string
				for _, id := range picked.Facts {
					var s string
					if err := p.db.QueryRowContext(ctx, `SELECT content FROM facts WHERE id = ?`, id).Scan(&s); err != nil {
						t.Fatal(err)
					}
					texts = append(texts, s)
				}
				rep, _, err := p.ForgetSelected(ctx, sel, ForgetOptions{Actor: "test", Reason: "asked"})
				if err != nil {
					t.Fatal(err)
				}
				if rep.RowsBy["facts"] != len(picked.Facts) {
					t.Errorf("%s: removed %d facts, picked %d", sel, rep.RowsBy["facts"], len(picked.Facts))
				}
				if n := storetest.Count(t, p.db, `SELECT count(*) FROM facts`); n != facts-len(picked.Facts) {
					t.Errorf("%s: %d facts left of %d, want %d", sel, n, facts, facts-len(picked.Facts))
				}
				var files [][]byte
				if engine == "sqlite" {
					for _, f := range []string{p.db.Path, p.db.Path + "-wal"} {
						data, _ := os.ReadFile(f)
						files = append(files, data)
					}
				}
				for _, text := range texts {
					for _, table := range []string{"facts", "session_facts", "session_events", "summaries"} {
						col := "content"
						if table == "summaries" {
							col = "summary"
						}
						if n := storetest.Count(t, p.db, `SELECT count(*) FROM `+table+` WHERE `+col+` LIKE ?`, "%"+text+"%"); n != 0 {
							t.Errorf("%s: %s still holds %q (%d rows)", sel, table, text, n)
						}
					}
					for i, data := range files {
						if bytes.Contains(data, []byte(text)) {
							t.Errorf("%s: the database file (%d: 0 file, 1 WAL) still holds %q", sel, i, text)
						}
					}
				}
			})
		}
	}
}

package graph_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/store"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func briefingStore(t *testing.T) *store.DB {
	db := newDB(t)
	for i := 0; i < 14; i++ {
		addFact(t, db, fact{content: fmt.Sprintf("Fact number %d about the project", i), importance: float64(i%5) / 4,
			said: dayN(i), recorded: dayN(i), domain: []string{"work", "personal"}[i%2]})
	}
	old := addFact(t, db, fact{content: "I live in Lisbon", recorded: dayN(1)})
	a := addFact(t, db, fact{content: "I moved to Porto", recorded: dayN(15)})
	b := addFact(t, db, fact{content: "I moved to Braga", recorded: dayN(15)})
	supersede(t, db, old, a)
	mustExec(t, db, `INSERT INTO conflicts(fact_id, other_id, target_id, reason, created_at) VALUES (?,?,?,?,?)`,
		b, a, old, "both moved the user; the first won", dayN(15))
	mustExec(t, db, `INSERT INTO summaries(summary, open_threads, created_at) VALUES (?,?,?)`,
		"The user moved cities and the project got two new facts.",
		`["decide the database","ship the beta",{"text":"ask Sarah about March"},"t4","t5","t6"]`, dayN(15))
	mustExec(t, db, `INSERT INTO runs(trigger, started_at, finished_at, summary) VALUES ('cli', ?, ?, ?)`,
		dayN(15), dayN(15), `{"run_id":1,"extract":{"facts_extracted":3,"events_remaining":0},"integrate":{"facts_integrated":2,"merged":0,"superseded":1}}`)
	return db
}

func mustExec(t *testing.T, db *store.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatal(err)
	}
}

func TestBriefingGolden(t *testing.T) {
	db := briefingStore(t)
	ctx := context.Background()
	in := graph.BriefingInput{Backlog: graph.Known(42), Reclaimable: graph.Unknown("not measured")}
	first, err := graph.Briefing(ctx, db, in)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := graph.Briefing(ctx, db, in)
	if first != second {
		t.Fatalf("same input, different bytes")
	}
	golden(t, "briefing.md", first)
	for _, want := range []string{
		"conflict 1: facts 17 and 16 both claim to replace [fact 15] \"I live in Lisbon\"",
		"- (2 more not shown)",
		"Run 1 (cli, finished 2026-03-16T09:00): 3 facts extracted; 2 new facts, 0 merged, 1 superseded.",
		"Note: 42 raw events await extraction (consolidate); reclaimable events unknown (not measured).",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("briefing lacks %q", want)
		}
	}
	if n := strings.Count(first, "\n"); n > 45 {
		t.Errorf("briefing is %d lines; want about a screenful", n)
	}
	profile, err := graph.Profile(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "profile.md", profile)
}

func TestBriefingEmptyAndQuiet(t *testing.T) {
	db := newDB(t)
	got, err := graph.Briefing(context.Background(), db, graph.BriefingInput{Backlog: graph.Known(0), Reclaimable: graph.Unknown("x")})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Nothing is known yet: no fact has been integrated.", "No consolidation has run yet.", "## Open threads\n\nNone."} {
		if !strings.Contains(got, want) {
			t.Errorf("empty briefing lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Note:") {
		t.Errorf("no backlog: no housekeeping note expected:\n%s", got)
	}
	unknown, _ := graph.Briefing(context.Background(), db, graph.BriefingInput{Backlog: graph.Unknown("store busy"), Reclaimable: graph.Known(0)})
	if !strings.Contains(unknown, "Note: extract backlog unknown (store busy).") {
		t.Errorf("unknown backlog must be said:\n%s", unknown)
	}
}

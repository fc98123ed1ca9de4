package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

const shellfish = "I am allergic to shellfish, so restaurant suggestions must avoid it."

func TestForgetEndToEnd(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	p.Config.Extraction.WorkingMemorySize = 0
	seqs := say(t, p, "s1", shellfish, "My colleague Robin at Acme is leading the Atlas migration to Postgres this quarter.")
	say(t, p, "s2", shellfish) // the same sentence again: merged provenance
	consolidate(t, p)

	cands, err := p.ForgetCandidates(ctx, "shellfish allergy", 10)
	if err != nil || len(cands) != 1 || cands[0].Content != shellfish {
		t.Fatalf("candidates = %+v, %v", cands, err)
	}
	id := cands[0].ID
	vec, _ := vector.Encode([]float32{1, 0, 0})
	if _, err := p.db.ExecContext(ctx, `INSERT INTO embeddings(fact_id, provider, model, dim, vector, created_at) VALUES (?, 'ollama', 'm', 3, ?, ?)`, id, vec, store.Now()); err != nil {
		t.Fatal(err)
	}
	activeBefore, totalBefore := factCounts(t, p)
	prunable, err := p.Prune(ctx, PruneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if views := readViews(t, p); !strings.Contains(views, "allergic") {
		t.Fatalf("before forget, entity/context/briefing do not show the fact:\n%s", views)
	}

	// A code file caches sign codes (the fact's among them): forget removes it.
	codes := filepath.Join(p.db.Dir, "vector-codes-0123456789abcdef.bin")
	if err := os.WriteFile(codes, []byte("RCVCODE1"), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := p.Forget(ctx, []int64{id, id}, ForgetOptions{Actor: "test", Reason: "medical detail"})
	if _, serr := os.Stat(codes); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("the code file outlived forget: %v", serr)
	}
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"facts": 1, "facts_fts": 1, "session_facts": 2, "session_facts_fts": 2, "fact_provenance": 2, "embeddings": 1}
	for table, n := range want {
		if rep.RowsBy[table] != n {
			t.Errorf("rows from %s = %d, want %d (report %+v)", table, rep.RowsBy[table], n, rep)
		}
	}
	if rep.Tombstones != 1 || len(rep.Facts) != 1 {
		t.Fatalf("report = %+v", rep)
	}

	// Gone from search, from the stores behind entity and context lookups,
	// and from the fact counts.
	if a := answers(t, p, "shellfish"); len(a[0].Results) != 0 || len(a[0].Pending) != 0 {
		t.Fatalf("forgotten fact still found: %+v", a[0])
	}
	for _, q := range []string{
		`SELECT count(*) FROM facts_fts WHERE facts_fts MATCH 'shellfish'`,
		`SELECT count(*) FROM session_facts_fts WHERE session_facts_fts MATCH 'shellfish'`,
		`SELECT count(*) FROM session_facts WHERE content LIKE '%shellfish%'`,
		`SELECT count(*) FROM embeddings`,
		`SELECT count(*) FROM fact_entities WHERE fact_id = ` + itoa(id),
	} {
		if n := storetest.Count(t, p.db, q); n != 0 {
			t.Errorf("%s = %d after forget", q, n)
		}
	}
	leftovers(t, p, "shellfish")
	if views := readViews(t, p); strings.Contains(views, "allergic") {
		t.Fatalf("forgotten fact still in entity, context or briefing:\n%s", views)
	}
	if active, total := factCounts(t, p); active != activeBefore-1 || total != totalBefore-1 {
		t.Fatalf("facts active %d, total %d -> %d, %d", activeBefore, totalBefore, active, total)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM facts WHERE content LIKE '%Robin%'`); n != 1 {
		t.Fatalf("forget took an unrelated fact: %d Robin facts left", n)
	}

	// A content-free tombstone and log entry.
	var actor, reason, detail string
	if err := p.db.QueryRowContext(ctx, `SELECT actor, reason FROM tombstones WHERE digest = ? AND fact_id = ?`, store.Digest(shellfish), id).Scan(&actor, &reason); err != nil {
		t.Fatalf("no tombstone: %v", err)
	}
	if err := p.db.QueryRowContext(ctx, `SELECT detail FROM mutation_log WHERE op = 'forget' AND target = ?`, "fact:"+itoa(id)).Scan(&detail); err != nil {
		t.Fatalf("no forget entry in the mutation log: %v", err)
	}
	if actor != "test" || reason != "medical detail" || strings.Contains(detail, "shellfish") {
		t.Fatalf("tombstone %q %q, log detail %q", actor, reason, detail)
	}

	// The events it alone cited are gone, not merely prunable.
	if rep.RowsBy["session_events"] != 2 || storetest.Count(t, p.db, `SELECT count(*) FROM session_events WHERE seq = ?`, seqs[0]) != 0 {
		t.Fatalf("forget deleted %d events; want the two shellfish events (report %+v)", rep.RowsBy["session_events"], rep)
	}
	now, err := p.Prune(ctx, PruneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if now.Events != prunable.Events {
		t.Fatalf("prunable %d -> %d (%v); the forgotten events should be deleted, the rest unchanged", prunable.Events, now.Events, now.Ranges)
	}

	// Saying it again does not bring it back.
	say(t, p, "s3", shellfish)
	consolidate(t, p)
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM facts WHERE digest = ?`, store.Digest(shellfish)); n != 0 {
		t.Fatal("re-extracting the forgotten sentence brought it back")
	}
	if a := answers(t, p, "shellfish"); len(a[0].Results)+len(a[0].Pending) != 0 {
		t.Fatalf("forgotten fact found again: %+v", a[0])
	}
}

func TestForgetUnknownIDForgetsNothing(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	say(t, p, "s", shellfish)
	consolidate(t, p)
	id := int64(storetest.Count(t, p.db, `SELECT id FROM facts`))
	_, err := p.Forget(ctx, []int64{id, 999}, ForgetOptions{})
	if !errors.Is(err, ErrFactNotFound) || !strings.Contains(err.Error(), "forget fact 999: fact not found; list candidates with recollect forget --matching QUERY --dry-run") {
		t.Fatalf("err = %v", err)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM facts`); n != 1 {
		t.Fatal("a failed forget removed a fact")
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM tombstones`); n != 0 {
		t.Fatal("a failed forget left a tombstone")
	}
}

func TestForgetTakesEntityLinksAndEdges(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	say(t, p, "s", "My colleague Robin at Acme is leading the Atlas migration to Postgres this quarter.",
		"Our team lead says Robin at Acme prefers Postgres for every new service.")
	consolidate(t, p)
	entities, edges := storetest.Count(t, p.db, `SELECT count(*) FROM entities`), storetest.Count(t, p.db, `SELECT count(*) FROM entity_edges`)
	if entities < 3 || edges == 0 {
		t.Fatalf("fixture made %d entities, %d edges", entities, edges)
	}
	var id int64
	if err := p.db.QueryRowContext(ctx, `SELECT id FROM facts WHERE content LIKE 'My colleague%'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Forget(ctx, []int64{id}, ForgetOptions{}); err != nil {
		t.Fatal(err)
	}
	// Entities still named by the other fact stay; those only this fact
	// named go, and no edge points at a missing entity or has no strength.
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM entities e WHERE is_self = 0 AND NOT EXISTS (SELECT 1 FROM fact_entities fe WHERE fe.entity_id = e.id)`); n != 0 {
		t.Fatalf("%d entities left with no fact", n)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM entity_edges WHERE strength <= 0`); n != 0 {
		t.Fatalf("%d edges with no strength left", n)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM entities WHERE canonical = 'robin'`); n == 0 {
		t.Fatalf("Robin, named by the remaining fact, is gone (%d)", n)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// readViews renders the entity card of the store's owner, the context of
// "shellfish allergy restaurant" and the briefing as one string.
func readViews(tb testing.TB, p *Pipeline) string {
	tb.Helper()
	ctx := context.Background()
	ent, err := p.Reader.Entity(ctx, graph.EntityQuery{Name: "the user"})
	if err != nil {
		tb.Fatal(err)
	}
	cx, err := p.Reader.Context(ctx, graph.ContextQuery{Topic: "shellfish allergy restaurant"})
	if err != nil {
		tb.Fatal(err)
	}
	brief, err := p.Briefing(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	a, _ := json.Marshal(ent)
	b, _ := json.Marshal(cx)
	return string(a) + "\n" + string(b) + "\n" + brief
}

// leftovers fails when word is stored anywhere: every table, FTS shadow
// tables and raw events included, is read whole.
func leftovers(tb testing.TB, p *Pipeline, word string) {
	tb.Helper()
	ctx := context.Background()
	var tables []string
	rows, err := p.db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
	if err != nil {
		tb.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			tb.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	for _, table := range tables {
		rows, err := p.db.QueryContext(ctx, `SELECT * FROM "`+table+`"`)
		if err != nil {
			if strings.Contains(err.Error(), "virtual table") {
				continue
			}
			tb.Fatalf("read %s: %v", table, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				tb.Fatal(err)
			}
			for i, v := range vals {
				var b []byte
				switch x := v.(type) {
				case string:
					b = []byte(x)
				case []byte:
					b = x
				}
				if bytes.Contains(bytes.ToLower(b), []byte(word)) {
					tb.Errorf("%s.%s still holds %q", table, cols[i], word)
				}
			}
		}
		rows.Close()
	}
}

// A run report written after the fact arrived loses its integrate summary
// (it may quote the fact) and keeps the rest; an earlier run's stays.
func TestForgetScrubsLaterRunSummaries(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	const early = `{"trigger":"cli","integrate":{"integrated":0,"summary":"nothing yet"}}`
	if _, err := p.db.ExecContext(ctx, `INSERT INTO runs(trigger, started_at, finished_at, summary) VALUES ('cli', ?, ?, ?)`, store.Now(), store.Now(), early); err != nil {
		t.Fatal(err)
	}
	say(t, p, "s1", shellfish)
	consolidate(t, p)
	var id int64
	if err := p.db.QueryRowContext(ctx, `SELECT id FROM facts WHERE digest = ?`, store.Digest(shellfish)).Scan(&id); err != nil {
		t.Fatal(err)
	}
	const later = `{"trigger":"cli","integrate":{"integrated":1,"summary":"The user is allergic to shellfish."},"elapsed":"1s"}`
	if _, err := p.db.ExecContext(ctx, `INSERT INTO runs(trigger, started_at, finished_at, summary) VALUES ('cli', ?, ?, ?)`, store.Now(), store.Now(), later); err != nil {
		t.Fatal(err)
	}
	rep, err := p.Forget(ctx, []int64{id}, ForgetOptions{Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	// The consolidate run that integrated the fact wrote a summary too.
	if rep.ScrubbedRuns != 2 {
		t.Errorf("scrubbed %d run reports, want the two written after the fact", rep.ScrubbedRuns)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM runs WHERE summary LIKE '%shellfish%'`); n != 0 {
		t.Errorf("%d run reports still quote the forgotten fact", n)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM runs WHERE summary = ?`, early); n != 1 {
		t.Errorf("the run report from before the fact changed")
	}
	var got map[string]any
	var s string
	if err := p.db.QueryRowContext(ctx, `SELECT summary FROM runs WHERE summary LIKE '%"elapsed":"1s"%'`).Scan(&s); err != nil || json.Unmarshal([]byte(s), &got) != nil {
		t.Fatalf("scrubbed report %q: %v", s, err)
	}
	if step, _ := got["integrate"].(map[string]any); step == nil || step["integrated"] != float64(1) || got["trigger"] != "cli" {
		t.Errorf("scrubbed report lost more than its summary: %s", s)
	}
}

package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// TestPruneThousandsOfToolOutputs is the done-when: a store made
// mostly of tool output; the report counts what apply removes, vacuum
// shrinks the file, provenance resolves and search answers do not move.
func TestPruneThousandsOfToolOutputs(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	statements := []string{
		"I prefer dark mode in every editor and terminal I use.",
		"My colleague Robin at Acme is leading the Atlas migration to Postgres this quarter.",
		"The staging database lives on the host named kestrel.",
	}
	for s := 0; s < 3; s++ {
		session := fmt.Sprintf("s%d", s)
		say(t, p, session, statements[s])
		for b := 0; b < 4; b++ {
			toolOutput(t, p, session, 250, 1500)
		}
		say(t, p, session, fmt.Sprintf("Session %d closed with the build green on the first try.", s))
	}
	consolidate(t, p)
	queries := []string{"dark mode", "Robin Atlas", "kestrel staging", "build green"}
	before := answers(t, p, queries...)
	if len(before[0].Results) == 0 || len(before[2].Results) == 0 {
		t.Fatalf("fixture store has no facts to search: %+v", before)
	}

	report, err := p.Prune(ctx, PruneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if report.Events < 2000 {
		t.Fatalf("only %d reclaimable of 3006 events", report.Events)
	}
	applied, err := p.Prune(ctx, PruneOptions{Apply: true, Vacuum: true})
	if err != nil {
		t.Fatal(err)
	}
	if applied.Events != report.Events || applied.Bytes != report.Bytes || !reflect.DeepEqual(applied.Ranges, report.Ranges) {
		t.Fatalf("report said %d events (%d bytes), apply removed %d (%d bytes)", report.Events, report.Bytes, applied.Events, applied.Bytes)
	}
	if applied.FileBefore == nil || applied.FileAfter == nil || *applied.FileAfter >= *applied.FileBefore {
		t.Fatalf("vacuum did not shrink the file: %v -> %v", applied.FileBefore, applied.FileAfter)
	}
	if got := FileBytes(p.db.Path); got != *applied.FileAfter {
		t.Fatalf("reported size after %d, file is %d", *applied.FileAfter, got)
	}
	t.Logf("pruned %d events (%d content bytes); file %d -> %d bytes", applied.Events, applied.Bytes, *applied.FileBefore, *applied.FileAfter)
	provenanceResolves(t, p)
	if after := answers(t, p, queries...); !reflect.DeepEqual(before, after) {
		t.Fatalf("search answers changed:\nbefore %+v\nafter  %+v", before, after)
	}
}

func TestDiskBudgetPrunesThenRefuses(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	p.Config.Extraction.WorkingMemorySize = 2
	say(t, p, "a", "I prefer dark mode in every editor and terminal I use.")
	consolidate(t, p)
	base, err := p.db.UsedBytes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	budget := base + 96<<10
	p.Config.Retention.DiskBudget = config.NewBytes(fmt.Sprint(budget))
	facts := storetest.Count(t, p.db, `SELECT count(*) FROM facts`)

	// Writes continue by pruning: each batch is examined by extraction,
	// so the budget check can reclaim it later.
	for i := 0; i < 40; i++ {
		toolOutput(t, p, "a", 2, 4000)
		say(t, p, "a", fmt.Sprintf("Could you run step %d again?", i))
		consolidate(t, p)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM mutation_log WHERE op = 'prune' AND actor = 'retention'`); n == 0 {
		t.Fatal("320 KB written under a 96 KB budget without a retention prune")
	}
	if used, _ := p.db.UsedBytes(ctx); used > budget+64<<10 {
		t.Fatalf("store uses %d bytes against a budget of %d", used, budget)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM facts`); n != facts {
		t.Fatalf("facts %d -> %d under the budget", facts, n)
	}
	provenanceResolves(t, p)

	// Nothing reclaimable: session b's output arrives after its question and
	// is not extracted yet. (Session a's conversation text is never
	// reclaimable, so the budget makes room for some of b's output first.)
	say(t, p, "b", "Could you check the deploy logs?")
	used, err := p.db.UsedBytes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	budget = used + 32<<10
	p.Config.Retention.DiskBudget = config.NewBytes(fmt.Sprint(budget))
	var logged bytes.Buffer
	p.log = slog.New(slog.NewTextHandler(&logged, nil))
	var refused error
	for i := 0; i < 100 && refused == nil; i++ {
		_, refused = p.Record(ctx, []store.Event{{SessionID: "b", Source: "record", Role: "tool", EventType: "tool_result",
			ContentType: "text", Content: strings.Repeat("x", 4000)}})
	}
	if !errors.Is(refused, store.ErrDiskBudget) {
		t.Fatalf("400 KB of unexamined events under a 32 KB margin: err = %v", refused)
	}
	for _, want := range []string{
		"disk budget reached: the store holds ",
		" against retention.disk_budget " + fmt.Sprint(budget) + " and no raw event is reclaimable (each is conversation text, unexamined, cited by a fact or in working memory); new events are refused — run recollect consolidate so extraction examines them, forget facts you no longer need, or raise retention.disk_budget in config.json",
	} {
		if !strings.Contains(refused.Error(), want) {
			t.Fatalf("refusal %q lacks %q", refused, want)
		}
	}
	if !strings.Contains(logged.String(), `level=ERROR msg="disk budget: new events refused"`) {
		t.Fatalf("refusal not in the log: %s", logged.String())
	}
	r, ok, err := p.LastRefusal(ctx)
	if err != nil || !ok || r.Message != refused.Error() || r.Count != 1 {
		t.Fatalf("refusal not recorded for stats: %+v %v %v", r, ok, err)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM facts`); n != facts {
		t.Fatalf("facts %d -> %d after refusal", facts, n)
	}
	// Extraction makes b's events examined and so reclaimable: writes resume.
	consolidate(t, p)
	if _, err := p.Record(ctx, []store.Event{{SessionID: "b", Source: "record", Role: "tool", EventType: "tool_result",
		ContentType: "text", Content: "resumed"}}); err != nil {
		t.Fatalf("write after consolidate still refused: %v", err)
	}
}

// TestDiskBudgetGuardsTranscriptCopy: the copy step asks for room too, and
// a refused copy loses nothing: the transcript's lines are copied once the
// budget allows.
func TestDiskBudgetGuardsTranscriptCopy(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	p := openCopyTest(t, home)
	dir := filepath.Join(home, "projects", sources.ClaudeFolder("/work/app"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var lines []byte
	for i := 0; i < 20; i++ {
		rec, _ := json.Marshal(map[string]any{"type": "user", "sessionId": "cc-1", "cwd": "/work/app", "timestamp": "2026-03-01T10:00:00.000Z",
			"uuid": fmt.Sprintf("u-%d", i), "message": map[string]any{"role": "user", "content": fmt.Sprintf("Line %d of the transcript says the cache is warm.", i)}})
		lines = append(append(lines, rec...), '\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "cc-1.jsonl"), lines, 0o600); err != nil {
		t.Fatal(err)
	}
	base, err := p.db.UsedBytes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.Config.Retention.DiskBudget = config.NewBytes(fmt.Sprint(base + 32<<10))
	var refused error
	for i := 0; i < 100 && refused == nil; i++ {
		_, refused = p.Record(ctx, []store.Event{{SessionID: "r", Source: "record", Role: "tool", EventType: "tool_result", ContentType: "text", Content: strings.Repeat("y", 4000)}})
	}
	if !errors.Is(refused, store.ErrDiskBudget) {
		t.Fatalf("fill: %v", refused)
	}
	if _, err := p.Copy(ctx); !errors.Is(err, store.ErrDiskBudget) {
		t.Fatalf("copy at the budget with nothing reclaimable: err = %v", err)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM session_events WHERE source = 'claude-code'`); n != 0 {
		t.Fatalf("refused copy stored %d events", n)
	}
	p.Config.Retention.DiskBudget = config.Bytes{}
	rep, err := p.Copy(ctx)
	if err != nil || rep.Events != 20 {
		t.Fatalf("copy after raising the budget: %+v, %v", rep, err)
	}
}

// TestPrunedLinesStayPrunedWhenTheTranscriptIsRewritten: a transcript
// read again from the start after prune reclaimed its old lines copies
// only what is new; the pruned lines count as duplicates, not events.
func TestPrunedLinesStayPrunedWhenTheTranscriptIsRewritten(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	p := openCopyTest(t, home)
	p.Config.Extraction.WorkingMemorySize = 2
	dir := filepath.Join(home, "projects", sources.ClaudeFolder("/work/app"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Tool calls: prune takes them once examined (conversation text it
	// never takes).
	line := func(i int, text string) []byte {
		rec, _ := json.Marshal(map[string]any{"type": "assistant", "sessionId": "cc-1", "cwd": "/work/app", "timestamp": "2026-03-01T10:00:00.000Z",
			"uuid": fmt.Sprintf("u-%d", i), "message": map[string]any{"role": "assistant", "content": []map[string]any{
				{"type": "tool_use", "id": fmt.Sprintf("t-%d", i), "name": "Bash", "input": map[string]any{"command": text}}}}})
		return append(rec, '\n')
	}
	var lines [][]byte
	for i := 0; i < 20; i++ {
		lines = append(lines, line(i, fmt.Sprintf("make test-batch-%d", i)))
	}
	path := filepath.Join(dir, "cc-1.jsonl")
	write := func(ls [][]byte) {
		if err := os.WriteFile(path, bytes.Join(ls, nil), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(lines)
	if rep, err := p.Copy(ctx); err != nil || rep.Events != 20 {
		t.Fatalf("first copy: %+v, %v", rep, err)
	}
	consolidate(t, p)
	pruned, err := p.Prune(ctx, PruneOptions{Apply: true})
	if err != nil || pruned.Events != 18 {
		t.Fatalf("prune: %d events, %v; want the 18 outside working memory", pruned.Events, err)
	}
	// The agent rewrites the file: a changed first line (so it is read
	// again from the start) and one new line at the end.
	rewritten := append([][]byte{line(0, "make test-batch-zero")}, lines[1:]...)
	write(append(rewritten, line(20, "make test-batch-last")))
	rep, err := p.Copy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := rep.Detail; d == nil || d.Reread != 1 || d.Events != 2 || d.Duplicates != 19 {
		t.Fatalf("re-read after prune: %+v; want reread 1, events 2 (the changed and the new line), duplicates 19", d)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM session_events WHERE source = 'claude-code'`); n != 4 {
		t.Fatalf("%d events stored, want 4: the 2 kept and the 2 new", n)
	}
}

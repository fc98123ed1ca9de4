package pipeline

import (
	"context"
	"reflect"
	"testing"

	"github.com/recollect/recollect/store/storetest"
)

func TestPruneKeepsWhatKnowledgeNeeds(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	p.Config.Extraction.WorkingMemorySize = 2

	cited := say(t, p, "a", "I prefer dark mode in every editor and terminal I use.")
	asked := say(t, p, "a", "Why does the nightly export skip the archive bucket?")
	tools := toolOutput(t, p, "a", 5, 100)
	recent := say(t, p, "a", "Run the test suite again please.")
	consolidate(t, p)
	unexamined := toolOutput(t, p, "b", 3, 100) // session b is never extracted

	rep, err := p.Prune(ctx, PruneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Working memory of session a is its last two events: the last tool
	// output and the recent message.
	want := tools[:4]
	if rep.Events != len(want) || rep.Applied {
		t.Fatalf("report = %+v, want %d reclaimable, not applied", rep, len(want))
	}
	if !reflect.DeepEqual(rep.Takes, map[string]int{"tool_result": len(want)}) {
		t.Fatalf("takes = %v, want %d tool results", rep.Takes, len(want))
	}
	if got := rep.Ranges; !reflect.DeepEqual(got, [][2]int64{{want[0], want[3]}}) {
		t.Fatalf("ranges = %v, want one range %d-%d", got, want[0], want[3])
	}
	// The messages are conversation text: kept whether or not a fact cites
	// them (the question is the only record of what was asked).
	if rep.Kept != (KeptCounts{Conversation: len(cited) + len(asked) + len(recent), Unexamined: len(unexamined), WorkingMemory: 1}) {
		t.Fatalf("kept = %+v", rep.Kept)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM session_events`); n != 1+1+5+1+3 {
		t.Fatalf("a report-only prune deleted events: %d left", n)
	}

	before := answers(t, p, "dark mode", "editor terminal", "suite")
	facts := storetest.Count(t, p.db, `SELECT count(*) FROM facts`)
	applied, err := p.Prune(ctx, PruneOptions{Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	if applied.Events != rep.Events || !applied.Applied {
		t.Fatalf("applied %d, reported %d", applied.Events, rep.Events)
	}
	for _, seq := range want {
		if n := storetest.Count(t, p.db, `SELECT count(*) FROM session_events WHERE seq = ?`, seq); n != 0 {
			t.Errorf("event %d survived prune", seq)
		}
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM events_fts WHERE events_fts MATCH 'aaaa*' AND rowid = ?`, want[0]); n != 0 {
		t.Errorf("pruned event %d still in the event index", want[0])
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM events_fts WHERE events_fts MATCH 'aaaa*'`); n != 1 {
		t.Errorf("event index holds %d rows for session b's kept output, want 1", n)
	}
	if after := answers(t, p, "dark mode", "editor terminal", "suite"); !reflect.DeepEqual(before, after) {
		t.Fatalf("search answers changed:\nbefore %+v\nafter  %+v", before, after)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM session_events WHERE seq = ?`, asked[0]); n != 1 {
		t.Errorf("prune deleted the question no fact covers: the only record of it")
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM facts`); n != facts {
		t.Fatalf("facts %d -> %d", facts, n)
	}
	provenanceResolves(t, p)

	var detail string
	if err := p.db.QueryRowContext(ctx, `SELECT detail FROM mutation_log WHERE op = 'prune'`).Scan(&detail); err != nil {
		t.Fatalf("no prune entry in the mutation log: %v", err)
	}
	d, err := decodePruneDetail(detail)
	if err != nil {
		t.Fatal(err)
	}
	if d.Events != len(want) || !reflect.DeepEqual(d.Ranges, rep.Ranges) {
		t.Fatalf("mutation log detail = %+v", d)
	}
	again, err := p.Prune(ctx, PruneOptions{Apply: true})
	if err != nil || again.Events != 0 {
		t.Fatalf("second prune = %+v, %v; want nothing left", again, err)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM mutation_log WHERE op = 'prune'`); n != 1 {
		t.Fatalf("an empty prune logged a mutation: %d entries", n)
	}
}

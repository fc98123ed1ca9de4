package scheduler_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/pipeline/stats"
	"github.com/recollect/recollect/scheduler"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// recordStatements stores n user messages the heuristic extracts facts from.
func recordStatements(tb testing.TB, p *pipeline.Pipeline, session string, n int) {
	tb.Helper()
	evs := make([]store.Event, n)
	for i := range evs {
		evs[i] = store.Event{SessionID: session, Source: "record", Role: "user", EventType: "message", ContentType: "text",
			Content: fmt.Sprintf("My colleague Robin%d at Acme is leading the Atlas%d migration to Postgres this quarter.", i, i)}
	}
	if _, err := p.Record(context.Background(), evs); err != nil {
		tb.Fatal(err)
	}
}

// TestBacklogDrains: with the heuristic (no spend) a backlog larger than
// the cap is worked through in capped batches until nothing waits, each
// batch extracted and integrated, without any notification.
func TestBacklogDrains(t *testing.T) {
	p := openPipeline(t)
	p.Config.Scheduler.ExtractCap = 7
	recordStatements(t, p, "s1", 25)
	recordStatements(t, p, "s2", 15)
	r := startScheduler(t, p, scheduler.Options{})
	idle := func() bool {
		st := r.s.Status()
		return st.Runs["daemon-start"] == 1 && st.Runs[string(scheduler.MomentBacklog)] > 0 && !st.Running && !st.Pending
	}
	storetest.Eventually(t, "the backlog drained", func() bool {
		if !idle() {
			return false
		}
		st, err := stats.Read(context.Background(), p)
		return err == nil && st.Unextracted == 0 && st.Pending == 0
	})
	if err := r.stop(t); err != nil {
		t.Fatal(err)
	}
	st, err := stats.Read(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Facts.Active == 0 || st.Backlog.Policy != "drain" {
		t.Fatalf("after the drain: %d active facts, policy %q", st.Facts.Active, st.Backlog.Policy)
	}
	var examined []int
	rows, err := p.Store().Query(`SELECT json_extract(summary, '$.extract.events_examined'), json_extract(summary, '$.integrate') IS NOT NULL FROM runs WHERE trigger IN ('daemon-start', 'backlog') ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var n int
		var integrated bool
		if err := rows.Scan(&n, &integrated); err != nil {
			t.Fatal(err)
		}
		if !integrated {
			t.Errorf("a batch did not integrate")
		}
		examined = append(examined, n)
	}
	// 40 events: the start run takes the cap (7); the backlog batches take
	// the rest, sized by how long each took, never beyond 16 times the cap.
	total := 0
	for i, n := range examined {
		total += n
		if (i == 0 && n != 7) || n > 7*scheduler.DrainMaxFactor || n == 0 {
			t.Fatalf("events examined per run = %v: the start run takes 7, each batch 1 to %d", examined, 7*scheduler.DrainMaxFactor)
		}
	}
	if total != 40 || len(examined) < 2 {
		t.Fatalf("events examined per run = %v, want 40 over the start run and backlog batches", examined)
	}
}

// TestDrainBatchSize: a batch well under the target doubles the next, one
// well over halves it, and the size stays between the cap and 16 times it.
func TestDrainBatchSize(t *testing.T) {
	cases := []struct {
		limit int
		took  time.Duration
		want  int
	}{
		{50, 10 * time.Millisecond, 100},
		{500, 10 * time.Millisecond, 800},
		{800, 10 * time.Millisecond, 800},
		{100, 600 * time.Millisecond, 200},
		{100, 1500 * time.Millisecond, 100},
		{400, 3 * time.Second, 200},
		{60, 3 * time.Second, 50},
		{50, 3 * time.Second, 50},
	}
	for _, c := range cases {
		if got := scheduler.NextDrainLimit(c.limit, 50, c.took); got != c.want {
			t.Errorf("next after %d events in %s = %d, want %d", c.limit, c.took, got, c.want)
		}
	}
}

// TestGatedRunIntegrates: what a due threshold run extracts is integrated
// in the same run, so it is searchable without waiting for another moment.
func TestGatedRunIntegrates(t *testing.T) {
	p := openPipeline(t)
	p.Config.Scheduler.Backlog = "gated"
	p.Config.Scheduler.ThresholdEvents = 3
	r := startScheduler(t, p, scheduler.Options{})
	storetest.Eventually(t, "start run", func() bool { return r.s.Status().Runs["daemon-start"] == 1 && !r.s.Status().Running })
	recordStatements(t, p, "s-gated", 3)
	if resp := r.s.Notify(notice.Request{Op: notice.OpNotify, Moment: notice.MomentThreshold}); !resp.OK {
		t.Fatalf("notify: %+v", resp)
	}
	storetest.Eventually(t, "a threshold run", func() bool { st := r.s.Status(); return st.Runs["threshold"] == 1 && !st.Running })
	st, err := stats.Read(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Unextracted != 0 || st.Pending != 0 || st.Facts.Active == 0 {
		t.Fatalf("after the threshold run: %d unextracted, %d pending, %d active", st.Unextracted, st.Pending, st.Facts.Active)
	}
	if !strings.Contains(st.Backlog.Why, "scheduler.backlog is gated") {
		t.Fatalf("backlog why = %q", st.Backlog.Why)
	}
}

package stats

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/pipeline"
)

// TestBacklogETA: stats projects the backlog's end from the policy — the
// gate's interval for a gated one, the measured rate for a draining one —
// and says unknown, with the reason, before any run has been timed.
func TestBacklogETA(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	lines := make([]string, 120)
	for i := range lines {
		lines[i] = fmt.Sprintf("We decided to keep build cache number %d under /var/cache", i)
	}
	say(t, p, "s1", lines...)

	st, err := Read(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Backlog.Policy != "drain" || st.Backlog.ETASeconds != nil || !strings.Contains(st.Unknown["backlog.eta"], "no finished run has examined events") {
		t.Fatalf("before any run: backlog %+v, unknown %q", st.Backlog, st.Unknown["backlog.eta"])
	}

	p.Config.Scheduler.Backlog = "gated"
	st, err = Read(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	// 120 events, 50 a run, one run per 2m: three runs, six minutes.
	if st.Backlog.ETASeconds == nil || *st.Backlog.ETASeconds != 360 || !strings.Contains(st.Backlog.Basis, "at least 3 gated runs of at most 50 events, one per 2m0s") {
		t.Fatalf("gated: backlog %+v", st.Backlog)
	}

	p.Config.Scheduler.Backlog = "auto"
	if _, err := p.Run(ctx, pipeline.RunOptions{Steps: pipeline.Steps{Extract: true, Integrate: true}, Extract: extract.Options{Limit: 50}}); err != nil {
		t.Fatal(err)
	}
	st, err = Read(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Unextracted != 70 || st.Backlog.ETASeconds == nil || *st.Backlog.ETASeconds <= 0 || !strings.Contains(st.Backlog.Basis, "per event (the last run that examined events), in batches of 50 to 800 events 50ms apart") || st.Unknown["backlog.eta"] != "" {
		t.Fatalf("after a timed run: unextracted %d, backlog %+v, unknown %v", st.Unextracted, st.Backlog, st.Unknown)
	}
}

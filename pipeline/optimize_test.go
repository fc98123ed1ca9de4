package pipeline

import (
	"context"
	"testing"

	"github.com/recollect/recollect/store/storetest"
)

// TestRunOptimizesFirst: a store analysed while empty (a user's ANALYZE)
// holds statistics that made copying five times slower once it grew; the
// first run of a pipeline drops them before its steps, and later runs
// within OptimizeEvery do not optimize again.
func TestRunOptimizesFirst(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	stale := `SELECT count(*) FROM sqlite_stat1 WHERE tbl LIKE 'events_fts%'`
	if _, err := p.db.ExecContext(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	if storetest.Count(t, p.db, stale) == 0 {
		t.Fatal("setup: ANALYZE of the empty store wrote no statistics of the event index")
	}
	run := func() {
		t.Helper()
		if _, err := p.Run(ctx, RunOptions{Steps: Steps{Integrate: true}}); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if n := storetest.Count(t, p.db, stale); n != 0 {
		t.Fatalf("after the first run %d statistics rows of the event index are left", n)
	}
	if _, err := p.db.ExecContext(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	run()
	if storetest.Count(t, p.db, stale) == 0 {
		t.Fatalf("the second run within %s optimized again", OptimizeEvery)
	}
}

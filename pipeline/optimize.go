package pipeline

import (
	"context"
	"time"
)

// OptimizeEvery is how often a pipeline's runs bring the store's planner
// statistics up to date (store.DB.Optimize): at the start of its first run
// and then at most once an hour, as SQLite recommends PRAGMA optimize for
// a long-lived connection. Each run of `consolidate` is a process's first;
// the daemon's start run is its first.
const OptimizeEvery = time.Hour

// optimize runs the store's Optimize when the pipeline has not in the last
// OptimizeEvery. It runs before the steps, so a store analysed while small
// (by a user's ANALYZE, or the last optimize) is copied into with
// statistics that fit. A failure is logged, not the run's: the statistics
// only make the run slower.
func (p *Pipeline) optimize(ctx context.Context) {
	p.optimizeMu.Lock()
	defer p.optimizeMu.Unlock()
	if !p.optimized.IsZero() && time.Since(p.optimized) < OptimizeEvery {
		return
	}
	p.optimized = time.Now()
	t0 := time.Now()
	if err := p.db.Optimize(ctx); err != nil {
		p.log.Warn("could not bring the store's planner statistics up to date; statements may run on stale plans until the next run", "err", err)
		return
	}
	p.log.Debug("planner statistics up to date", "took", time.Since(t0).Round(time.Millisecond))
}

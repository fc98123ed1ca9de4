package stats

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/recollect/recollect/pipeline"
)

// BacklogStats says how the backlog is worked through and how long it
// will take at that policy.
type BacklogStats struct {
	pipeline.BacklogPolicy
	Policy string `json:"policy"`
	// ETASeconds is the projected time until nothing waits; nil when it
	// cannot be projected (Stats.Unknown["backlog.eta"] says why).
	ETASeconds *float64 `json:"eta_seconds,omitempty"`
	// Basis says what the projection rests on.
	Basis string `json:"basis,omitempty"`
}

// backlogStats projects the time until the unextracted events and the
// pending facts are worked through.
func backlogStats(ctx context.Context, p *pipeline.Pipeline, st *Stats) error {
	pol := p.BacklogPolicy()
	st.Backlog = BacklogStats{BacklogPolicy: pol, Policy: pol.Name()}
	if st.Unextracted == 0 && st.Pending == 0 {
		zero := 0.0
		st.Backlog.ETASeconds, st.Backlog.Basis = &zero, "nothing waits"
		return nil
	}
	batches := int(math.Ceil(float64(st.Unextracted) / float64(max(pol.EventsPerBatch, 1))))
	if !pol.Drain {
		ti := p.Config.Scheduler.ThresholdInterval
		if err := ti.Err(); err != nil {
			return fmt.Errorf("scheduler.threshold_interval: %w", err)
		}
		interval := ti.Duration()
		eta := float64(batches) * interval.Seconds()
		st.Backlog.ETASeconds = &eta
		st.Backlog.Basis = fmt.Sprintf("at least %d gated runs of at most %d events, one per %s, and only while new transcript lines arrive; recollect consolidate --all works through it now", batches, pol.EventsPerBatch, interval)
		return nil
	}
	perEvent, runs, err := extractRate(ctx, p)
	if err != nil {
		return err
	}
	if runs == 0 {
		st.Unknown["backlog.eta"] = "no finished run has examined events yet, so there is no rate to project from"
		return nil
	}
	eta := (time.Duration(st.Unextracted)*perEvent + time.Duration(batches)*pipeline.DrainPause).Seconds()
	st.Backlog.ETASeconds = &eta
	last := "the last run"
	if runs > 1 {
		last = fmt.Sprintf("the last %d runs", runs)
	}
	st.Backlog.Basis = fmt.Sprintf("%s per event (%s that examined events), in batches of %d to %d events %s apart", perEvent.Round(time.Microsecond), last, pol.EventsPerBatch, pol.MaxEventsPerBatch, pipeline.DrainPause)
	return nil
}

// extractRate is the elapsed time per examined event over the last runs
// that examined any, and how many runs that is.
func extractRate(ctx context.Context, p *pipeline.Pipeline) (time.Duration, int, error) {
	rows, err := p.Store().QueryContext(ctx, `SELECT summary FROM runs WHERE finished_at IS NOT NULL AND summary IS NOT NULL ORDER BY id DESC LIMIT 50`)
	if err != nil {
		return 0, 0, fmt.Errorf("read runs: %w", err)
	}
	defer rows.Close()
	var total time.Duration
	events, runs := 0, 0
	for rows.Next() && runs < 20 {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return 0, 0, fmt.Errorf("read runs: %w", err)
		}
		var sum struct {
			Elapsed string `json:"elapsed"`
			Extract *struct {
				EventsExamined int `json:"events_examined"`
			} `json:"extract"`
		}
		if json.Unmarshal([]byte(raw), &sum) != nil || sum.Extract == nil || sum.Extract.EventsExamined == 0 {
			continue
		}
		d, err := time.ParseDuration(sum.Elapsed)
		if err != nil {
			continue
		}
		total += d
		events += sum.Extract.EventsExamined
		runs++
	}
	if err := rows.Err(); err != nil {
		return 0, 0, fmt.Errorf("read runs: %w", err)
	}
	if events == 0 {
		return 0, 0, nil
	}
	return total / time.Duration(events), runs, nil
}

package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/store/config"
)

// DrainPause is the rest between two drain batches: long enough for a
// copy or a search to take the write lock, short enough that a year of
// history drains in minutes.
const DrainPause = 50 * time.Millisecond

// DrainMaxFactor bounds a drain batch at this many times
// scheduler.extract_cap events (the scheduler sizes batches by the time
// they take, from the cap up to this).
const DrainMaxFactor = 16

// BacklogPolicy is how the daemon works through unexamined events.
type BacklogPolicy struct {
	// Drain means batches of EventsPerBatch run back to back, a short
	// pause apart, until nothing waits; otherwise the cap, the budgets and
	// the threshold gate bound each run.
	Drain          bool `json:"drain"`
	EventsPerBatch int  `json:"events_per_batch"`
	// MaxEventsPerBatch is the largest a drain batch grows to; equal to
	// EventsPerBatch when the policy gates.
	MaxEventsPerBatch int    `json:"max_events_per_batch"`
	Why               string `json:"why"`
}

// Name is "drain" or "gated".
func (b BacklogPolicy) Name() string {
	if b.Drain {
		return "drain"
	}
	return "gated"
}

// BacklogPolicy decides, from scheduler.backlog and the routes of the
// model stages, whether a backlog drains continuously: with "auto" it does
// when no route is charged per call (the heuristic, ollama, or an http host
// on this machine, for every stage, its on_fail and the embedder), since
// the cap and the gate exist to bound spend.
func (p *Pipeline) BacklogPolicy() BacklogPolicy {
	batch := p.Config.Scheduler.ExtractCap
	pol := BacklogPolicy{EventsPerBatch: batch, MaxEventsPerBatch: batch}
	drain := func(why string) BacklogPolicy {
		pol.Drain, pol.MaxEventsPerBatch, pol.Why = true, batch*DrainMaxFactor, why
		return pol
	}
	switch p.Config.Scheduler.Backlog {
	case config.BacklogGated:
		pol.Why = "scheduler.backlog is gated"
		return pol
	case config.BacklogDrain:
		return drain("scheduler.backlog is drain")
	}
	if paid := p.router.Spending(); paid != "" {
		pol.Why = paid + ", so the cap and the threshold gate bound spend"
		return pol
	}
	if e := p.Config.Embedding; e.Provider == "http" && e.BaseURL != "" && !model.LoopbackURL(e.BaseURL) {
		pol.Why = fmt.Sprintf("embeddings come from %s (not this machine), so the cap and the threshold gate bound spend", e.BaseURL)
		return pol
	}
	return drain("every model route runs on this machine, so a backlog costs time, not money")
}

// BacklogStats says how the backlog is worked through and how long it
// will take at that policy.
type BacklogStats struct {
	BacklogPolicy
	Policy string `json:"policy"`
	// ETASeconds is the projected time until nothing waits; nil when it
	// cannot be projected (Stats.Unknown["backlog.eta"] says why).
	ETASeconds *float64 `json:"eta_seconds,omitempty"`
	// Basis says what the projection rests on.
	Basis string `json:"basis,omitempty"`
}

// backlogStats projects the time until the unextracted events and the
// pending facts are worked through.
func (p *Pipeline) backlogStats(ctx context.Context, st *Stats) error {
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
	perEvent, runs, err := p.extractRate(ctx)
	if err != nil {
		return err
	}
	if runs == 0 {
		st.Unknown["backlog.eta"] = "no finished run has examined events yet, so there is no rate to project from"
		return nil
	}
	eta := (time.Duration(st.Unextracted)*perEvent + time.Duration(batches)*DrainPause).Seconds()
	st.Backlog.ETASeconds = &eta
	last := "the last run"
	if runs > 1 {
		last = fmt.Sprintf("the last %d runs", runs)
	}
	st.Backlog.Basis = fmt.Sprintf("%s per event (%s that examined events), in batches of %d to %d events %s apart", perEvent.Round(time.Microsecond), last, pol.EventsPerBatch, pol.MaxEventsPerBatch, DrainPause)
	return nil
}

// extractRate is the elapsed time per examined event over the last runs
// that examined any, and how many runs that is.
func (p *Pipeline) extractRate(ctx context.Context) (time.Duration, int, error) {
	rows, err := p.DB.QueryContext(ctx, `SELECT summary FROM runs WHERE finished_at IS NOT NULL AND summary IS NOT NULL ORDER BY id DESC LIMIT 50`)
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

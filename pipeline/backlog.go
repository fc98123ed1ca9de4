package pipeline

import (
	"fmt"
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

package scheduler

import (
	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/pipeline"
)

// Plan is what one moment runs.
type Plan struct {
	Copy, Extract, Integrate bool
	// Gated means the extract step runs only when due: enough unexamined
	// events and enough time since the last gated run.
	Gated bool
}

// Moments is the scheduler's table: what each moment runs. Extraction is
// always capped at scheduler.extract_cap events; thresholds are
// scheduler.threshold_events and scheduler.threshold_interval, and apply
// only while the backlog policy gates (pipeline.BacklogPolicy). What a
// gated run extracts it also integrates, so it is searchable at once.
var Moments = map[notice.Moment]Plan{
	notice.MomentStart:      {Copy: true, Extract: true, Integrate: true},
	notice.MomentCompaction: {Copy: true, Extract: true, Integrate: true},
	notice.MomentThreshold:  {Extract: true, Integrate: true, Gated: true},
	notice.MomentShutdown:   {Integrate: true},
}

// MomentBacklog names the runs of a draining backlog: one batch of at most
// scheduler.extract_cap events, extracted and integrated, after a pause.
const MomentBacklog notice.Moment = "backlog"

// drainPlan is what one backlog batch runs.
var drainPlan = Plan{Extract: true, Integrate: true}

// precedence orders moments when notifications coalesce into one run: the
// run is named after the strongest moment in it.
var precedence = []notice.Moment{notice.MomentStart, notice.MomentCompaction, notice.MomentThreshold, notice.MomentShutdown}

// merge is the plan of a run that serves every moment in ms: the union of
// their steps. A gated extract that joins an ungated one is no longer gated.
func merge(ms map[notice.Moment]bool) (Plan, notice.Moment) {
	var p Plan
	var name notice.Moment
	ungatedExtract := false
	for _, m := range precedence {
		if !ms[m] {
			continue
		}
		if name == "" {
			name = m
		}
		mp := Moments[m]
		p.Copy = p.Copy || mp.Copy
		p.Extract = p.Extract || mp.Extract
		p.Integrate = p.Integrate || mp.Integrate
		p.Gated = p.Gated || mp.Gated
		ungatedExtract = ungatedExtract || (mp.Extract && !mp.Gated)
	}
	if ungatedExtract {
		p.Gated = false
	}
	return p, name
}

// steps is the pipeline's form of the plan.
func (p Plan) steps() pipeline.Steps {
	return pipeline.Steps{Copy: p.Copy, Extract: p.Extract, Integrate: p.Integrate}
}

package pipeline

import (
	"context"

	"github.com/recollect/recollect/graph"
)

// BriefingInput measures what the briefing needs from the stages: the
// extract backlog, and the raw events prune could reclaim. A count that
// cannot be measured is unknown with the reason, never a zero.
func (p *Pipeline) BriefingInput(ctx context.Context) graph.BriefingInput {
	var in graph.BriefingInput
	var rep PruneReport
	if err := reclaimable(ctx, p.DB, p.workingMemory(), &rep); err != nil {
		in.Reclaimable = graph.Unknown(err.Error())
	} else {
		in.Reclaimable = graph.Known(rep.Events)
	}
	stage, err := p.ExtractStage()
	if err != nil {
		in.Backlog = graph.Unknown(err.Error())
		return in
	}
	n, err := stage.Remaining(ctx)
	if err != nil {
		in.Backlog = graph.Unknown(err.Error())
		return in
	}
	in.Backlog = graph.Known(n)
	return in
}

// Briefing renders the session-start briefing of this store.
func (p *Pipeline) Briefing(ctx context.Context) (string, error) {
	return graph.Briefing(ctx, p.DB, p.BriefingInput(ctx))
}

package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/vector"
)

// briefingInput measures what the briefing needs from the stages: the
// extract backlog, and the raw events prune could reclaim. A count that
// cannot be measured is unknown with the reason, never a zero.
func (p *Pipeline) briefingInput(ctx context.Context) graph.BriefingInput {
	var in graph.BriefingInput
	if rep, err := p.Reclaimable(ctx); err != nil {
		in.Reclaimable = graph.Unknown(err.Error())
	} else {
		in.Reclaimable = graph.Known(rep.Events)
	}
	stage, err := p.ExtractStage(ctx)
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
	return p.Reader.Briefing(ctx, p.briefingInput(ctx))
}

// queryVector embeds a search query with the configured embedder, so the
// semantic arm compares it with facts of the same space. Embeddings off:
// nil and no note. A failing embedder is not an error: search still
// answers from its other arms, and the note says why similarity is absent.
func (p *Pipeline) queryVector(ctx context.Context, text string) (vec []float32, sp vector.Space, note string) {
	if p.Config.Embedding.Provider == "" || strings.TrimSpace(text) == "" {
		return nil, vector.Space{}, ""
	}
	e, err := p.Embedder()
	if err != nil {
		return nil, vector.Space{}, "similarity arm skipped: " + err.Error()
	}
	vecs, sp, err := e.Embed(ctx, []string{text})
	if err != nil || len(vecs) != 1 {
		if err == nil {
			err = fmt.Errorf("the embedder returned %d vectors for one query", len(vecs))
		}
		return nil, vector.Space{}, "similarity arm skipped: embed the query: " + err.Error()
	}
	return vecs[0], sp, ""
}

// Search runs the reader's Search with the query embedded when embeddings are on.
func (p *Pipeline) Search(ctx context.Context, q graph.Query) (graph.Answer, error) {
	var note string
	if q.Vector == nil {
		q.Vector, q.Space, note = p.queryVector(ctx, q.Text)
	}
	ans, err := p.Reader.Search(ctx, q)
	if note != "" {
		ans.Notes = append(ans.Notes, note)
	}
	return ans, err
}

// Context runs the reader's Context with the topic embedded when embeddings are on.
func (p *Pipeline) Context(ctx context.Context, q graph.ContextQuery) (graph.ContextAnswer, error) {
	var note string
	if q.Vector == nil {
		q.Vector, q.Space, note = p.queryVector(ctx, q.Topic)
	}
	ans, err := p.Reader.Context(ctx, q)
	if note != "" {
		ans.Notes = append(ans.Notes, note)
	}
	return ans, err
}

package hookctx

import (
	"context"
	"sync"

	"github.com/recollect/recollect/graph"
)

// Briefings keeps the session-start context a long-lived reader (the
// daemon's) last rendered and gives it again while nothing has committed
// to the store since: the store's data version (store.DB.DataVersion) is
// read before each render and compared before each reuse, so a fact
// recorded, consolidated, superseded or forgotten by any process makes
// the next session start render afresh. A context that depends on more
// than the store — after a compaction (this session's facts, the
// consolidation's state), or under a retention window that moves with
// the clock — is always rendered, as is one on a store with no data
// version (PostgreSQL). The zero value is ready to use.
type Briefings struct {
	mu      sync.Mutex
	held    bool
	version int64
	budget  int
	text    string
	// reused counts the contexts given again, for tests.
	reused int
}

// SessionStart is SessionStart(ctx, r, in), given again from the last
// render when the store has not changed since.
func (b *Briefings) SessionStart(ctx context.Context, r *graph.Reader, in SessionInput) (string, error) {
	if in.Source == SourceCompact || !r.Floor().IsZero() {
		return SessionStart(ctx, r, in)
	}
	version, ok, err := r.Store().DataVersion()
	if err != nil || !ok {
		return SessionStart(ctx, r, in)
	}
	b.mu.Lock()
	if b.held && b.version == version && b.budget == in.Budget {
		b.reused++
		text := b.text
		b.mu.Unlock()
		return text, nil
	}
	b.mu.Unlock()
	// The version was read before the store: a commit during the render
	// changes it, and the next call renders again.
	text, err := SessionStart(ctx, r, in)
	if err != nil {
		return "", err
	}
	b.mu.Lock()
	b.held, b.version, b.budget, b.text = true, version, in.Budget, text
	b.mu.Unlock()
	return text, nil
}

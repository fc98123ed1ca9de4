package hookctx

import (
	"context"
	"strings"
	"sync"

	"github.com/recollect/recollect/graph"
)

// Briefings keeps the session-start context a long-lived reader (the
// daemon's) last rendered and gives it again while nothing it is made of
// has changed. A context is made of the active facts and the open
// conflicts (SessionStart): the store's knowledge version
// (store.DB.KnowledgeVersion), which every write of the facts moves and a
// transcript line copied does not, and the open conflicts' lines, read
// before each render and compared before each reuse, so a fact recorded,
// consolidated, superseded or forgotten, or a conflict raised or
// resolved, by any process, makes the next session start render afresh,
// while the copies of a live session's transcript do not. A context that
// depends on more than the store — after a compaction (this session's
// facts, the consolidation's state), or under a retention window that
// moves with the clock — is always rendered, as is one on a store with no
// knowledge version (PostgreSQL). The zero value is ready to use.
type Briefings struct {
	mu        sync.Mutex
	held      bool
	version   int64
	conflicts string
	budget    int
	text      string
	// reused counts the contexts given again, for tests.
	reused int
}

// SessionStart is SessionStart(ctx, r, in), given again from the last
// render when neither the facts nor the open conflicts have changed
// since.
func (b *Briefings) SessionStart(ctx context.Context, r *graph.Reader, in SessionInput) (string, error) {
	if in.Source == SourceCompact || !r.Floor().IsZero() {
		return SessionStart(ctx, r, in)
	}
	version, ok, err := r.Store().KnowledgeVersion()
	if err != nil || !ok {
		return SessionStart(ctx, r, in)
	}
	// The conflicts are read after the version: a fact written after it
	// changes the version the next call reads.
	lines, err := openConflicts(ctx, r.Store())
	if err != nil {
		return "", err
	}
	conflicts := strings.Join(lines, "")
	b.mu.Lock()
	if b.held && b.version == version && b.conflicts == conflicts && b.budget == in.Budget {
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
	b.held, b.version, b.conflicts, b.budget, b.text = true, version, conflicts, in.Budget, text
	b.mu.Unlock()
	return text, nil
}

package pipeline

import (
	"context"
	"errors"

	"github.com/recollect/recollect/hooks"
)

// WakeThreshold tells a daemon (or an MCP server's scheduler) running on
// this store that events arrived outside the transcripts, as the threshold
// hook does: it extracts when enough unexamined events have waited long
// enough. It reports whether a scheduler took the notice; none running is
// not an error (the next run picks the events up).
func (p *Pipeline) WakeThreshold(ctx context.Context) (bool, error) {
	_, err := hooks.Send(ctx, hooks.SocketPath(p.DB.Dir), hooks.Request{Op: hooks.OpNotify, Moment: hooks.MomentThreshold})
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, hooks.ErrNoDaemon):
		return false, nil
	}
	return false, err
}

package pipeline

import (
	"context"
	"errors"

	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
)

// WakeThreshold tells a daemon (or an MCP server's scheduler) running on
// this store that events arrived outside the transcripts, as the threshold
// hook does: it extracts when enough unexamined events have waited long
// enough. It reports whether a scheduler took the notice; none running is
// not an error (the next run picks the events up).
func (p *Pipeline) WakeThreshold(ctx context.Context) (bool, error) {
	_, err := control.Send(ctx, notice.SocketPath(p.Dir()), notice.Request{Op: notice.OpNotify, Moment: notice.MomentThreshold})
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, notice.ErrNoDaemon):
		return false, nil
	}
	return false, err
}

// Package control is the recollect binary's client of the control socket a
// running daemon (or an MCP server's scheduler) listens on: it sends a
// request and decodes the whole answer, status included (Send, WaitIdle,
// Response, Status). The protocol's names — the socket path, the
// operations, the moments and the request line — are hooks/notice's, which
// the hook binary shares; this package adds the decoding that needs
// encoding/json, which the hook's lean path leaves out.
package control

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/recollect/recollect/hooks/notice"
)

// SendTimeout bounds one request when the caller's ctx has no earlier
// deadline: dial, write, and the one-line answer.
const SendTimeout = 700 * time.Millisecond

// ReadTimeout bounds a search request, which waits for the search itself.
const ReadTimeout = 30 * time.Second

// Send writes req as one JSON line to the control socket at socketPath and
// decodes the whole one-line answer, status included. It goes through
// notice.Exchange, the socket path every client request takes. A missing
// or stale socket returns an error wrapping notice.ErrNoDaemon; a daemon that
// answers with ok=false returns the response and an error carrying its
// message.
func Send(ctx context.Context, socketPath string, req notice.Request) (Response, error) {
	deadline := time.Now().Add(SendTimeout)
	if req.Op == notice.OpSearch {
		deadline = time.Now().Add(ReadTimeout)
	}
	if req.Op == notice.OpWait && req.WaitMS > 0 {
		deadline = deadline.Add(time.Duration(req.WaitMS) * time.Millisecond)
	}
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := ctx.Err(); err != nil {
		return Response{}, fmt.Errorf("send %s request: %w", req.Op, err)
	}
	line, err := json.Marshal(req)
	if err != nil {
		return Response{}, fmt.Errorf("encode request: %w", err)
	}
	answer, err := notice.Exchange(socketPath, req.Op, append(line, '\n'), deadline)
	if err != nil {
		return Response{}, err
	}
	var resp Response
	if err := json.Unmarshal(answer, &resp); err != nil {
		return Response{}, fmt.Errorf("decode answer to %s: %w", req.Op, err)
	}
	if !resp.OK {
		return resp, fmt.Errorf("daemon refused %s: %s", req.Op, resp.Message)
	}
	return resp, nil
}

// WaitIdle asks the daemon to answer once no consolidation run is in flight
// or queued, waiting at most limit; the answer's Status says whether a run
// was still going when the wait ran out (Running or Pending). It returns
// within limit plus SendTimeout, or ctx's deadline if earlier.
func WaitIdle(ctx context.Context, socketPath string, limit time.Duration) (Response, error) {
	return Send(ctx, socketPath, notice.Request{Op: notice.OpWait, WaitMS: max(0, int(limit/time.Millisecond))})
}

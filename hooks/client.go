package hooks

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

// ErrNoDaemon means nothing listens on the control socket: no daemon (or
// in-process scheduler) runs for that data directory.
var ErrNoDaemon = errors.New("no recollect daemon is running")

// SendTimeout bounds one request when the caller's ctx has no earlier
// deadline: dial, write, and the one-line answer.
const SendTimeout = 700 * time.Millisecond

// maxLine bounds one request or response line.
const maxLine = 64 << 10

// Send is the one path every client request takes: dial socketPath, write
// req as one JSON line, read the one-line answer. A missing or stale socket
// returns an error wrapping ErrNoDaemon; a daemon that answers with ok=false
// returns the response and an error carrying its message.
func Send(ctx context.Context, socketPath string, req Request) (Response, error) {
	ctx, cancel := context.WithTimeout(ctx, SendTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socketPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return Response{}, fmt.Errorf("%w (%s: %w)", ErrNoDaemon, socketPath, err)
		}
		return Response{}, fmt.Errorf("dial %s: %w", socketPath, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		if err := conn.SetDeadline(dl); err != nil {
			return Response{}, fmt.Errorf("set deadline: %w", err)
		}
	}
	line, err := json.Marshal(req)
	if err != nil {
		return Response{}, fmt.Errorf("encode request: %w", err)
	}
	if _, err := conn.Write(append(line, '\n')); err != nil {
		return Response{}, fmt.Errorf("send %s request: %w", req.Op, err)
	}
	r := bufio.NewReader(&limitedConn{conn: conn, left: maxLine})
	answer, err := r.ReadBytes('\n')
	if err != nil {
		return Response{}, fmt.Errorf("read answer to %s: %w", req.Op, err)
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

// limitedConn stops reading after left bytes, so a misbehaving peer cannot
// make a client buffer without end.
type limitedConn struct {
	conn net.Conn
	left int
}

func (l *limitedConn) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, fmt.Errorf("answer longer than %d bytes", maxLine)
	}
	if len(p) > l.left {
		p = p[:l.left]
	}
	n, err := l.conn.Read(p)
	l.left -= n
	return n, err
}

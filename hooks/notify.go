package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// StdinTimeout bounds how long notify waits for a piped payload: Claude Code
// writes it at once and closes the pipe, so a pipe still open after this is
// not a hook's and notify goes on without it.
const StdinTimeout = 200 * time.Millisecond

// maxPayload bounds the payload notify reads; hook payloads are a few
// hundred bytes.
const maxPayload = 1 << 20

// ErrStdinTimeout means stdin was a pipe that stayed open without EOF.
var ErrStdinTimeout = errors.New("stdin stayed open")

// ParseMoment checks that s names a moment a client may send.
func ParseMoment(s string) (Moment, error) {
	for _, m := range NotifyMoments {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, len(NotifyMoments))
	for i, m := range NotifyMoments {
		names[i] = string(m)
	}
	return "", fmt.Errorf("unknown moment %q; use one of %s", s, strings.Join(names, ", "))
}

// ReadPiped reads a hook payload from r when r is a pipe or a file: never
// from a terminal, at most maxPayload bytes, and for at most timeout. A
// terminal yields nil and no error.
func ReadPiped(r io.Reader, timeout time.Duration) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	if f, ok := r.(*os.File); ok {
		fi, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("stat stdin: %w", err)
		}
		if fi.Mode()&os.ModeCharDevice != 0 {
			return nil, nil
		}
	}
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, maxPayload+1))
		done <- result{data, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case res := <-done:
		if res.err != nil {
			return nil, fmt.Errorf("read stdin: %w", res.err)
		}
		if len(res.data) > maxPayload {
			return nil, fmt.Errorf("read stdin: payload larger than %d KiB", maxPayload>>10)
		}
		return res.data, nil
	case <-timer.C:
		// The reading goroutine stays blocked; the process is about to exit.
		return nil, fmt.Errorf("read stdin: %w after %s without EOF", ErrStdinTimeout, timeout)
	}
}

// NotifyRequest builds the request for moment from the piped hook payload
// data (may be empty). A payload that cannot be parsed still yields a
// request, without session or transcript, and the parse error as a warning.
func NotifyRequest(moment Moment, data []byte) (Request, error) {
	req := Request{Op: OpNotify, Moment: moment}
	if len(data) == 0 {
		return req, nil
	}
	pl, err := ParsePayload(data)
	if err != nil {
		return req, fmt.Errorf("ignoring stdin: %w", err)
	}
	req.SessionID, req.TranscriptPath = pl.SessionID, pl.TranscriptPath
	return req, nil
}

// NoDaemonMessage is the line notify prints when nothing listens.
func NoDaemonMessage(dataDir string) string {
	return fmt.Sprintf("recollect: no daemon is running for %s; nothing was done now, the next `recollect daemon` start will catch up", dataDir)
}

// Notify reports moment to the daemon of dataDir, with the payload piped
// on stdin, and returns the daemon's answer. It reads stdin and waits for
// the answer within bounds, so the whole call stays well under a second.
// Warnings (an unreadable payload) are returned beside a nil error.
func Notify(ctx context.Context, dataDir string, moment Moment, stdin io.Reader) (resp Response, warnings []string, err error) {
	data, rerr := ReadPiped(stdin, StdinTimeout)
	if rerr != nil {
		warnings = append(warnings, "recollect: "+rerr.Error())
	}
	req, perr := NotifyRequest(moment, data)
	if perr != nil {
		warnings = append(warnings, "recollect: "+perr.Error())
	}
	resp, err = Send(ctx, SocketPath(dataDir), req)
	return resp, warnings, err
}

package notice

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"time"
)

// StdinTimeout bounds how long notify waits for a piped payload: Claude Code
// writes it at once and closes the pipe, so a pipe still open after this is
// not a hook's and notify goes on without it.
const StdinTimeout = 200 * time.Millisecond

// Budget bounds a whole notify call, so a hook never waits on it for more
// than a second whatever the daemon is doing.
const Budget = 900 * time.Millisecond

// maxPayload bounds the payload notify reads; hook payloads are a few
// hundred bytes.
const maxPayload = 1 << 20

// ErrStdinTimeout means stdin was a pipe that stayed open without EOF.
var ErrStdinTimeout = errors.New("stdin stayed open")

// ReadPiped reads a hook payload from r when r is a pipe or a file: never
// from a terminal, at most 1 MiB, and for at most timeout. A terminal
// yields nil and no error.
func ReadPiped(r io.Reader, timeout time.Duration) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	if f, ok := r.(*os.File); ok {
		fi, err := f.Stat()
		if err != nil {
			return nil, wrap("stat stdin", err)
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
			return nil, wrap("read stdin", res.err)
		}
		if len(res.data) > maxPayload {
			return nil, errors.New("read stdin: payload larger than " + strconv.Itoa(maxPayload>>10) + " KiB")
		}
		return res.data, nil
	case <-timer.C:
		// The reading goroutine stays blocked; the process is about to exit.
		return nil, &contextError{msg: "read stdin: " + ErrStdinTimeout.Error() + " after " + timeout.String() + " without EOF", cause: ErrStdinTimeout}
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
		return req, wrap("ignoring stdin", err)
	}
	req.SessionID, req.TranscriptPath = pl.SessionID, pl.TranscriptPath
	return req, nil
}

// Notify reports moment to the daemon of dataDir, with the payload piped
// on stdin, and returns the daemon's answer, within Budget or ctx's
// deadline if earlier. Warnings (an unreadable payload) are returned
// beside a nil error.
func Notify(ctx context.Context, dataDir string, moment Moment, stdin io.Reader) (ans Answer, warnings []string, err error) {
	deadline := time.Now().Add(Budget)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	data, rerr := ReadPiped(stdin, min(StdinTimeout, time.Until(deadline)))
	if rerr != nil {
		warnings = append(warnings, "recollect: "+rerr.Error())
	}
	req, perr := NotifyRequest(moment, data)
	if perr != nil {
		warnings = append(warnings, "recollect: "+perr.Error())
	}
	if err := ctx.Err(); err != nil {
		return Answer{}, warnings, err
	}
	ans, err = Send(SocketPath(dataDir), req, deadline)
	return ans, warnings, err
}

// NoDaemonMessage is the line notify prints when nothing listens.
func NoDaemonMessage(dataDir string) string {
	return "recollect: no daemon is running for " + dataDir + "; nothing was done now, the next `recollect daemon` start will catch up"
}

// Run is a hook's whole notify: nothing at all inside a claude process
// recollect started (EnvChild set), otherwise Notify, with every warning
// and failure as one line on stderr. It has no result: whatever happens,
// the hook exits 0 and prints nothing on stdout, so it never blocks the
// agent.
func Run(ctx context.Context, dataDir string, moment Moment, stdin io.Reader, stderr io.Writer, getenv func(string) string) {
	if getenv(EnvChild) != "" {
		return
	}
	_, warnings, err := Notify(ctx, dataDir, moment, stdin)
	for _, w := range warnings {
		io.WriteString(stderr, w+"\n")
	}
	switch {
	case errors.Is(err, ErrNoDaemon):
		io.WriteString(stderr, NoDaemonMessage(dataDir)+"\n")
	case err != nil:
		io.WriteString(stderr, "recollect: the daemon did not take the "+string(moment)+" notice ("+err.Error()+"); it keeps following and will catch up\n")
	}
}

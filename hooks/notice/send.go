package notice

import (
	"errors"
	"os"
	"time"
)

// ErrNoDaemon means nothing listens on the control socket: no daemon (or
// in-process scheduler) runs for that data directory.
var ErrNoDaemon = errors.New("no recollect daemon is running")

// MaxLine bounds one request or answer line: room for a context request
// carrying a whole hook payload (at most 1 MiB, escaped) and its answer.
const MaxLine = 8 << 20

// Send writes req as one JSON line to the control socket at socketPath and
// reads the one-line answer, all before deadline. A missing or stale
// socket returns an error wrapping ErrNoDaemon; an answer with ok false
// returns the answer and an error carrying its message.
func Send(socketPath string, req Request, deadline time.Time) (Answer, error) {
	answer, err := Exchange(socketPath, req.Op, append(req.AppendJSON(make([]byte, 0, 256)), '\n'), deadline)
	if err != nil {
		return Answer{}, err
	}
	a, err := ParseAnswer(answer)
	if err != nil {
		return Answer{}, err
	}
	if !a.OK {
		return a, errors.New("daemon refused " + req.Op + ": " + a.Message)
	}
	return a, nil
}

// timeout is an error for a deadline that passed; it unwraps to
// os.ErrDeadlineExceeded, as package net's timeouts do.
func timeout(msg string) error {
	return &contextError{msg: msg, cause: os.ErrDeadlineExceeded}
}

// noDaemonError is a connect that found no socket or nobody listening.
type noDaemonError struct {
	path string
	err  error
}

func (e *noDaemonError) Error() string {
	return ErrNoDaemon.Error() + " (" + e.path + ": " + e.err.Error() + ")"
}

func (e *noDaemonError) Unwrap() []error { return []error{ErrNoDaemon, e.err} }

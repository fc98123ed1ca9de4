package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/pipeline"
)

// DefaultStandbyPoll is how often an MCP server in standby looks whether
// the daemon has let the store go.
const DefaultStandbyPoll = 2 * time.Second

// HandOverGrace is how long an MCP server that stepped back leaves a free
// lock to the daemon that asked it to: the daemon looks every 50 ms.
const HandOverGrace = 10 * time.Second

// Standby runs a scheduler over p in this process whenever no daemon holds
// the data directory, for a server that copies and consolidates on its own
// only while nobody else does (recollect mcp): while a daemon runs it
// waits, looking every StandbyPoll whether the store is free; when a
// daemon starts (TakeOver) it steps back; when the daemon stops it runs
// again. It returns when ctx ends (after its shutdown run, if it was
// running) or when its scheduler fails to serve. p stays open; close it
// after Standby returns.
func Standby(ctx context.Context, p *pipeline.Pipeline, opts Options) error {
	opts.Kind = KindMCP
	if opts.Log == nil {
		opts.Log = p.Logger()
	}
	poll := opts.StandbyPoll
	if poll <= 0 {
		poll = DefaultStandbyPoll
	}
	deferring := false
	// yielded is when this server last stepped back; until the daemon is
	// seen holding the lock (or HandOverGrace passes) a free lock is the
	// daemon's to take, not this server's to take back.
	var yielded time.Time
	for {
		release, held, err := TryLock(p.Dir())
		if err != nil {
			return err
		}
		if held {
			yielded = time.Time{} // the daemon has it
		}
		switch {
		case !held && !yielded.IsZero() && time.Since(yielded) < HandOverGrace:
			release()
		case !held:
			yielded = time.Time{}
			if deferring {
				opts.Log.Info("no daemon holds this data directory any more; this MCP server copies and consolidates again")
				deferring = false
			}
			s := New(p, opts)
			err := s.Run(ctx)
			release()
			if err != nil || ctx.Err() != nil || !s.Yielded() {
				return err
			}
			deferring, yielded = true, time.Now()
		case !deferring:
			pid, kind := Holder(p.Dir())
			opts.Log.Info("another process runs the scheduler for this data directory; deferring to it", "pid", pid, "holder", Describe(kind))
			deferring = true
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(poll):
		}
	}
}

// TakeOver takes the data directory's lock for a daemon. When an MCP
// server's scheduler holds it, the server is asked to step back and the
// lock is taken once it has (its last run ends within its shutdown
// timeout; TakeOver waits at most wait): from then names that server.
// Any other holder, or a server that does not step back, is a
// *RunningError that says so.
func TakeOver(ctx context.Context, dir string, wait time.Duration) (release func(), from *RunningError, err error) {
	release, err = Lock(dir)
	var held *RunningError
	if err == nil || !errors.As(err, &held) || held.Kind != KindMCP {
		return release, nil, err
	}
	resp, serr := control.Send(ctx, notice.SocketPath(dir), notice.Request{Op: notice.OpYield})
	if serr == nil && !resp.OK {
		serr = errors.New(resp.Message)
	}
	if serr != nil {
		held.Why = fmt.Sprintf("it was asked to step back and did not (%v); restart the editor, or stop that process", serr)
		return nil, nil, held
	}
	deadline := time.Now().Add(wait)
	for {
		release, err = Lock(dir)
		if err == nil {
			return release, held, nil
		}
		if !errors.Is(err, ErrRunning) {
			return nil, nil, err
		}
		if time.Now().After(deadline) {
			held.Why = fmt.Sprintf("it agreed to step back but still held the store after %s; stop that process first", wait)
			return nil, nil, held
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

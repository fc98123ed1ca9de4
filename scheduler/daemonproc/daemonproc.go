// Package daemonproc starts a real `recollect daemon` process and watches
// it from outside, as a user's shell and hooks see it: through its control
// socket and its exit. The scheduler's fault tests and the benchmark
// harness (cmd/recollect-bench) both drive daemons this way, so it is a
// leaf that speaks only the socket protocol (hooks) and links no store.
package daemonproc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/recollect/recollect/fixtures/testlog"
	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
)

// Proc is a real `recollect daemon` process.
type Proc struct {
	cmd    *exec.Cmd
	dir    string
	stderr *testlog.Buffer
	done   chan struct{}
	err    error
}

// Start runs `bin daemon --data dir`, with env ("NAME=value") added to
// this process's environment, and waits until its control socket answers
// with its pid.
func Start(ctx context.Context, bin, dir string, env ...string) (*Proc, error) {
	d := &Proc{dir: dir, stderr: &testlog.Buffer{}, done: make(chan struct{})}
	d.cmd = exec.Command(bin, "daemon", "--data", dir)
	d.cmd.Stderr = d.stderr
	d.cmd.Env = append(os.Environ(), env...)
	if err := d.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start daemon: %w", err)
	}
	go func() { d.err = d.cmd.Wait(); close(d.done) }()
	err := Poll(ctx, 30*time.Second, func() (bool, error) {
		select {
		case <-d.done:
			return false, fmt.Errorf("daemon exited at start: %v: %s", d.err, d.LastLine())
		default:
		}
		st, err := Status(ctx, dir)
		return err == nil && st.PID == d.cmd.Process.Pid, nil
	})
	if err != nil {
		d.Kill()
		return nil, err
	}
	return d, nil
}

// PID is the daemon's process id.
func (d *Proc) PID() int { return d.cmd.Process.Pid }

// Stderr is everything the daemon wrote to stderr so far.
func (d *Proc) Stderr() string { return d.stderr.String() }

// LastLine is the last line the daemon wrote to stderr, the one that says
// why it stopped when it did.
func (d *Proc) LastLine() string {
	s := strings.TrimSpace(d.stderr.String())
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// Stop sends SIGTERM and waits, and says how the daemon exited unless it
// exited cleanly; a daemon that does not stop in 30 s is killed and the
// error says so.
func (d *Proc) Stop() error {
	select {
	case <-d.done:
		return d.exitErr()
	default:
	}
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("stop daemon: %w", err)
	}
	select {
	case <-d.done:
		return d.exitErr()
	case <-time.After(30 * time.Second):
		d.Kill()
		return errors.New("daemon did not stop within 30s of SIGTERM; killed")
	}
}

// exitErr is nil for a clean exit, else the exit status with the line
// that says why.
func (d *Proc) exitErr() error {
	if d.err == nil {
		return nil
	}
	return fmt.Errorf("daemon exited with %w: %s", d.err, d.LastLine())
}

// Kill ends the daemon with SIGKILL, unless it has exited, and waits.
func (d *Proc) Kill() {
	select {
	case <-d.done:
	default:
		d.cmd.Process.Kill()
		<-d.done
	}
}

// Status asks the daemon of dir for its status over the control socket.
func Status(ctx context.Context, dir string) (control.Status, error) {
	resp, err := control.Send(ctx, notice.SocketPath(dir), notice.Request{Op: notice.OpStatus})
	if err != nil {
		return control.Status{}, err
	}
	if resp.Status == nil {
		return control.Status{}, errors.New("status answer without status")
	}
	return *resp.Status, nil
}

// WaitIdle waits until the daemon of dir runs nothing and has nothing
// queued, and fails once limit passes.
func WaitIdle(ctx context.Context, dir string, limit time.Duration) error {
	return Poll(ctx, limit, func() (bool, error) {
		st, err := Status(ctx, dir)
		return err == nil && !st.Running && !st.Pending, nil
	})
}

// Poll calls cond every millisecond until it holds, fails, or limit
// passes, or ctx ends.
func Poll(ctx context.Context, limit time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(limit)
	for {
		ok, err := cond()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("still waiting after %s", limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

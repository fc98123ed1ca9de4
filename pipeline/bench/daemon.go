package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
)

// daemonProc is a real `recollect daemon` process started by the bench.
type daemonProc struct {
	cmd    *exec.Cmd
	dir    string
	stderr *lockedBuffer
	done   chan struct{}
	err    error
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startDaemon runs `bin daemon --data dir` and waits until its control
// socket answers with its pid.
func startDaemon(ctx context.Context, bin, dir string) (*daemonProc, error) {
	d := &daemonProc{dir: dir, stderr: &lockedBuffer{}, done: make(chan struct{})}
	d.cmd = exec.Command(bin, "daemon", "--data", dir)
	d.cmd.Stderr = d.stderr
	if err := d.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start daemon: %w", err)
	}
	go func() { d.err = d.cmd.Wait(); close(d.done) }()
	err := poll(ctx, 30*time.Second, func() (bool, error) {
		select {
		case <-d.done:
			return false, fmt.Errorf("daemon exited at start: %v: %s", d.err, lastLine(d.stderr.String()))
		default:
		}
		st, err := daemonStatus(ctx, dir)
		return err == nil && st.PID == d.cmd.Process.Pid, nil
	})
	if err != nil {
		d.kill()
		return nil, err
	}
	return d, nil
}

func (d *daemonProc) pid() int { return d.cmd.Process.Pid }

// stop sends SIGTERM and waits; a daemon that does not stop in 30 s is
// killed and the error says so.
func (d *daemonProc) stop() error {
	select {
	case <-d.done:
		return d.err
	default:
	}
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("stop daemon: %w", err)
	}
	select {
	case <-d.done:
		return d.err
	case <-time.After(30 * time.Second):
		d.kill()
		return errors.New("daemon did not stop within 30s of SIGTERM; killed")
	}
}

func (d *daemonProc) kill() {
	select {
	case <-d.done:
	default:
		d.cmd.Process.Kill()
		<-d.done
	}
}

func daemonStatus(ctx context.Context, dir string) (control.Status, error) {
	resp, err := control.Send(ctx, notice.SocketPath(dir), notice.Request{Op: notice.OpStatus})
	if err != nil {
		return control.Status{}, err
	}
	if resp.Status == nil {
		return control.Status{}, errors.New("status answer without status")
	}
	return *resp.Status, nil
}

// waitIdle waits until the daemon runs nothing and has nothing queued.
func waitIdle(ctx context.Context, dir string, limit time.Duration) error {
	return poll(ctx, limit, func() (bool, error) {
		st, err := daemonStatus(ctx, dir)
		return err == nil && !st.Running && !st.Pending, nil
	})
}

// poll calls cond every millisecond until it holds, fails, or limit passes.
func poll(ctx context.Context, limit time.Duration, cond func() (bool, error)) error {
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

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// procStat reads a process's CPU time (user+system) and resident memory.
func procStat(pid int) (cpu time.Duration, rssKB int64, err error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("read process stats: %w", err)
	}
	// Fields after the command name (which may hold spaces) start after ')'.
	rest := string(stat[bytes.LastIndexByte(stat, ')')+2:])
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("read process stats: short /proc/%d/stat", pid)
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	const ticks = 100 // USER_HZ on Linux
	cpu = time.Duration(utime+stime) * time.Second / ticks
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("read process status: %w", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			rssKB, _ = strconv.ParseInt(strings.Fields(v)[0], 10, 64)
		}
	}
	return cpu, rssKB, nil
}

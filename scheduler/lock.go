package scheduler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/recollect/recollect/store/regfile"
)

// LockName is the lock file inside a data directory. Whoever holds an
// exclusive lock on it (flock on Unix, LockFileEx on Windows) runs the
// scheduler for that directory; the kernel drops the lock when the holder
// dies, however it dies.
const LockName = "daemon.lock"

// errLocked is tryLockFile's answer when another process holds the lock.
var errLocked = errors.New("lock held by another process")

// ErrRunning means another process already runs the scheduler for the data
// directory.
var ErrRunning = errors.New("already running")

// The kinds of process that run a scheduler, as the lock file and the
// control socket's status name them.
const (
	// KindDaemon is recollect daemon: it holds the store for as long as it
	// runs.
	KindDaemon = "daemon"
	// KindMCP is recollect mcp, the MCP server an editor or agent starts:
	// it runs the scheduler only while no daemon does, and steps back when
	// one starts (see Standby and TakeOver).
	KindMCP = "mcp"
)

// Describe names a kind of holder for a person: "recollect daemon",
// "recollect mcp (an editor's or agent's MCP server)".
func Describe(kind string) string {
	switch kind {
	case KindDaemon:
		return "recollect daemon"
	case KindMCP:
		return "recollect mcp (an editor's or agent's MCP server)"
	}
	return "a recollect process"
}

// RunningError is ErrRunning with the holder's pid (0 when it could not be
// read) and kind ("" when the holder did not record one).
type RunningError struct {
	Dir  string
	PID  int
	Kind string
	// Why, when set, says why the holder was not asked to step back, or
	// did not.
	Why string
}

func (e *RunningError) Error() string {
	who := Describe(e.Kind)
	if e.PID != 0 {
		who = fmt.Sprintf("pid %d, %s", e.PID, who)
	} else {
		who += ", pid unknown"
	}
	why := "stop that process first"
	if e.Why != "" {
		why = e.Why
	}
	return fmt.Sprintf("already running (%s) for %s; %s", who, e.Dir, why)
}

// Unwrap makes errors.Is(err, ErrRunning) true.
func (e *RunningError) Unwrap() error { return ErrRunning }

// TryLock takes the data directory's scheduler lock without waiting, for a
// server that defers to a daemon (recollect mcp; the lock names it
// KindMCP). When another process holds it, held is true and release is
// nil; the error is nil then, so callers can branch on held. release
// drops the lock and is safe to call more than once.
func TryLock(dir string) (release func(), held bool, err error) {
	l, err := acquire(dir, KindMCP)
	if errors.Is(err, ErrRunning) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	return l.release, false, nil
}

// Lock takes the data directory's scheduler lock without waiting, for a
// process that must run the scheduler (recollect daemon; the lock names
// it KindDaemon): when another process holds it the error is a
// *RunningError naming that pid and its kind.
func Lock(dir string) (release func(), err error) {
	l, err := acquire(dir, KindDaemon)
	if err != nil {
		return nil, err
	}
	return l.release, nil
}

// HolderPID returns the pid recorded by the lock's holder, 0 if none.
func HolderPID(dir string) int {
	pid, _ := Holder(dir)
	return pid
}

// Holder returns the pid and kind the lock's holder recorded: 0 and ""
// when unreadable, a kind of "" from a holder that named none.
func Holder(dir string) (pid int, kind string) {
	data, err := regfile.ReadFile(filepath.Join(dir, LockName))
	if err != nil {
		return 0, ""
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0, ""
	}
	pid, err = strconv.Atoi(fields[0])
	if err != nil {
		return 0, ""
	}
	if len(fields) > 1 {
		kind = fields[1]
	}
	return pid, kind
}

type lock struct {
	f    *os.File
	once sync.Once
}

// acquire takes the lock or returns a *RunningError; the holder records
// its pid and kind in the file.
func acquire(dir, kind string) (*lock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, LockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	if err := tryLockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			pid, holder := Holder(dir)
			return nil, &RunningError{Dir: dir, PID: pid, Kind: holder}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("write pid to %s: %w", path, err)
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+" "+kind+"\n"), 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("write pid to %s: %w", path, err)
	}
	return &lock{f: f}, nil
}

// release drops the lock. The file stays: removing it would let a third
// process lock a fresh inode while a second still waits on the old one.
func (l *lock) release() {
	l.once.Do(func() { l.f.Close() })
}

package scheduler

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/recollect/recollect/pipeline"
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

// RunningError is ErrRunning with the holder's pid (0 when it could not be
// read).
type RunningError struct {
	Dir string
	PID int
}

func (e *RunningError) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("already running for %s (pid unknown); stop that process first", e.Dir)
	}
	return fmt.Sprintf("already running (pid %d) for %s; stop that process first", e.PID, e.Dir)
}

// Unwrap makes errors.Is(err, ErrRunning) true.
func (e *RunningError) Unwrap() error { return ErrRunning }

// TryLock takes the data directory's scheduler lock without waiting. When
// another process holds it, held is true and release is nil; the error is
// nil then, so callers that only want to defer (recollect mcp) can branch
// on held. release drops the lock and is safe to call more than once.
func TryLock(dir string) (release func(), held bool, err error) {
	l, err := acquire(dir)
	if errors.Is(err, ErrRunning) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	return l.release, false, nil
}

// Lock takes the data directory's scheduler lock without waiting, for a
// process that must run the scheduler (recollect daemon): when another
// process holds it the error is a *RunningError naming that pid.
func Lock(dir string) (release func(), err error) {
	l, err := acquire(dir)
	if err != nil {
		return nil, err
	}
	return l.release, nil
}

// RunIfFree runs a scheduler over p in this process unless another
// process holds the data directory's lock, for servers that should
// consolidate on their own when no daemon runs (recollect mcp). When the
// lock is held it returns at once with deferred true: the daemon there
// follows and consolidates. Otherwise it runs until ctx ends (the
// shutdown moment included) and then releases the lock. p stays open;
// close it after RunIfFree returns.
func RunIfFree(ctx context.Context, p *pipeline.Pipeline, opts Options) (deferred bool, err error) {
	release, held, err := TryLock(p.DB.Dir)
	if err != nil {
		return false, err
	}
	if held {
		log := opts.Log
		if log == nil {
			log = p.Logger()
		}
		log.Info("a daemon runs for this data directory; deferring to it", "pid", HolderPID(p.DB.Dir))
		return true, nil
	}
	defer release()
	return false, New(p, opts).Run(ctx)
}

// HolderPID returns the pid recorded by the lock's holder, 0 if none.
func HolderPID(dir string) int {
	data, err := regfile.ReadFile(filepath.Join(dir, LockName))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0
	}
	return pid
}

type lock struct {
	f    *os.File
	once sync.Once
}

// acquire takes the lock or returns a *RunningError.
func acquire(dir string) (*lock, error) {
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
			return nil, &RunningError{Dir: dir, PID: HolderPID(dir)}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("write pid to %s: %w", path, err)
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
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

package scheduler

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/recollect/recollect/store/regfile"
)

// The daemon's log file and its rotation: daemon.log plus daemon.log.1 and
// daemon.log.2, each at most LogMaxBytes.
const (
	LogName     = "daemon.log"
	LogMaxBytes = 5 << 20
	LogKeep     = 3
)

// LogFile appends to a file and rotates it by size: when a write would
// pass MaxBytes the file becomes path.1, path.1 becomes path.2 and so on,
// keeping Keep files in all. It is safe for concurrent writers.
type LogFile struct {
	path     string
	maxBytes int64
	keep     int

	mu   sync.Mutex
	f    *os.File
	size int64
}

// OpenLogFile opens (creating, mode 0600) the log at path.
func OpenLogFile(path string, maxBytes int64, keep int) (*LogFile, error) {
	if maxBytes <= 0 || keep < 1 {
		return nil, fmt.Errorf("open log %s: maxBytes and keep must be positive", path)
	}
	l := &LogFile{path: path, maxBytes: maxBytes, keep: keep}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *LogFile) open() error {
	// A FIFO in the log's place would block the open until a reader came:
	// it is refused, and the open itself never waits.
	if fi, err := os.Lstat(l.path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("open log %s: %w (%s); remove it", l.path, regfile.ErrNotRegular, fi.Mode().Type())
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return fmt.Errorf("open log %s: %w", l.path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("stat log %s: %w", l.path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("open log %s: %w", l.path, regfile.ErrNotRegular)
	}
	l.f, l.size = f, fi.Size()
	return nil
}

// Write appends p, rotating first when p would take the file past its
// limit. A single write larger than the limit still lands whole.
func (l *LogFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, fmt.Errorf("write log %s: %w", l.path, os.ErrClosed)
	}
	if l.size > 0 && l.size+int64(len(p)) > l.maxBytes {
		if err := l.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

func (l *LogFile) rotate() error {
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("close log %s: %w", l.path, err)
	}
	l.f = nil
	for i := l.keep - 1; i >= 1; i-- {
		from := l.path
		if i > 1 {
			from = fmt.Sprintf("%s.%d", l.path, i-1)
		}
		to := fmt.Sprintf("%s.%d", l.path, i)
		if err := os.Rename(from, to); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("rotate log %s: %w", from, err)
		}
	}
	if l.keep == 1 {
		if err := os.Remove(l.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("rotate log %s: %w", l.path, err)
		}
	}
	return l.open()
}

// Close closes the file; later writes fail. Closing twice is safe.
func (l *LogFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	if err != nil {
		return fmt.Errorf("close log %s: %w", l.path, err)
	}
	return nil
}

// DaemonLogger logs to stderr and to dir's rotated daemon.log. The caller
// closes the returned file after the last line.
func DaemonLogger(dir string, stderr io.Writer) (*slog.Logger, *LogFile, error) {
	lf, err := OpenLogFile(filepath.Join(dir, LogName), LogMaxBytes, LogKeep)
	if err != nil {
		return nil, nil, err
	}
	h := slog.NewTextHandler(tee{file: lf, console: stderr}, &slog.HandlerOptions{Level: slog.LevelInfo})
	return slog.New(h), lf, nil
}

// tee writes every line to the log file and, best effort, to the console:
// a closed stderr (a service manager's) must not cost the file its lines.
type tee struct {
	file    io.Writer
	console io.Writer
}

func (t tee) Write(p []byte) (int, error) {
	n, err := t.file.Write(p)
	if t.console != nil {
		_, _ = t.console.Write(p)
	}
	return n, err
}

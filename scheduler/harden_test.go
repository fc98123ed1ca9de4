//go:build unix

package scheduler_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/scheduler"
	"github.com/recollect/recollect/store/regfile"
	"github.com/recollect/recollect/store/storetest"
)

// A FIFO named like a transcript in a followed folder is skipped (not
// opened for a blocking read): the daemon copies the files beside it,
// `stats` names it, and SIGTERM still stops the daemon.
func TestDaemonSkipsFIFOAndStops(t *testing.T) {
	bin := testbin.Binary(t)
	root := t.TempDir()
	data, home, cwd := filepath.Join(root, "data"), filepath.Join(root, "claude"), "/home/a/app"
	folder := copyStore(t, data, home, cwd)
	fifo := filepath.Join(folder, "a-fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "b.jsonl"), userLine("s1", cwd, "u1", "the file after the fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, bin, data)
	db := storetest.OpenDir(t, data)
	storetest.Eventually(t, "the regular file beside the FIFO copied", func() bool { return countContent(t, db, "the file after the fifo") == 1 })
	out, errOut, code := runCLI(t, bin, nil, "", nil, "stats", "--data", data)
	if code != 0 || !strings.Contains(out, "not_regular_file 1") || !strings.Contains(out, fifo) || !strings.Contains(out, "named pipe") {
		t.Fatalf("stats (exit %d) does not name the skipped FIFO:\n%s\n%s", code, out, errOut)
	}
	stopDaemon(t, d)
}

// A FIFO where daemon.log or the lock file goes is refused at once, never
// waited on.
func TestLogAndLockFIFOsDoNotBlock(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "daemon.log")
	if err := syscall.Mkfifo(logPath, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, scheduler.LockName), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := scheduler.OpenLogFile(logPath, 1<<20, 2)
		scheduler.HolderPID(dir)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, regfile.ErrNotRegular) {
			t.Fatalf("OpenLogFile on a FIFO: %v; want ErrNotRegular", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("opening a FIFO daemon.log or lock file hung")
	}
}

// Deleting memory.db-wal under a running daemon stops its writes with a
// clear error (status and log) instead of acknowledging copies that the
// next start would not find.
func TestDaemonStopsWritingWhenWALIsDeleted(t *testing.T) {
	bin := testbin.Binary(t)
	root := t.TempDir()
	data, home, cwd := filepath.Join(root, "data"), filepath.Join(root, "claude"), "/home/a/app"
	folder := copyStore(t, data, home, cwd)
	transcript := filepath.Join(folder, "s1.jsonl")
	appendTo(t, transcript, userLine("s1", cwd, "u0", "copied before the WAL went"))
	d := startDaemon(t, bin, data)
	db := storetest.OpenDir(t, data)
	storetest.Eventually(t, "the first line", func() bool { return countContent(t, db, "copied before the WAL went") == 1 })
	if err := os.Remove(filepath.Join(data, "memory.db-wal")); err != nil {
		t.Fatal(err)
	}
	appendTo(t, transcript, userLine("s1", cwd, "u1", "appended after the WAL went"))
	storetest.Eventually(t, "the daemon to report the changed files", func() bool {
		st, err := status(data)
		return err == nil && strings.Contains(st.LastError, "memory.db-wal was deleted")
	})
	// The daemon may exit with an error (its shutdown run cannot write),
	// but it must exit.
	var exit *exec.ExitError
	if err := d.Stop(); err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	if !strings.Contains(d.Stderr(), "the store's files changed under this process") {
		t.Errorf("daemon log does not say the files changed:\n%s", d.Stderr())
	}
}

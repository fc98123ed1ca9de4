package scheduler_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/scheduler"
	"github.com/recollect/recollect/store/regfile"
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
	db := openStore(t, data)
	waitFor(t, "the regular file beside the FIFO copied", func() bool { return countContent(t, db, "the file after the fifo") == 1 })
	out, errOut, code := runCLI(t, bin, nil, "", nil, "stats", "--data", data)
	if code != 0 || !strings.Contains(out, "not_regular_file 1") || !strings.Contains(out, fifo) || !strings.Contains(out, "named pipe") {
		t.Fatalf("stats (exit %d) does not name the skipped FIFO:\n%s\n%s", code, out, errOut)
	}
	d.stop(t)
}

// mountTmpfs mounts a small tmpfs at a fresh directory, or skips loudly
// when this process may not mount (not root, or no CAP_SYS_ADMIN).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		t.Skipf("FULL-DISK RETRY TEST NOT RUN: cannot mount a %s tmpfs at %s (%v); run as root (CI does)", size, dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fillDisk writes a file until the filesystem is full and returns it.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return path
			}
			t.Fatal(err)
		}
	}
}

// A copy that failed on a full disk is tried again once space is back,
// although the transcript did not change meanwhile (the rescan skipped
// files whose size and time were unchanged).
func TestDaemonRetriesCopyAfterFullDisk(t *testing.T) {
	bin := testbin.Binary(t)
	disk := mountTmpfs(t, "8m")
	root := t.TempDir()
	data, home, cwd := filepath.Join(disk, "data"), filepath.Join(root, "claude"), "/home/a/app"
	folder := copyStore(t, data, home, cwd)
	transcript := filepath.Join(folder, "s1.jsonl")
	appendTo(t, transcript, userLine("s1", cwd, "u0", "written before the disk filled"))
	d := startDaemon(t, bin, data)
	db := openStore(t, data)
	waitFor(t, "the first line", func() bool { return countContent(t, db, "written before the disk filled") == 1 })
	filler := fillDisk(t, disk)
	big := strings.Repeat("a long line about the deploy window ", 4000)
	appendTo(t, transcript, userLine("s1", cwd, "u1", "written on a full disk "+big))
	waitFor(t, "a copy error", func() bool { st, err := status(data); return err == nil && st.CopyErrors > 0 })
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	stored := func() (n int) {
		if err := db.QueryRow(`SELECT count(*) FROM session_events WHERE content LIKE 'written on a full disk %'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for stored() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the line that failed on a full disk was not copied within 90s of freeing space\n%s", d.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	d.stop(t)
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
	db := openStore(t, data)
	waitFor(t, "the first line", func() bool { return countContent(t, db, "copied before the WAL went") == 1 })
	if err := os.Remove(filepath.Join(data, "memory.db-wal")); err != nil {
		t.Fatal(err)
	}
	appendTo(t, transcript, userLine("s1", cwd, "u1", "appended after the WAL went"))
	waitFor(t, "the daemon to report the changed files", func() bool {
		st, err := status(data)
		return err == nil && strings.Contains(st.LastError, "memory.db-wal was deleted")
	})
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.exited:
	case <-time.After(time.Minute):
		t.Fatal("daemon did not stop after SIGTERM")
	}
	if !strings.Contains(d.stderr.String(), "the store's files changed under this process") {
		t.Errorf("daemon log does not say the files changed:\n%s", d.stderr)
	}
}

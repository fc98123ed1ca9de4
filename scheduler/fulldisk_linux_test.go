//go:build linux

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
)

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

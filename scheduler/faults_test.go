//go:build linux

package scheduler_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/fixtures/testdisk"
	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/scheduler/daemonproc"
)

func runBin(t *testing.T, bin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

func storeCounts(t *testing.T, dir string) (events, integrity string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "memory.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n string
	if err := db.QueryRow(`SELECT count(*) || '/' || COALESCE(sum(length(content)), 0) FROM session_events`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	var ok string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return n, ok
}

// TestFullDisk puts the store on a 6 MB tmpfs, fills the disk beside a
// running daemon, and checks: writes fail with a clear error, what is
// stored stays intact, the daemon keeps answering, and everything resumes
// once space returns.
func TestFullDisk(t *testing.T) {
	t.Parallel() // real processes: mostly waiting, so they overlap well
	disk := testdisk.Mount(t, "6m")
	bin := testbin.Binary(t)
	dir := filepath.Join(disk, "data")
	for i := 0; i < 5; i++ {
		if out, code := runBin(t, bin, "record", "--data", dir, "--session-id", "s", "--content", "We keep the build cache under /var/cache number "+string(rune('a'+i))); code != 0 {
			t.Fatalf("record before the disk fills: exit %d: %s", code, out)
		}
	}
	ctx := context.Background()
	d := startDaemon(t, bin, dir)
	if err := daemonproc.WaitIdle(ctx, dir, 60*time.Second); err != nil {
		t.Fatal(err)
	}
	before, ok := storeCounts(t, dir)
	if ok != "ok" {
		t.Fatalf("integrity before the fault: %s", ok)
	}
	filler := testdisk.Fill(t, disk)

	out, code := runBin(t, bin, "record", "--data", dir, "--session-id", "s", "--content", strings.Repeat("a long sentence that needs room on disk ", 400))
	if code == 0 {
		t.Fatalf("record on a full disk succeeded: %s", out)
	}
	if !strings.Contains(out, "full") && !strings.Contains(out, "no space") {
		t.Errorf("record on a full disk: %q; want an error that says the disk is full", out)
	}
	if strings.Count(strings.TrimSpace(out), "\n") > 0 {
		t.Errorf("record on a full disk printed more than one line: %q", out)
	}
	if _, err := control.Send(ctx, notice.SocketPath(dir), notice.Request{Op: notice.OpNotify, Moment: notice.MomentCompaction}); err != nil {
		t.Fatalf("daemon does not answer on a full disk: %v", err)
	}
	if err := daemonproc.WaitIdle(ctx, dir, 60*time.Second); err != nil {
		t.Fatalf("daemon stuck on a full disk: %v\n%s", err, d.Stderr())
	}
	if st, err := daemonproc.Status(ctx, dir); err != nil || st.PID != d.PID() {
		t.Fatalf("daemon gone after a run on a full disk: %+v %v\n%s", st, err, d.Stderr())
	}
	after, ok := storeCounts(t, dir)
	if ok != "ok" || after != before {
		t.Fatalf("store after the fault: integrity %s, events %s (before %s); want ok and unchanged", ok, after, before)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if out, code := runBin(t, bin, "record", "--data", dir, "--session-id", "s", "--content", "Space is back and the store takes writes again."); code != 0 {
		t.Fatalf("record after space returned: exit %d: %s", code, out)
	}
	if _, err := control.Send(ctx, notice.SocketPath(dir), notice.Request{Op: notice.OpNotify, Moment: notice.MomentCompaction}); err != nil {
		t.Fatal(err)
	}
	if err := daemonproc.WaitIdle(ctx, dir, 60*time.Second); err != nil {
		t.Fatal(err)
	}
	if out, code := runBin(t, bin, "search", "--data", dir, "space back"); code != 0 || !strings.Contains(out, "Space is back") {
		t.Fatalf("after space returned the daemon's run did not integrate the new fact: exit %d\n%s\n%s", code, out, d.Stderr())
	}
	if _, ok := storeCounts(t, dir); ok != "ok" {
		t.Fatalf("integrity after recovery: %s", ok)
	}
	stopDaemon(t, d)
}

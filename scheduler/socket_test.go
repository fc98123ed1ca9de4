//go:build unix

package scheduler_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/scheduler/daemonproc"
)

// TestSocketRefusesAnotherUser runs a real daemon as root and the real
// notify client as uid 65534 (nobody): the control socket is 0600, and
// even with the data directory opened up to everyone the other user's
// connection is refused and nothing reaches the daemon.
func TestSocketRefusesAnotherUser(t *testing.T) {
	t.Parallel() // real processes: mostly waiting, so they overlap well
	if os.Getuid() != 0 {
		t.Skip("OTHER-UID SOCKET TEST NOT RUN: needs root to start a client as uid 65534 (CI runs as root)")
	}
	bin := testbin.Binary(t)
	base, err := os.MkdirTemp("", "recollect-uid-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	// nobody must be able to run the binary itself.
	pub := filepath.Join(base, "recollect")
	copyFile(t, bin, pub)
	pubHook := filepath.Join(base, "recollect-notify")
	copyFile(t, testbin.NotifyBinary(t), pubHook)
	dir := filepath.Join(base, "data")
	ctx := context.Background()
	// A parallel test that forks while copyFile holds a copy open for
	// writing leaves its child holding that descriptor until the child
	// execs (golang.org/issue/22315): for that moment starting the copy
	// fails with "text file busy". Try again until it starts.
	var d *daemonproc.Proc
	err = daemonproc.Poll(ctx, 10*time.Second, func() (bool, error) {
		d, err = daemonproc.Start(ctx, pub, dir)
		if errors.Is(err, syscall.ETXTBSY) {
			return false, nil
		}
		return true, err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Kill()
	sock := notice.SocketPath(dir)
	fi, err := os.Stat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket mode %v, want a 0600 socket", fi.Mode())
	}
	// The daemon answers before its start run ends; a start run still in
	// flight at the end would read as a refused client's run.
	var before control.Status
	if err := daemonproc.Poll(ctx, 60*time.Second, func() (bool, error) {
		before, err = daemonproc.Status(ctx, dir)
		return err == nil && before.Runs["daemon-start"] == 1 && !before.Running && !before.Pending, err
	}); err != nil {
		t.Fatalf("start run: %v (status %+v)", err, before)
	}
	for i, open := range []bool{false, false, true, true} {
		if open { // a user who loosened the data directory: the socket's own mode must still refuse
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(pub, "notify", "compaction", "--data", dir)
		if i%2 == 1 { // the hook's own binary
			cmd = exec.Command(pubHook, "compaction", "--data", dir)
		}
		cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreCompact","session_id":"x","transcript_path":"/nonexistent","cwd":"/tmp"}`)
		var errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &errb
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		cmd.Dir = "/"
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s as nobody (data dir open=%v): %v: %s", cmd.Args[0], open, err, errb.String())
		}
		if !strings.Contains(errb.String(), "permission denied") {
			t.Errorf("%s as nobody (data dir open=%v) stderr %q; want the refusal (permission denied)", cmd.Args[0], open, errb.String())
		}
	}
	after, err := daemonproc.Status(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if after.Runs["compaction"] != before.Runs["compaction"] || after.Coalesced != before.Coalesced || after.Running {
		t.Fatalf("a refused client reached the daemon: before %+v after %+v", before, after)
	}
	if err := d.Stop(); err != nil {
		t.Fatalf("daemon stop: %v\n%s", err, d.Stderr())
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

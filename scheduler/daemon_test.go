package scheduler_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/scheduler/daemonproc"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// startDaemon starts the daemon on dir with env added to the test's
// environment, kills it when the test ends, and fails the test unless its
// socket answers.
func startDaemon(tb testing.TB, bin, dir string, env ...string) *daemonproc.Proc {
	tb.Helper()
	d, err := daemonproc.Start(context.Background(), bin, dir, env...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(d.Kill)
	return d
}

// stopDaemon sends SIGTERM and fails the test unless d exits cleanly.
func stopDaemon(tb testing.TB, d *daemonproc.Proc) {
	tb.Helper()
	if err := d.Stop(); err != nil {
		tb.Fatalf("%v\n%s", err, d.Stderr())
	}
}

// runCLI runs the binary with args, stdin and extra environment, and
// returns stdout, stderr and the exit status.
func runCLI(tb testing.TB, bin string, stdin *os.File, input string, env []string, args ...string) (string, string, int) {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(os.Environ(), env...)
	switch {
	case stdin != nil:
		cmd.Stdin = stdin
	case input != "":
		cmd.Stdin = strings.NewReader(input)
	}
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		tb.Fatalf("%v did not finish within 20s", args)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		tb.Fatal(err)
	}
	return out.String(), errb.String(), code
}

const compactPayload = `{"hook_event_name":"PreCompact","session_id":"sess-1","transcript_path":"/nonexistent/sess-1.jsonl","cwd":"/tmp","trigger":"manual","custom_instructions":""}`

// TestDaemonProcess drives a real daemon: one per data directory, notify
// over the real socket, a clean SIGTERM shutdown that integrates.
func TestDaemonProcess(t *testing.T) {
	bin := testbin.Binary(t)
	dir := filepath.Join(t.TempDir(), "data")
	d := startDaemon(t, bin, dir)
	pid := d.PID()

	_, stderr, code := runCLI(t, bin, nil, "", nil, "daemon", "--data", dir)
	if want := fmt.Sprintf("recollect: already running (pid %d, recollect daemon) for %s; stop that process first\n", pid, dir); code != 1 || stderr != want {
		t.Errorf("second daemon: exit %d, stderr %q; want exit 1, %q", code, stderr, want)
	}

	db := storetest.OpenDir(t, dir)
	storetest.Eventually(t, "start run", func() bool { return len(runTriggers(t, db)) == 1 })
	stdout, stderr, code := runCLI(t, bin, nil, compactPayload, nil, "notify", "compaction", "--data", dir)
	if code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("notify compaction: exit %d, stdout %q, stderr %q; want 0 and silence", code, stdout, stderr)
	}
	storetest.Eventually(t, "compaction run", func() bool { return len(runTriggers(t, db)) == 2 })

	stopDaemon(t, d)
	if got, want := runTriggers(t, db), []string{"daemon-start", "compaction", "shutdown"}; !reflect.DeepEqual(got, want) {
		t.Errorf("runs %q, want %q", got, want)
	}
	if _, err := os.Lstat(notice.SocketPath(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket still there after a clean stop: %v", err)
	}
	log, err := os.ReadFile(filepath.Join(dir, "daemon.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`msg="daemon started"`, `trigger=compaction`, `msg="daemon stopped"`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("daemon.log lacks %s:\n%s", want, log)
		}
	}
	if !strings.Contains(d.Stderr(), `msg="daemon stopped"`) {
		t.Errorf("stderr lacks the log lines:\n%s", d.Stderr())
	}
}

// TestDaemonRestartsOverKilled: after SIGKILL the lock is free and the
// stale socket is probed and replaced by the next daemon.
func TestDaemonRestartsOverKilled(t *testing.T) {
	bin := testbin.Binary(t)
	dir := t.TempDir()
	d := startDaemon(t, bin, dir)
	d.Kill()
	if _, err := os.Lstat(notice.SocketPath(dir)); err != nil {
		t.Fatalf("a killed daemon should leave its socket: %v", err)
	}
	d2 := startDaemon(t, bin, dir)
	// The line is logged before the socket answers, but stderr reaches the
	// buffer through exec's copying goroutine, which may lag under load.
	storetest.Eventually(t, "the second daemon to report the stale socket", func() bool {
		return strings.Contains(d2.Stderr(), "replacing stale control socket")
	})
	stopDaemon(t, d2)
}

// TestNotifyWithoutDaemon: notify exits 0 with one line on stderr and
// nothing on stdout, however the daemon is missing; the recursion guard
// makes it do nothing at all.
func TestNotifyWithoutDaemon(t *testing.T) {
	bin := testbin.Binary(t)
	staleDir := t.TempDir()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: notice.SocketPath(staleDir), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	openPipe := func(t *testing.T) *os.File {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		return r // w stays open: the pipe never reaches EOF
	}
	cases := []struct {
		name   string
		dir    string
		env    []string
		stdin  func(t *testing.T) *os.File
		moment string
		stderr func(dir string) string
	}{
		{"no socket", "", nil, nil, "compaction", func(dir string) string { return notice.NoDaemonMessage(dir) + "\n" }},
		{"stale socket", staleDir, nil, nil, "threshold", func(dir string) string { return notice.NoDaemonMessage(dir) + "\n" }},
		{"stdin never closed", "", nil, openPipe, "compaction", func(dir string) string {
			return "recollect: read stdin: stdin stayed open after 200ms without EOF\n" + notice.NoDaemonMessage(dir) + "\n"
		}},
		{"child of recollect", "", []string{notice.EnvChild + "=1"}, nil, "compaction", func(string) string { return "" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := c.dir
			if dir == "" {
				dir = t.TempDir()
			}
			var stdin *os.File
			if c.stdin != nil {
				stdin = c.stdin(t)
			}
			stdout, stderr, code := runCLI(t, bin, stdin, compactPayload, c.env, "notify", c.moment, "--data", dir)
			if code != 0 || stdout != "" || stderr != c.stderr(dir) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 0, \"\", %q", code, stdout, stderr, c.stderr(dir))
			}
			if _, err := os.Stat(filepath.Join(dir, store.DBFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("notify created or touched the database: %v", err)
			}
		})
	}
	t.Run("unknown moment exits 1, never 2", func(t *testing.T) {
		_, stderr, code := runCLI(t, bin, nil, "", nil, "notify", "compation", "--data", t.TempDir())
		if code != 1 || stderr != "recollect: notify: unknown moment \"compation\"; use compaction or threshold\n" {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
}

// TestNotifyCoalescesInDaemon: while the daemon's run is blocked on the
// database, every notify process still returns at once, and the ones that
// arrived during the run make a single follow-up run.
func TestNotifyCoalescesInDaemon(t *testing.T) {
	bin := testbin.Binary(t)
	dir := t.TempDir()
	d := startDaemon(t, bin, dir)
	db := storetest.OpenDir(t, dir)
	storetest.Eventually(t, "start run", func() bool { return len(runTriggers(t, db)) == 1 })
	release := holdWriteLock(t, dir)
	notify := func() {
		t.Helper()
		stdout, stderr, code := runCLI(t, bin, nil, compactPayload, nil, "notify", "compaction", "--data", dir)
		if code != 0 || stdout != "" || stderr != "" {
			t.Fatalf("notify: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	}
	notify()
	storetest.Eventually(t, "a run in flight", func() bool { st, err := status(dir); return err == nil && st.Running })
	for range 3 {
		notify()
	}
	st, err := status(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Running || !st.Pending || st.Coalesced != 2 {
		t.Errorf("while blocked: running=%v pending=%v coalesced=%d; want true true 2", st.Running, st.Pending, st.Coalesced)
	}
	release()
	storetest.Eventually(t, "two compaction runs", func() bool { return len(runTriggers(t, db)) == 3 })
	storetest.Eventually(t, "idle", func() bool { st, err := status(dir); return err == nil && !st.Running && !st.Pending })
	if got, want := runTriggers(t, db), []string{"daemon-start", "compaction", "compaction"}; !reflect.DeepEqual(got, want) {
		t.Errorf("runs %q, want %q", got, want)
	}
	stopDaemon(t, d)
}

//go:build unix

package sources

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

func TestCopySkipsFIFONamedLikeATranscript(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	src, dir := claudeHome(t, "/w/p")
	writeFile(t, filepath.Join(dir, "a.jsonl"), numbered("s1", "/w/p", "a", 0, 3))
	fifo := filepath.Join(dir, "b.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "c.jsonl"), numbered("s3", "/w/p", "c", 0, 2))
	c, _ := newCopier(t, db, src)
	rep := copyWithin(t, c)
	if rep.Events != 5 || rep.NotRegular != 1 || len(rep.Errors) != 1 || rep.Errors[0].Problem != ProblemNotRegular {
		t.Fatalf("copy with a FIFO: events %d, not regular %d, errors %+v; want 5 events, the FIFO skipped and counted", rep.Events, rep.NotRegular, rep.Errors)
	}
	if got := problems(t, c); got[fifo] != ProblemNotRegular {
		t.Fatalf("source_problems = %v; want the FIFO recorded as %s", got, ProblemNotRegular)
	}
	// A FIFO that is removed drops out of the problems.
	other := filepath.Join(dir, "d.jsonl")
	if err := syscall.Mkfifo(other, 0o600); err != nil {
		t.Fatal(err)
	}
	copyWithin(t, c)
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	copyWithin(t, c)
	if got := problems(t, c); len(got) != 1 || got[fifo] != ProblemNotRegular {
		t.Fatalf("source_problems after removing a FIFO = %v; want only %s", got, fifo)
	}
	// The hook path (one file) refuses it without blocking too.
	done := make(chan error, 1)
	go func() { _, err := c.CopyFile(context.Background(), fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("CopyFile of a FIFO succeeded")
		}
	case <-time.After(time.Minute):
		t.Fatal("CopyFile of a FIFO hung")
	}
	// Once it is a regular file, it is copied and the problem goes.
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	writeFile(t, fifo, numbered("s2", "/w/p", "b", 0, 4))
	if rep := copyWithin(t, c); rep.Events != 4 || rep.NotRegular != 0 {
		t.Fatalf("after the FIFO became a file: %d events, %d not regular; want 4, 0", rep.Events, rep.NotRegular)
	}
	if got := problems(t, c); len(got) != 0 {
		t.Fatalf("source_problems after recovery = %v; want none", got)
	}
}

// unprivileged reports whether the test body should run in this process.
// Root reads any folder, so as root the test re-runs itself as nobody
// (uid 65534) from a copy of the test binary, and the parent reports the
// child's outcome.
func unprivileged(t *testing.T) bool {
	t.Helper()
	if os.Getuid() != 0 || os.Getenv(envUnprivileged) != "" {
		return true
	}
	dir, err := os.MkdirTemp("", "recollect-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "test.bin")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", "^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envUnprivileged+"=1", "TMPDIR="+tmp, "HOME="+tmp)
	cmd.Dir = tmp
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: "+t.Name())) {
		t.Fatalf("%s as uid 65534: %v\n%s", t.Name(), err, out)
	}
	return false
}

func TestUnreadableFolderIsReported(t *testing.T) {
	if !unprivileged(t) {
		return
	}
	db := storetest.Open(t, "sqlite")
	src, dir := claudeHome(t, "/w/p")
	writeFile(t, filepath.Join(dir, "a.jsonl"), numbered("s1", "/w/p", "a", 0, 2))
	_, locked := claudeHome(t, "/w/q")
	lockedDir := filepath.Join(filepath.Dir(dir), filepath.Base(locked))
	writeFile(t, filepath.Join(lockedDir, "b.jsonl"), numbered("s2", "/w/q", "b", 0, 2))
	if err := os.Chmod(lockedDir, 0o000); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(lockedDir, 0o755) })
	c, _ := newCopier(t, db, src)
	rep := copyWithin(t, c)
	if rep.Events != 2 || len(rep.UnreadableFolders) != 1 || rep.UnreadableFolders[0].Path != lockedDir ||
		!strings.Contains(rep.UnreadableFolders[0].Err, "permission denied") {
		t.Fatalf("copy with an unreadable folder: %d events, unreadable %+v; want 2 events and %s reported", rep.Events, rep.UnreadableFolders, lockedDir)
	}
	if got := problems(t, c); got[lockedDir] != ProblemUnreadableFolder {
		t.Fatalf("source_problems = %v; want %s as %s", got, lockedDir, ProblemUnreadableFolder)
	}
	w, err := NewWatcher([]config.Source{src}, c.Getenv, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx, func([]string) {})
	storetest.Eventually(t, "the watcher to report "+lockedDir+" unreadable", func() bool { return len(w.Unreadable()) == 1 })
	// Readable again: it is copied and drops out of the report.
	if err := os.Chmod(lockedDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if rep := copyWithin(t, c); rep.Events != 2 || len(rep.UnreadableFolders) != 0 {
		t.Fatalf("after chmod: %d events, unreadable %+v; want 2 and none", rep.Events, rep.UnreadableFolders)
	}
	if got := problems(t, c); len(got) != 0 {
		t.Fatalf("source_problems after recovery = %v; want none", got)
	}
}

// envUnprivileged marks the copy of a test re-run as an unprivileged user.
const envUnprivileged = "RECOLLECT_TEST_UNPRIVILEGED"

func problems(t *testing.T, c *Copier) map[string]string {
	t.Helper()
	rows, err := c.DB.Query(`SELECT path, problem FROM source_problems`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var p, k string
		if err := rows.Scan(&p, &k); err != nil {
			t.Fatal(err)
		}
		out[p] = k
	}
	return out
}

package scheduler_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/fixtures/testlog"
	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/scheduler"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// countContent counts stored events whose content is exactly text.
func countContent(tb testing.TB, db *store.DB, text string) int {
	tb.Helper()
	return storetest.Count(tb, db, `SELECT count(*) FROM session_events WHERE content = ?`, text)
}

func appendTo(tb testing.TB, path string, data []byte) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		tb.Fatal(err)
	}
}

// TestDaemonFollowsAppends: a line appended to a followed transcript is an
// event in under a second, with no polling loop in the daemon: fsnotify
// wakes the sources watcher, the follower copies the file.
func TestDaemonFollowsAppends(t *testing.T) {
	bin := testbin.Binary(t)
	root := t.TempDir()
	data, home, cwd := filepath.Join(root, "data"), filepath.Join(root, "claude"), "/home/a/app"
	folder := copyStore(t, data, home, cwd)
	transcript := filepath.Join(folder, "55604662-cf2a-4331-851a-ec234028f8ca.jsonl")
	fixture, err := os.ReadFile(filepath.Join(fixtureDir, "spotter/short.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	appendTo(t, transcript, fixture)
	d := startDaemon(t, bin, data)
	db := storetest.OpenDir(t, data)
	storetest.Eventually(t, "start run", func() bool { return len(runTriggers(t, db)) >= 1 })
	var fixtureEvents int
	db.QueryRow(`SELECT count(*) FROM session_events WHERE source_file = ?`, transcript).Scan(&fixtureEvents)
	if fixtureEvents == 0 {
		t.Fatal("the start run copied nothing of the fixture")
	}
	for i := range 3 {
		text := fmt.Sprintf("appended line %d: we settled on port 8443 for the admin API", i)
		appendTo(t, transcript, userLine("55604662-cf2a-4331-851a-ec234028f8ca", cwd, fmt.Sprintf("append-%d", i), text))
		start := time.Now()
		deadline := start.Add(time.Second)
		for countContent(t, db, text) == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("line %d not stored within 1s of the append\n%s", i, d.Stderr())
			}
			time.Sleep(time.Millisecond)
		}
		t.Logf("append %d stored after %s", i, time.Since(start).Round(time.Millisecond))
		if n := countContent(t, db, text); n != 1 {
			t.Fatalf("line %d stored %d times", i, n)
		}
	}
	// A half-written line waits for its newline.
	half := userLine("55604662-cf2a-4331-851a-ec234028f8ca", cwd, "half", "the half line about the deploy window")
	appendTo(t, transcript, half[:len(half)-1])
	st, err := status(data)
	if err != nil {
		t.Fatal(err)
	}
	copied := st.Copied
	appendTo(t, transcript, []byte("\n"))
	storetest.Eventually(t, "the completed half line", func() bool { return countContent(t, db, "the half line about the deploy window") == 1 })
	// The follower counts a copy just after its transaction commits, so
	// the line can be readable a moment before status counts it.
	var after control.Status
	storetest.Eventually(t, "status to count the completed line", func() bool {
		after, err = status(data)
		return err == nil && after.Copied > copied
	})
	if after.CopyErrors != 0 {
		t.Errorf("status copied %d → %d, copy errors %d", copied, after.Copied, after.CopyErrors)
	}
	// The log says what the follower copied as it happens, with the count:
	// a run's own copy step finding nothing new must not read as nothing
	// copied.
	if log := d.Stderr(); !strings.Contains(log, `msg="copied new transcript lines" path=`+transcript) || strings.Contains(log, "copied_files=") {
		t.Errorf("daemon log does not name the follower's copies:\n%s", log)
	}
	stopDaemon(t, d)
}

// TestNotifyCopiesTranscript: notify compaction with a payload copies the
// transcript it names; by the time the compaction run is recorded, that
// transcript's lines are stored.
func TestNotifyCopiesTranscript(t *testing.T) {
	bin := testbin.Binary(t)
	root := t.TempDir()
	data, home, cwd := filepath.Join(root, "data"), filepath.Join(root, "claude"), "/home/a/app"
	folder := copyStore(t, data, home, cwd)
	d := startDaemon(t, bin, data)
	db := storetest.OpenDir(t, data)
	storetest.Eventually(t, "start run", func() bool { return len(runTriggers(t, db)) >= 1 })

	session := "7d48cbd2-6615-4dd8-87f6-38f12b8167d6"
	transcript := filepath.Join(folder, session+".jsonl")
	text := "before compaction: the cache lives in /var/cache/app"
	appendTo(t, transcript, userLine(session, cwd, "pc-1", text))
	payload := fmt.Sprintf(`{"hook_event_name":"PreCompact","session_id":%q,"transcript_path":%q,"cwd":%q,"trigger":"manual","custom_instructions":""}`, session, transcript, cwd)
	stdout, stderr, code := runCLI(t, bin, nil, payload, nil, "notify", "compaction", "--data", data)
	if code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("notify: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// The follower may copy the line first and, under the drain backlog
	// policy, run a threshold moment of its own: wait for the compaction
	// run itself, not for a count of runs.
	storetest.Eventually(t, "compaction run", func() bool { return slices.Contains(runTriggers(t, db), "compaction") })
	if n := countContent(t, db, text); n != 1 {
		t.Fatalf("transcript line stored %d times, want 1", n)
	}
	stopDaemon(t, d)
	if bytes.Contains([]byte(d.Stderr()), []byte("level=ERROR")) {
		t.Errorf("daemon logged errors:\n%s", d.Stderr())
	}
}

// TestFollowerFiresThreshold: lines the follower stores are a threshold
// moment of their own, so a store without hooks still extracts as it
// grows (gated like any threshold notice).
func TestFollowerFiresThreshold(t *testing.T) {
	root := t.TempDir()
	data, home, cwd := filepath.Join(root, "data"), filepath.Join(root, "claude"), "/home/a/app"
	folder := copyStore(t, data, home, cwd)
	p, err := pipeline.Open(context.Background(), data, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Config.Scheduler.ThresholdEvents = 3
	p.Config.Scheduler.Backlog = "gated"
	r := startScheduler(t, p, scheduler.Options{})
	storetest.Eventually(t, "start run", func() bool { return r.s.Status().Runs["daemon-start"] == 1 })
	transcript := filepath.Join(folder, "s-threshold.jsonl")
	appendTo(t, transcript, userLine("s-threshold", cwd, "t-1", "first: the staging database is called orchid"))
	storetest.Eventually(t, "one line copied, not due", func() bool {
		st := r.s.Status()
		return st.Copied == 1 && st.Skipped >= 1 && !st.Pending && !st.Running
	})
	if n := r.s.Status().Runs["threshold"]; n != 0 {
		t.Fatalf("%d threshold runs with one unexamined line", n)
	}
	for i := 2; i <= 3; i++ {
		appendTo(t, transcript, userLine("s-threshold", cwd, fmt.Sprintf("t-%d", i), fmt.Sprintf("line %d: we deploy on Thursdays from the release branch", i)))
	}
	storetest.Eventually(t, "a threshold run", func() bool { return r.s.Status().Runs["threshold"] == 1 })
}

// TestStandbyStepsBackForADaemon: an MCP server's scheduler waits while a
// daemon holds the store and runs once it lets go; a daemon that starts
// while the server runs takes the store over (the server steps back) and
// names it; when that daemon stops the server runs again; cancelling ends
// it and releases the lock.
func TestStandbyStepsBackForADaemon(t *testing.T) {
	p := openPipeline(t)
	dir := p.Dir()
	release, err := scheduler.Lock(dir) // a daemon
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- scheduler.Standby(ctx, p, scheduler.Options{StandbyPoll: 20 * time.Millisecond}) }()
	time.Sleep(100 * time.Millisecond)
	if _, err := status(dir); err == nil {
		t.Fatal("the MCP server's scheduler serves while a daemon holds the store")
	}
	release()
	release() // releasing twice is safe
	storetest.Eventually(t, "the MCP server's scheduler after the daemon stopped", func() bool {
		st, err := status(dir)
		return err == nil && st.Kind == scheduler.KindMCP
	})
	if pid, kind := scheduler.Holder(dir); pid != os.Getpid() || kind != scheduler.KindMCP {
		t.Fatalf("lock holder %d %q, want this process as %s", pid, kind, scheduler.KindMCP)
	}

	// A daemon starts: the server steps back and the daemon has the lock.
	release, from, err := scheduler.TakeOver(context.Background(), dir, 10*time.Second)
	if err != nil || from == nil || from.Kind != scheduler.KindMCP || from.PID != os.Getpid() {
		t.Fatalf("TakeOver: from %+v, %v", from, err)
	}
	if _, kind := scheduler.Holder(dir); kind != scheduler.KindDaemon {
		t.Fatalf("lock holder kind %q after the take-over", kind)
	}
	// A second daemon is refused and told who holds the store.
	if _, _, err := scheduler.TakeOver(context.Background(), dir, time.Second); err == nil ||
		!strings.Contains(err.Error(), fmt.Sprintf("already running (pid %d, recollect daemon) for %s; stop that process first", os.Getpid(), dir)) {
		t.Fatalf("a second daemon: %v", err)
	}
	release()
	storetest.Eventually(t, "the MCP server's scheduler after the daemon stopped again", func() bool {
		st, err := status(dir)
		return err == nil && st.Kind == scheduler.KindMCP
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	rel, held, err := scheduler.TryLock(dir)
	if err != nil || held {
		t.Fatalf("lock not released after Standby: %v %v", held, err)
	}
	rel()
}

// TestRunningErrorNamesTheHolder: the "already running" message says what
// kind of process holds the store, and an MCP server that does not step
// back (one whose socket does not answer) is named as such.
func TestRunningErrorNamesTheHolder(t *testing.T) {
	dir := t.TempDir()
	release, held, err := scheduler.TryLock(dir) // an MCP server, with no socket
	if err != nil || held {
		t.Fatal(held, err)
	}
	defer release()
	_, _, err = scheduler.TakeOver(context.Background(), dir, time.Second)
	want := fmt.Sprintf("already running (pid %d, recollect mcp (an editor's or agent's MCP server)) for %s; it was asked to step back and did not (", os.Getpid(), dir)
	if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, scheduler.ErrRunning) {
		t.Fatalf("TakeOver from a silent MCP server: %v\nwant prefix %s", err, want)
	}
}

// TestStartRunLogsTheBacklogItCopied: the transcripts already there when
// the scheduler starts are copied by the follower's first pass, before the
// start run's copy step finds them done; the start run's log line counts
// them all the same.
func TestStartRunLogsTheBacklogItCopied(t *testing.T) {
	root := t.TempDir()
	data, home, cwd := filepath.Join(root, "data"), filepath.Join(root, "claude"), "/home/a/app"
	folder := copyStore(t, data, home, cwd)
	for i := 1; i <= 5; i++ {
		appendTo(t, filepath.Join(folder, "s-start.jsonl"), userLine("s-start", cwd, fmt.Sprintf("st-%d", i), fmt.Sprintf("line %d: the release train leaves on Tuesdays", i)))
	}
	p, err := pipeline.Open(context.Background(), data, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var logs testlog.Buffer
	r := startScheduler(t, p, scheduler.Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	storetest.Eventually(t, "start run", func() bool { return r.s.Status().Runs["daemon-start"] == 1 })
	r.stop(t)
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, `msg="run finished" trigger=daemon-start`) {
			line = l
		}
	}
	if !strings.Contains(line, " copied_events=5 ") {
		t.Fatalf("start run's line %q, want copied_events=5; log:\n%s", line, logs.String())
	}
}

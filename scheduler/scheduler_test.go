package scheduler_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/scheduler"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// TestMomentsTable pins what each moment runs (issue 3's table).
func TestMomentsTable(t *testing.T) {
	want := map[notice.Moment]scheduler.Plan{
		notice.MomentStart:      {Copy: true, Extract: true, Integrate: true},
		notice.MomentCompaction: {Copy: true, Extract: true, Integrate: true},
		notice.MomentThreshold:  {Extract: true, Integrate: true, Gated: true},
		notice.MomentShutdown:   {Integrate: true},
	}
	if !reflect.DeepEqual(scheduler.Moments, want) {
		t.Fatalf("Moments = %+v\nwant %+v", scheduler.Moments, want)
	}
}

// TestMomentsRunTheirSteps checks each moment's run in the runs table:
// which steps ran, and the extract cap.
func TestMomentsRunTheirSteps(t *testing.T) {
	p := openPipeline(t)
	p.Config.Scheduler.ExtractCap = 7
	p.Config.Scheduler.Backlog = "gated"
	recordEvents(t, p, "s1", 20)
	r := startScheduler(t, p, scheduler.Options{})
	storetest.Eventually(t, "start run", func() bool { return r.s.Status().Runs["daemon-start"] == 1 })
	recordEvents(t, p, "s2", 3)
	if resp := r.s.Notify(notice.Request{Op: notice.OpNotify, Moment: notice.MomentCompaction}); !resp.OK {
		t.Fatalf("notify compaction: %+v", resp)
	}
	storetest.Eventually(t, "compaction run", func() bool { return r.s.Status().Runs["compaction"] == 1 })
	if err := r.stop(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	rows, err := p.Store().Query(`SELECT trigger, summary FROM runs ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type steps struct {
		Trigger string
		Copy    *json.RawMessage `json:"copy"`
		Extract *struct {
			EventsExamined int `json:"events_examined"`
		}
		Integrate *json.RawMessage `json:"integrate"`
	}
	var got []string
	for rows.Next() {
		var trig, sum string
		if err := rows.Scan(&trig, &sum); err != nil {
			t.Fatal(err)
		}
		var s steps
		if err := json.Unmarshal([]byte(sum), &s); err != nil {
			t.Fatal(err)
		}
		line := trig + ":"
		if s.Copy != nil {
			line += " copy"
		}
		if s.Extract != nil {
			line += " extract(" + itoa(s.Extract.EventsExamined) + ")"
		}
		if s.Integrate != nil {
			line += " integrate"
		}
		got = append(got, line)
	}
	want := []string{
		"daemon-start: copy extract(7) integrate",
		"compaction: copy extract(7) integrate",
		"shutdown: integrate",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestThresholdGate: threshold extracts only with enough unexamined events
// and long enough after the last gated run.
func TestThresholdGate(t *testing.T) {
	p := openPipeline(t)
	p.Config.Scheduler.ThresholdEvents = 10
	p.Config.Scheduler.ThresholdInterval = config.NewDuration("2m")
	p.Config.Scheduler.Backlog = "gated"
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	r := startScheduler(t, p, scheduler.Options{Now: clock})
	storetest.Eventually(t, "start run", func() bool { return r.s.Status().Runs["daemon-start"] == 1 })
	threshold := func() { r.s.Notify(notice.Request{Op: notice.OpNotify, Moment: notice.MomentThreshold}) }
	settled := func(runs, skipped int) func() bool {
		return func() bool {
			st := r.s.Status()
			return st.Runs["threshold"] == runs && st.Skipped == skipped && !st.Running && !st.Pending
		}
	}
	steps := []struct {
		name          string
		record        int
		advance       time.Duration
		runs, skipped int
	}{
		{"9 unexamined: not due", 9, 0, 0, 1},
		{"10 unexamined: due", 1, 0, 1, 1},
		{"10 more at once: interval not passed", 10, time.Minute, 1, 2},
		{"2 minutes after the gated run: due", 0, time.Minute, 2, 2},
		{"nothing unexamined: not due", 0, 5 * time.Minute, 2, 3},
	}
	for _, st := range steps {
		if st.record > 0 {
			recordEvents(t, p, "s-"+st.name, st.record)
		}
		advance(st.advance)
		threshold()
		storetest.Eventually(t, st.name, settled(st.runs, st.skipped))
	}
}

// TestCoalescing: notifications that arrive while a run is in flight make
// exactly one follow-up run, named after the strongest moment among them.
func TestCoalescing(t *testing.T) {
	p := openPipeline(t)
	r := startScheduler(t, p, scheduler.Options{})
	// The start run counts itself before the worker marks it done: wait for
	// both, or the first notify below can find it still in flight.
	storetest.Eventually(t, "start run", func() bool { st := r.s.Status(); return st.Runs["daemon-start"] == 1 && !st.Running && !st.Pending })
	release := holdWriteLock(t, p.Dir())
	resp := r.s.Notify(notice.Request{Op: notice.OpNotify, Moment: notice.MomentCompaction})
	if resp.Message != "compaction noted; run queued" {
		t.Errorf("first notify answered %q", resp.Message)
	}
	storetest.Eventually(t, "a run in flight", func() bool { return r.s.Status().Running })
	var msgs []string
	for _, m := range []notice.Moment{notice.MomentThreshold, notice.MomentCompaction, notice.MomentThreshold, notice.MomentCompaction} {
		msgs = append(msgs, r.s.Notify(notice.Request{Op: notice.OpNotify, Moment: m}).Message)
	}
	wantMsgs := []string{
		"threshold noted; runs after the one in progress",
		"compaction noted; joined the run already queued",
		"threshold noted; joined the run already queued",
		"compaction noted; joined the run already queued",
	}
	if !reflect.DeepEqual(msgs, wantMsgs) {
		t.Errorf("answers %q\nwant %q", msgs, wantMsgs)
	}
	if st := r.s.Status(); !st.Pending || st.Coalesced != 3 {
		t.Errorf("status while blocked: pending=%v coalesced=%d, want true 3", st.Pending, st.Coalesced)
	}
	release()
	storetest.Eventually(t, "runs to settle", func() bool { st := r.s.Status(); return !st.Running && !st.Pending && st.Runs["compaction"] >= 2 })
	// The four notifications made one follow-up run, a compaction one (the
	// strongest moment among them), ungated: nothing was skipped.
	if got, want := runTriggers(t, p.Store()), []string{"daemon-start", "compaction", "compaction"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("runs %q, want %q", got, want)
	}
	if st := r.s.Status(); st.Skipped != 0 || st.Runs["threshold"] != 0 {
		t.Fatalf("status after settling: %+v", st)
	}
}

// TestStaleSocketReplaced: a socket left by a killed process is probed,
// removed and replaced; a live one and a non-socket file are left alone.
func TestStaleSocketReplaced(t *testing.T) {
	p := openPipeline(t)
	path := notice.SocketPath(p.Dir())
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close()
	if _, err := control.Send(context.Background(), path, notice.Request{Op: notice.OpStatus}); !errors.Is(err, notice.ErrNoDaemon) {
		t.Fatalf("send to stale socket: %v, want ErrNoDaemon", err)
	}
	if err := os.Chmod(p.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	r := startScheduler(t, p, scheduler.Options{})
	storetest.Eventually(t, "socket answers", func() bool { _, err := status(p.Dir()); return err == nil })
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %o, want 600", fi.Mode().Perm())
	}
	if dfi, _ := os.Stat(p.Dir()); dfi.Mode().Perm() != 0o700 {
		t.Errorf("data dir mode %o, want 700", dfi.Mode().Perm())
	}
	if err := r.stop(t); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind after a clean stop: %v", err)
	}
}

func TestSocketRefusals(t *testing.T) {
	t.Run("a file that is not a socket", func(t *testing.T) {
		p := openPipeline(t)
		path := notice.SocketPath(p.Dir())
		if err := os.WriteFile(path, []byte("mine"), 0o600); err != nil {
			t.Fatal(err)
		}
		err := runOnce(t, p)
		if err == nil || !strings.Contains(err.Error(), "exists and is not a socket; move it away") {
			t.Fatalf("Run: %v", err)
		}
		if data, _ := os.ReadFile(path); string(data) != "mine" {
			t.Fatal("the file was touched")
		}
	})
	t.Run("a live socket", func(t *testing.T) {
		p := openPipeline(t)
		ln, err := net.Listen("unix", notice.SocketPath(p.Dir()))
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		err = runOnce(t, p)
		if err == nil || !strings.Contains(err.Error(), "another process answers on") {
			t.Fatalf("Run: %v", err)
		}
	})
	t.Run("too long a path", func(t *testing.T) {
		p := openPipeline(t)
		long := filepath.Join(p.Dir(), strings.Repeat("d", 100))
		if err := os.Mkdir(long, 0o700); err != nil {
			t.Fatal(err)
		}
		p.Store().Dir = long
		err := runOnce(t, p)
		if err == nil || !strings.Contains(err.Error(), "use a shorter --data directory") {
			t.Fatalf("Run: %v", err)
		}
	})
}

// runOnce runs a scheduler that is expected to fail at once.
func runOnce(t *testing.T, p *pipeline.Pipeline) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return scheduler.New(p, scheduler.Options{}).Run(ctx)
}

// TestWaitSettled: a wait request over the socket answers with the run
// still in flight when its limit runs out, and answers as soon as the run
// ends when that comes first.
func TestWaitSettled(t *testing.T) {
	p := openPipeline(t)
	r := startScheduler(t, p, scheduler.Options{})
	storetest.Eventually(t, "start run", func() bool { return r.s.Status().Runs["daemon-start"] == 1 })
	sock := notice.SocketPath(p.Dir())
	ctx := context.Background()

	resp, err := control.WaitIdle(ctx, sock, 5*time.Second)
	if err != nil || resp.Status == nil || resp.Status.Running || resp.Message != "no consolidation in flight" {
		t.Fatalf("idle daemon: %+v, %v", resp, err)
	}

	release := holdWriteLock(t, p.Dir())
	r.s.Notify(notice.Request{Op: notice.OpNotify, Moment: notice.MomentCompaction})
	storetest.Eventually(t, "a run in flight", func() bool { return r.s.Status().Running })
	resp, err = control.WaitIdle(ctx, sock, 50*time.Millisecond)
	if err != nil || resp.Status == nil || !resp.Status.Running || resp.Message != "a consolidation is still in flight after 50ms" {
		t.Fatalf("blocked run, short wait: %+v, %v", resp, err)
	}

	got := make(chan control.Response, 1)
	go func() {
		resp, err := control.WaitIdle(ctx, sock, 25*time.Second)
		if err != nil {
			resp.Message = err.Error()
		}
		got <- resp
	}()
	storetest.Eventually(t, "the wait request held", func() bool { return r.s.Status().Waiting == 1 })
	release()
	resp = <-got
	if resp.Message != "no consolidation in flight" || resp.Status == nil || resp.Status.Running || resp.Status.Pending {
		t.Fatalf("wait across the run's end: %+v", resp)
	}
	if n := r.s.Status().Waiting; n != 0 {
		t.Fatalf("%d wait requests still counted after the last one was answered", n)
	}
	if n := r.s.Status().Runs["compaction"]; n != 1 {
		t.Fatalf("compaction runs = %d after the wait, want 1", n)
	}
}

// TestContextRequests: a context request reaches Options.Reads over the
// socket with every field the hook binary sent, and the answer comes back
// whole, stdout and stderr included; without a Context the request is
// refused, so the hook binary runs the recollect binary instead. A
// request answered is counted in the status.
func TestContextRequests(t *testing.T) {
	req := notice.Request{Op: notice.OpContext, Hook: "user-prompt", Payload: `{"hook_event_name":"UserPromptSubmit","prompt":"x"}`,
		Data: "/d", Cwd: "/w", Env: []string{"HOME=/h"}, TimeoutMS: 2500}
	t.Run("served", func(t *testing.T) {
		p := openPipeline(t)
		got := make(chan notice.Request, 1)
		startScheduler(t, p, scheduler.Options{Reads: func(_ context.Context, r notice.Request) control.Response {
			got <- r
			return control.Response{OK: true, Message: "context", Stdout: "{\"hookSpecificOutput\":{}}\n", Stderr: "a line\n"}
		}})
		storetest.Eventually(t, "the socket", func() bool { _, err := status(p.Dir()); return err == nil })
		resp, err := control.Send(context.Background(), notice.SocketPath(p.Dir()), req)
		if err != nil || resp.Stdout != "{\"hookSpecificOutput\":{}}\n" || resp.Stderr != "a line\n" {
			t.Fatalf("%+v, %v", resp, err)
		}
		if r := <-got; !reflect.DeepEqual(r, req) {
			t.Fatalf("handler got %+v, want %+v", r, req)
		}
		if st, err := status(p.Dir()); err != nil || st.Answered != 1 {
			t.Fatalf("status %+v, %v; want one request answered", st, err)
		}
	})
	t.Run("refused", func(t *testing.T) {
		p := openPipeline(t)
		startScheduler(t, p, scheduler.Options{})
		storetest.Eventually(t, "the socket", func() bool { _, err := status(p.Dir()); return err == nil })
		resp, err := control.Send(context.Background(), notice.SocketPath(p.Dir()), req)
		if err == nil || resp.Message != "this scheduler does not answer context requests; read the store directly" {
			t.Fatalf("%+v, %v; want a refusal", resp, err)
		}
	})
}

package scheduler_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/scheduler/daemonproc"
	"github.com/recollect/recollect/store/sqlite"
)

// TestSIGKILLDaemonDuring200kCopy kills the real daemon with SIGKILL at
// random points while it copies a 200k-line transcript, 20 times, then
// lets a last daemon finish: every line is stored exactly once. It takes
// minutes, so it runs only with RECOLLECT_FAULT_LONG=1 (the scheduler's own
// test does the same over 20k lines in every run).
func TestSIGKILLDaemonDuring200kCopy(t *testing.T) {
	if os.Getenv(envFaultLong) == "" {
		t.Skipf("long fault test: set %s=1 to kill the daemon 20 times during a 200k-line copy", envFaultLong)
	}
	const lines = 200_000
	bin := testbin.Binary(t)
	work := t.TempDir()
	dir := filepath.Join(work, "data")
	m := followed(t, dir, filepath.Join(work, "claude"))
	path := m.transcript
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := 1; i < lines; i++ {
		b, _ := json.Marshal(map[string]any{"type": "user", "sessionId": m.session, "cwd": faultCwd,
			"timestamp": "2026-03-01T10:00:00.000Z", "uuid": fmt.Sprintf("kill-%d", i),
			"message": map[string]any{"role": "user", "content": fmt.Sprintf("line %06d of a long conversation about retry budgets", i)}})
		w.Write(append(b, '\n'))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func() int64 {
		var n int64
		db.QueryRow(`SELECT count(*) FROM session_events WHERE source_file = ?`, path).Scan(&n)
		return n
	}
	rng := rand.New(rand.NewPCG(3, 4))
	kills := 0
	for round := 0; round < 20 && count() < lines; round++ {
		target := count() + rng.Int64N(lines/25)
		d, err := daemonproc.Start(ctx, bin, dir)
		if err != nil {
			t.Fatal(err)
		}
		daemonproc.Poll(ctx, 120*time.Second, func() (bool, error) { return count() >= target, nil })
		d.Kill()
		kills++
	}
	t.Logf("killed the daemon %d times; %d of %d lines stored before the last start", kills, count(), lines)
	d := startDaemon(t, bin, dir)
	if err := daemonproc.Poll(ctx, 10*time.Minute, func() (bool, error) { return count() >= lines, nil }); err != nil {
		t.Fatalf("only %d of %d lines after the last start: %v", count(), lines, err)
	}
	if err := daemonproc.WaitIdle(ctx, dir, 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	var n, distinct int64
	if err := db.QueryRow(`SELECT count(*), count(DISTINCT content) FROM session_events WHERE source_file = ?`, path).Scan(&n, &distinct); err != nil {
		t.Fatal(err)
	}
	if n != lines || distinct != lines {
		t.Fatalf("%d events (%d distinct) after %d kills; want each of %d lines exactly once", n, distinct, kills, lines)
	}
	stopDaemon(t, d)
}

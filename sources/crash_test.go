package sources

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/sqlite"
)

// Environment of the crash helper process.
const (
	envCrashData = "RECOLLECT_TEST_CRASH_DATA"
	envCrashHome = "RECOLLECT_TEST_CRASH_HOME"
)

// TestCrashHelper is the child process of TestKilledCopiesLoseAndDoubleNothing:
// it copies in small batches until killed.
func TestCrashHelper(t *testing.T) {
	dir := os.Getenv(envCrashData)
	if dir == "" {
		t.Skip("runs only as the crash test's child process")
	}
	db, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := newCopier(t, db, config.Source{Kind: ClaudeCode, Home: os.Getenv(envCrashHome)})
	c.BatchLines = 10
	for {
		if _, err := c.CopyAll(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// A copy killed with SIGKILL at random points, 20 times, restarted each
// time, ends with every line stored exactly once.
func TestKilledCopiesLoseAndDoubleNothing(t *testing.T) {
	if os.Getenv(envCrashData) != "" {
		t.Skip("inside the child")
	}
	const lines = 1500
	data := t.TempDir()
	src, dir := claudeHome(t, "/w/app")
	path := filepath.Join(dir, "big.jsonl")
	var body []byte
	for i := range lines {
		body = append(body, userLine("big", "/w/app", fmt.Sprintf("line %04d of a long conversation about retry budgets", i))...)
	}
	writeFile(t, path, body)
	db, err := sqlite.Open(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	offset := func() int64 {
		var off int64
		db.QueryRow(`SELECT offset FROM source_files WHERE path = ?`, path).Scan(&off)
		return off
	}
	// The child is killed, so its own t.TempDir is never removed: it makes
	// it under one of the parent's, which the parent's cleanup removes.
	childTmp := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	kills := 0
	for round := 0; round < 20 && offset() < int64(len(body)); round++ {
		target := offset() + rng.Int64N(int64(len(body))/20+1)
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$")
		cmd.Env = append(os.Environ(), envCrashData+"="+data, envCrashHome+"="+src.Home, "TMPDIR="+childTmp)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for offset() < target && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		kills++
	}
	if made, err := os.ReadDir(childTmp); err != nil || len(made) == 0 {
		t.Fatalf("the killed copiers made no temporary folders under %s (%v): they made them where no one removes them", childTmp, err)
	}
	t.Logf("killed the copier %d times; offset %d of %d before the final copy", kills, offset(), len(body))
	c, _ := newCopier(t, db, src)
	copyAll(t, c)
	var n, distinct int
	if err := db.QueryRow(`SELECT count(*), count(DISTINCT content) FROM session_events WHERE source_file = ?`, path).Scan(&n, &distinct); err != nil {
		t.Fatal(err)
	}
	if n != lines || distinct != lines {
		t.Fatalf("%d events (%d distinct) after %d kills; want every one of %d lines exactly once", n, distinct, kills, lines)
	}
}

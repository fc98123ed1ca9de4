package scheduler_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/scheduler/daemonproc"
	"github.com/recollect/recollect/store/sqlite"
)

// envFaultLong makes the concurrency test run 60 s instead of 20 s.
const envFaultLong = "RECOLLECT_FAULT_LONG"

// TestConcurrentDaemonSearchesAndCaptures runs, at once and for 20 s (60 s
// with RECOLLECT_FAULT_LONG=1): the real daemon copying a transcript that
// keeps growing, four CLI processes searching in a loop, and an MCP client
// capturing facts. No client may see an error, and no line or capture may
// be lost.
func TestConcurrentDaemonSearchesAndCaptures(t *testing.T) {
	t.Parallel() // real processes: mostly waiting, so they overlap well
	span := 20 * time.Second
	if os.Getenv(envFaultLong) != "" {
		span = 60 * time.Second
	}
	bin := testbin.Binary(t)
	work := t.TempDir()
	dir := filepath.Join(work, "data")
	m := followed(t, dir, filepath.Join(work, "claude"))
	ctx := context.Background()
	d := startDaemon(t, bin, dir)
	cs := mcpSession(t, bin, dir)
	stop := time.Now().Add(span)
	var wg sync.WaitGroup
	var searches, captures atomic.Int64
	errs := make(chan error, 64)
	wg.Add(1)
	go func() { // the growing transcript
		defer wg.Done()
		for i := 1; time.Now().Before(stop); i++ {
			for j := 0; j < 50; j++ {
				n := m.appended.Load()
				if err := m.appendTo(n, fmt.Sprintf("line %d: we keep the build cache under /var/cache and retry three times", n)); err != nil {
					errs <- err
					return
				}
				m.appended.Add(1)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() { // a CLI search loop
			defer wg.Done()
			searchUntil(stop, bin, dir, "build cache retry", &searches, errs)
		}()
	}
	wg.Add(1)
	go func() { // the MCP client
		defer wg.Done()
		captureUntil(ctx, stop, cs, "The concurrency test", 0, &captures, errs)
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := m.appended.Load()
	var got, distinct int64
	err = daemonproc.Poll(ctx, 60*time.Second, func() (bool, error) {
		err := db.QueryRow(`SELECT count(*), count(DISTINCT content) FROM session_events WHERE source_file = ?`, m.transcript).Scan(&got, &distinct)
		return err == nil && got >= want, err
	})
	if err != nil || got != want || distinct != want {
		t.Fatalf("daemon stored %d events (%d distinct) of %d appended lines: %v\n%s", got, distinct, want, err, d.LastLine())
	}
	var stored int64
	if err := db.QueryRow(`SELECT count(DISTINCT content) FROM session_facts WHERE content LIKE 'The concurrency test captured fact number %'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != captures.Load() {
		t.Fatalf("%d captures acknowledged, %d stored", captures.Load(), stored)
	}
	if searches.Load() < 4 || captures.Load() < 10 {
		t.Fatalf("too little happened to prove anything: %d searches, %d captures", searches.Load(), captures.Load())
	}
	t.Logf("%s: %d lines copied, %d searches, %d captures, no error", span, want, searches.Load(), captures.Load())
	stopDaemon(t, d)
}

func mcpSession(t *testing.T, bin, dir string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(bin, "mcp", "--data", dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "recollect-fault-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect MCP: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("close MCP: %v", err)
		}
	})
	return cs
}

// searchUntil runs `bin search --data dir query` as a whole process again
// and again until stop, counting each clean answer in searches; the first
// failure, or anything on stderr, goes to errs and ends the loop.
func searchUntil(stop time.Time, bin, dir, query string, searches *atomic.Int64, errs chan<- error) {
	for time.Now().Before(stop) {
		cmd := exec.Command(bin, "search", "--data", dir, query)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Run(); err != nil || errb.Len() > 0 {
			errs <- fmt.Errorf("search: %v: %s", err, errb.String())
			return
		}
		searches.Add(1)
	}
}

// captureUntil calls the MCP tool capture_fact through cs until stop, a
// numbered fact said by who each time, pausing between calls, counting
// each in captures; the first failure goes to errs and ends the loop.
func captureUntil(ctx context.Context, stop time.Time, cs *mcp.ClientSession, who string, pause time.Duration, captures *atomic.Int64, errs chan<- error) {
	for i := 0; time.Now().Before(stop); i++ {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "capture_fact", Arguments: map[string]any{
			"content": fmt.Sprintf("%s captured fact number %d about the build cache.", who, i)}})
		if err != nil || res.IsError {
			var text string
			if res != nil {
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						text += tc.Text
					}
				}
			}
			errs <- fmt.Errorf("capture_fact %d: %v %v %s", i, err, res, text)
			return
		}
		captures.Add(1)
		time.Sleep(pause)
	}
}

package mcpserver_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/cmd/recollect/mcpserver"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/scheduler"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// A user who only pasted the MCP snippet still gets consolidation: with no
// daemon holding the data directory, `recollect mcp` runs the scheduler's
// start moment (copy, extract, integrate) in its own process.
func TestMCPConsolidatesWhenNoDaemonRuns(t *testing.T) {
	dir := t.TempDir()
	rec := exec.Command(binary, "record", "--data", dir, "--content", "My colleague Robin leads the Atlas migration.")
	rec.Env = []string{"HOME=" + t.TempDir()}
	if out, err := rec.CombinedOutput(); err != nil {
		t.Fatalf("record: %v\n%s", err, out)
	}
	c := startArgs(t, []string{"mcp", "--data", dir}, dir)
	storetest.Eventually(t, "the in-process scheduler to consolidate the recorded event (one active fact, nothing unextracted)", func() bool {
		_, st := c.ok("get_stats", map[string]any{})
		facts, _ := st["facts"].(map[string]any)
		return facts["active"] == 1.0 && st["unextracted_events"] == 0.0
	})
	_, ans := c.ok("search_knowledge", map[string]any{"query": "Atlas"})
	if len(list(ans, "results")) != 1 {
		t.Fatalf("search after the scheduler's run: %v", ans)
	}
}

// log_event wakes threshold extraction like a copied line does: with the
// threshold at one event and no interval, the recorded event is extracted
// without any other moment.
func TestLogEventWakesThresholdExtraction(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Scheduler.ThresholdEvents, cfg.Scheduler.ThresholdInterval = 1, config.NewDuration("0s")
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	c := startArgs(t, []string{"mcp", "--data", dir}, dir, "RECOLLECT_PROVIDER=heuristic")
	storetest.Eventually(t, "the start moment's run on an empty store", func() bool {
		_, st := c.ok("get_stats", map[string]any{})
		return st["unextracted_events"] == 0.0
	})
	c.ok("log_event", map[string]any{"role": "user", "event_type": "message", "content": "My colleague Robin leads the Atlas migration."})
	storetest.Eventually(t, "log_event to wake threshold extraction", func() bool {
		_, st := c.ok("get_stats", map[string]any{})
		return st["unextracted_events"] == 0.0
	})
}

// A broken config.json reaches the MCP client as a readable error on
// every call, not as a closed connection.
func TestConfigErrorReachesTheClient(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"extraction": {"bach_size": 5}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startArgs(t, []string{"mcp", "--data", dir}, dir)
	for _, tool := range []string{"get_stats", "search_knowledge"} {
		text, _, isErr := c.call(tool, map[string]any{"query": "x"})
		want := "recollect cannot open its store in " + dir + `: config.json: extraction.bach_size: unknown key; did you mean "batch_size"?; fix that, then restart this MCP server`
		if !isErr || text != want {
			t.Errorf("%s: error %v, %q; want %q", tool, isErr, text, want)
		}
	}
	if _, err := c.read(mcpserver.BriefingURI); err == nil || !strings.Contains(err.Error(), "bach_size") {
		t.Errorf("briefing with a broken config: %v", err)
	}
}

// One process, one copier: `recollect mcp` hands its one Pipeline to the
// scheduler it runs and to the MCP server, so the follower's copies and the
// copies before tool calls go through the same Copier. Lines appended while
// both copy side by side are each stored once, every one by the pipeline's
// Copier, and no pass had to start again over a file another copier moved.
func TestDaemonAndMCPServerShareOneCopier(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	cfg := config.Default()
	cfg.Mode = "copy"
	cfg.Sources = []config.Source{{Kind: "claude-code", Home: home}}
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	p, err := pipeline.Open(context.Background(), dir, pipeline.Options{
		Getenv: func(string) string { return "" }, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	transcript := filepath.Join(home, "projects", "-work-shop", "sess-1.jsonl")
	const lines = 60
	appendTurn(t, transcript, "sess-1", "Line 0: the shop deploys on Fridays.", 0)

	release, held, err := scheduler.TryLock(dir)
	if err != nil || held {
		t.Fatalf("TryLock: held=%v err=%v", held, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sched := scheduler.New(p, scheduler.Options{})
	done := make(chan error, 1)
	go func() { done <- sched.Run(ctx); release() }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("scheduler: %v", err)
		}
	}()
	// The follower's first pass copies the first line before any tool call.
	storetest.Eventually(t, "the follower's first pass to copy a line", func() bool { return sched.Status().Copied >= 1 })
	c := inProcess(t, must(mcpserver.New(p, mcpserver.Options{SessionID: "s", CopyDebounce: time.Nanosecond, Log: slog.New(slog.DiscardHandler)})))

	count := func() int {
		var n int
		if err := p.Store().QueryRow(`SELECT count(*) FROM session_events WHERE source = 'claude-code'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Each line appended wakes the follower while the tool call copies
	// before it answers.
	deadline := time.Now().Add(20 * time.Second)
	for i := 1; i < lines || count() < lines; i++ {
		if i < lines {
			appendTurn(t, transcript, "sess-1", fmt.Sprintf("Line %d: the shop deploys on Fridays.", i), i)
		}
		c.ok("get_events", map[string]any{"all_sessions": true})
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d lines copied", count(), lines)
		}
	}
	var dups int
	if err := p.Store().QueryRow(`SELECT count(*) FROM (SELECT content FROM session_events WHERE source = 'claude-code' GROUP BY content HAVING count(*) > 1)`).Scan(&dups); err != nil {
		t.Fatal(err)
	}
	if dups != 0 {
		t.Errorf("%d lines stored more than once", dups)
	}
	if st := p.CopyStats(); st.Events != lines || st.Restarts != 0 {
		t.Errorf("the pipeline's copier stored %d events with %d restarts; want all %d, none restarted (one copier in the process)", st.Events, st.Restarts, lines)
	}
}

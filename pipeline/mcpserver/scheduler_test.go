package mcpserver_test

import (
	"os/exec"
	"testing"
	"time"
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
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, st := c.ok("get_stats", map[string]any{})
		facts, _ := st["facts"].(map[string]any)
		if facts["active"] == 1.0 && st["unextracted_events"] == 0.0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the in-process scheduler did not consolidate the recorded event: facts %v, unextracted %v", facts, st["unextracted_events"])
		}
		time.Sleep(50 * time.Millisecond)
	}
	_, ans := c.ok("search_knowledge", map[string]any{"query": "Atlas"})
	if len(list(ans, "results")) != 1 {
		t.Fatalf("search after the scheduler's run: %v", ans)
	}
}

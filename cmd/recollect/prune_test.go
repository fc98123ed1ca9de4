package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/recollect/recollect/pipeline"
)

func TestPruneCommand(t *testing.T) {
	dir := t.TempDir()
	diskMust(t, dir, "record", "--session-id", "s", "--content", "I prefer dark mode in every editor and terminal I use.")
	for i := 0; i < 3; i++ {
		diskMust(t, dir, "record", "--session-id", "s", "--role", "tool", "--event-type", "tool_result",
			"--content", fmt.Sprintf("output %d %s", i, strings.Repeat("z", 500)))
	}
	diskMust(t, dir, "record", "--session-id", "s", "--content", "Could you run the suite?")
	diskMust(t, dir, "consolidate")

	// The default window (200) keeps everything in so small a session.
	if out := diskMust(t, dir, "stats"); !strings.Contains(out, "budgets      none configured (intelligence.token_budget)\n") {
		t.Fatalf("stats without budgets:\n%s", out)
	}
	out := diskMust(t, dir, "prune")
	want := "reclaimable  0 events (0 B) in 0 seq ranges\n" +
		"kept         2 messages and summaries (always kept), 0 not yet examined by extraction, 0 cited by facts, 3 in working memory (last 200 per session)\n" +
		"report only: nothing was deleted; run recollect prune --apply to delete these events\n"
	if out != want {
		t.Fatalf("prune printed:\n%s\nwant:\n%s", out, want)
	}

	if err := writeWorkingMemory(dir, 1); err != nil {
		t.Fatal(err)
	}
	var rep pipeline.PruneReport
	if err := json.Unmarshal([]byte(diskMust(t, dir, "prune", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Events != 3 || rep.Applied {
		t.Fatalf("report = %+v, want 3 reclaimable", rep)
	}
	out = diskMust(t, dir, "prune", "--apply", "--vacuum")
	re := regexp.MustCompile(`^pruned       3 events \(1\.\d KiB\) in 1 seq range: 3 tool results\nkept         2 messages and summaries \(always kept\), 0 not yet examined by extraction, 0 cited by facts, 0 in working memory \(last 1 per session\)\nfile         \d+\.\d KiB before vacuum, \d+\.\d KiB after\n$`)
	if !re.MatchString(out) {
		t.Fatalf("prune --apply --vacuum printed:\n%s", out)
	}
	if _, errOut, code := diskRun(t, dir, "prune", "--vacuum"); code != 2 || !strings.Contains(errOut, "pass it together with --apply") {
		t.Fatalf("prune --vacuum alone: status %d, %q", code, errOut)
	}
}

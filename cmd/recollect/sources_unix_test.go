//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/recollect/recollect/store/config"
)

// TestStatsSaysWhySourcesMatchNothing: a copy store whose cwd matches no
// transcript, and one whose home does not exist, say so in stats.
func TestStatsSaysWhySourcesMatchNothing(t *testing.T) {
	home := filepath.Join(t.TempDir(), "claude")
	writeTranscript(t, filepath.Join(home, "projects", "-work-shop", "s1.jsonl"), "/work/shop")
	writeTranscript(t, filepath.Join(home, "projects", "-work-shop", "s1", "subagents", "agent-a1.jsonl"), "/work/shop")
	dir := t.TempDir()
	diskMust(t, dir, "init", "--yes", dir)
	cfg := config.Default()
	cfg.Mode = "copy"
	cfg.Sources = []config.Source{{Kind: "claude-code", Home: home, Cwd: "/work/shoe"}, {Kind: "claude-code", Home: home + "-typo"}}
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	diskMust(t, dir, "consolidate")
	out := diskMust(t, dir, "stats")
	for _, want := range []string{
		"source       claude-code source " + home + ": 1 project folder seen; 0 transcripts matched (cwd /work/shoe); skipped 1 of another project (e.g. /work/shop), 1 subagent (include_subagents is off); nothing matches: check sources[].cwd in config.json; never copied\n",
		"source       claude-code source: home " + home + "-typo not found; fix sources[].home in config.json; never copied\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lacks %q:\n%s", want, out)
		}
	}
	// Fixed, the source matches and says when it last copied.
	cfg.Sources = cfg.Sources[:1]
	cfg.Sources[0].Cwd = "/work/shop"
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	diskMust(t, dir, "consolidate")
	out = diskMust(t, dir, "stats")
	if !strings.Contains(out, "1 transcript matched (cwd /work/shop); skipped 1 subagent (include_subagents is off); 1 file copied, last at ") {
		t.Errorf("stats after fixing the cwd:\n%s", out)
	}
	// A FIFO named like a transcript is named as one, not as a transcript
	// that records no cwd yet.
	if err := syscall.Mkfifo(filepath.Join(home, "projects", "-work-shop", "fifo.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	out = diskMust(t, dir, "stats")
	if !strings.Contains(out, "1 transcript matched (cwd /work/shop); skipped 1 subagent (include_subagents is off), 1 not a regular file (a FIFO, socket or device; never opened); 1 file copied") {
		t.Errorf("stats with a FIFO among the transcripts:\n%s", out)
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/recollect/recollect/store/config"
)

// writeTranscript puts one Claude Code user line recorded in cwd at path.
func writeTranscript(t *testing.T, path, cwd string) {
	t.Helper()
	line, _ := json.Marshal(map[string]any{"type": "user", "sessionId": filepath.Base(path), "cwd": cwd, "uuid": "u1",
		"timestamp": "2026-03-01T10:00:00Z", "message": map[string]any{"role": "user", "content": "I prefer tea over coffee."}})
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStatsCountsCodexCopies: a Codex source's copied rollouts, under
// <home>/sessions, are counted as copied (they read "never copied" when
// stats looked under <home>/projects for every kind).
func TestStatsCountsCodexCopies(t *testing.T) {
	src, err := filepath.Glob("../../fixtures/transcripts/codex/*/rollout-*.jsonl")
	if err != nil || len(src) == 0 {
		t.Fatalf("no codex fixture: %v", err)
	}
	data, err := os.ReadFile(src[0])
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(t.TempDir(), "codex")
	day := filepath.Join(home, "sessions", "2026", "03", "01")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(day, filepath.Base(src[0])), data, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	diskMust(t, dir, "init", "--yes", dir)
	cfg := config.Default()
	cfg.Mode = "copy"
	cfg.Sources = []config.Source{{Kind: "codex", Home: home}}
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	diskMust(t, dir, "consolidate", "--copy")
	if out := diskMust(t, dir, "stats"); !strings.Contains(out, "1 transcript matched; 1 file copied, last at ") {
		t.Errorf("stats after copying a codex rollout:\n%s", out)
	}
}

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

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

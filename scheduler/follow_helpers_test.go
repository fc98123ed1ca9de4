package scheduler_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store/config"
)

// fixtureDir holds the real Claude Code transcripts (see its SOURCES.md).
const fixtureDir = "../fixtures/transcripts/claude-code"

// copyStore writes the config of a copy store in dataDir that follows a
// Claude Code home, and returns the folder of project cwd's transcripts.
func copyStore(tb testing.TB, dataDir, home, cwd string) string {
	tb.Helper()
	cfg := config.Default()
	cfg.Mode = "copy"
	cfg.Sources = []config.Source{{Kind: "claude-code", Home: home}}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := config.Write(dataDir, cfg); err != nil {
		tb.Fatal(err)
	}
	folder := filepath.Join(home, "projects", sources.ClaudeFolder(cwd))
	if err := os.MkdirAll(folder, 0o755); err != nil {
		tb.Fatal(err)
	}
	return folder
}

// fixtureLines reads the complete lines of the real main transcripts.
func fixtureLines(tb testing.TB) [][]byte {
	tb.Helper()
	var lines [][]byte
	for _, rel := range []string{
		"spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
		"spotter/short.jsonl",
		"fasthooks/sample_main_transcript.jsonl",
		"claude-code-log/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
	} {
		data, err := os.ReadFile(filepath.Join(fixtureDir, rel))
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 32<<20)
		for sc.Scan() {
			if len(bytes.TrimSpace(sc.Bytes())) > 0 {
				lines = append(lines, append([]byte(nil), sc.Bytes()...))
			}
		}
	}
	return lines
}

// uniqueLine is a real fixture line with its uuid made unique (n), so a
// transcript built by repeating fixture lines has no identical lines.
func uniqueLine(tb testing.TB, line []byte, n int) []byte {
	tb.Helper()
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(line, &rec); err != nil {
		tb.Fatalf("fixture line is not JSON: %v", err)
	}
	rec["uuid"], _ = json.Marshal(fmt.Sprintf("crash-%07d", n))
	out, err := json.Marshal(rec)
	if err != nil {
		tb.Fatal(err)
	}
	return append(out, '\n')
}

// userLine is a Claude Code user record in the real files' shape.
func userLine(session, cwd, uuid, text string) []byte {
	b, _ := json.Marshal(map[string]any{
		"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": cwd, "sessionId": session,
		"version": "2.1.38", "type": "user", "uuid": uuid, "timestamp": "2026-03-01T10:00:00.000Z",
		"message": map[string]any{"role": "user", "content": text},
	})
	return append(b, '\n')
}

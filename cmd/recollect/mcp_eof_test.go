package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/fixtures/testbin"
)

// TestMCPAnswersWhatWasReadBeforeEOF: requests piped to recollect mcp and
// followed at once by the end of input are each completed and answered
// before the server exits (printf … | recollect mcp).
func TestMCPAnswersWhatWasReadBeforeEOF(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"log_event","arguments":{"role":"user","event_type":"message","content":"We deploy on Fridays."}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"log_event","arguments":{"role":"user","event_type":"message","content":"The staging port is 4001."}}}`,
	}, "\n") + "\n"
	cmd := exec.Command(testbin.Binary(t), "mcp", "--no-scheduler", "--data", dir)
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mcp: %v", err)
	}
	for _, id := range []string{`"id":1,"result"`, `"id":2,"result"`, `"id":3,"result"`} {
		if !strings.Contains(string(out), id) {
			t.Errorf("no answer with %s before exit:\n%s", id, out)
		}
	}
	if n := count(t, dir, `SELECT count(*) FROM session_events`); n != 2 {
		t.Errorf("%d events stored, want the 2 logged before the end of input", n)
	}
}

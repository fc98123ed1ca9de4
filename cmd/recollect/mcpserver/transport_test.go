package mcpserver_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rawSession is `recollect mcp` driven with raw lines on stdin.
type rawSession struct {
	t     *testing.T
	in    io.WriteCloser
	lines chan string
}

func startRaw(t *testing.T) *rawSession {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(binary, "mcp", "--no-scheduler", "--data", dir)
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "RECOLLECT_DATA="}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &rawSession{t: t, in: in, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if strings.Contains(stderr.String(), "panic") {
			t.Errorf("server panicked:\n%s", stderr.String())
		}
	})
	return s
}

func (s *rawSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("write %.40q: %v", line, err)
	}
}

// answer reads the next line the server writes.
func (s *rawSession) answer(after string) map[string]any {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("the server closed stdout after %.60q", after)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			s.t.Fatalf("answer to %.60q is not JSON: %q", after, l)
		}
		return m
	case <-time.After(30 * time.Second):
		s.t.Fatalf("no answer to %.60q within 30s", after)
	}
	return nil
}

// TestMCPMalformedLines: each malformed line gets the JSON-RPC error it
// deserves and the server keeps serving (it used to exit on the first).
func TestMCPMalformedLines(t *testing.T) {
	s := startRaw(t)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	s.send(init)
	if a := s.answer(init); a["id"] != float64(1) || a["result"] == nil {
		t.Fatalf("initialize: %v", a)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	deep := `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"a":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}}`
	for _, tc := range []struct {
		name, line string
		code       float64
		id         any
	}{
		{"not JSON", `hello there`, -32700, nil},
		{"NUL", "\x00", -32700, nil},
		{"NUL inside", `{"jsonrpc":"2.0","id":2,"method":"pi` + "\x00" + `ng"}`, -32700, nil},
		{"empty array", `[]`, -32600, nil},
		{"batch", `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, -32600, nil},
		{"number", `42`, -32600, nil},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":4,"method":"ping"}`, -32600, float64(4)},
		{"no jsonrpc", `{"id":"five","method":"ping"}`, -32600, "five"},
		{"object id", `{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, -32600, nil},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, nil},
		{"method not a string", `{"jsonrpc":"2.0","id":6,"method":7}`, -32600, float64(6)},
		{"truncated", `{"jsonrpc":"2.0","id":7,"method":"pi`, -32700, nil},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"\xff\"}", -32700, nil},
		{"deep nesting", deep, -32600, nil},
	} {
		s.send(tc.line)
		a := s.answer(tc.name)
		e, _ := a["error"].(map[string]any)
		if e == nil || e["code"] != tc.code || a["id"] != tc.id || a["jsonrpc"] != "2.0" {
			t.Errorf("%s: answered %v; want error %v with id %v", tc.name, a, tc.code, tc.id)
		}
	}
	list := `{"jsonrpc":"2.0","id":100,"method":"tools/list"}`
	s.send(list)
	if a := s.answer(list); a["id"] != float64(100) || a["result"] == nil {
		t.Fatalf("after the malformed lines tools/list answered %v; want a result", a)
	}
}

// A tool argument sent as null (what the MCP Inspector sends for a blank
// field) is taken as absent, not refused as a value of the wrong type.
func TestNullArgumentIsAbsent(t *testing.T) {
	c := start(t, filepath.Join(t.TempDir(), "store"))
	text, _, isErr := c.call("search_knowledge", map[string]any{"query": "deploy", "limit": nil, "budget": nil, "domain": nil})
	if isErr || strings.Contains(text, "null") {
		t.Fatalf("search_knowledge with null arguments: error %v, %q", isErr, text)
	}
}

// consolidate right after everything was consolidated says so, instead of
// a bare "0 integrated" that reads as if the capture were lost.
func TestConsolidateSaysWhenAlreadyDone(t *testing.T) {
	c := start(t, filepath.Join(t.TempDir(), "store"))
	c.ok("capture_fact", map[string]any{"content": "The staging database runs on port 6543."})
	if text, _ := c.ok("consolidate", map[string]any{"all": true}); strings.Contains(text, "already done") {
		t.Fatalf("the first consolidate had work to do: %s", text)
	}
	text, out := c.ok("consolidate", map[string]any{})
	if !strings.Contains(text, "already done: nothing was waiting") || out["already_done"] != true {
		t.Errorf("second consolidate: %s %v", text, out)
	}
}

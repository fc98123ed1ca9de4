package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/cmd/recollect/mcpserver"
	"github.com/recollect/recollect/hooks/install"
	"github.com/recollect/recollect/store/config"
)

// additional decodes a context hook's stdout: "" when it printed nothing.
func additional(t *testing.T, event, out string) string {
	t.Helper()
	if out == "" {
		return ""
	}
	var v struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("hook output is not the hook JSON: %v\n%s", err, out)
	}
	if v.HookSpecificOutput.HookEventName != event {
		t.Fatalf("hookEventName %q, want %q", v.HookSpecificOutput.HookEventName, event)
	}
	return v.HookSpecificOutput.AdditionalContext
}

// TestContextHooks drives both context hooks with real payloads on a store
// filled through record and consolidate.
func TestContextHooks(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	start := `{"hook_event_name":"SessionStart","session_id":"s1","transcript_path":"/t/s1.jsonl","cwd":"/tmp","source":"startup"}`
	prompt := `{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":"/tmp","prompt":"which database does Atlas use?"}`

	// No store yet: nothing to add, nothing to say.
	if code, out, errOut := run(t, start, "hooks", "session-start", "--data", data); code != 0 || out != "" || errOut != "" {
		t.Fatalf("no store: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, _, _ := run(t, "", "init", "--yes", data); code != 0 {
		t.Fatal("init failed")
	}
	for _, s := range []string{"We use Postgres 16 as the database for the Atlas project.", "The nightly backup of Atlas runs at three in the morning."} {
		if code, _, errOut := run(t, s, "record", "--data", data, "--session-id", "s1"); code != 0 {
			t.Fatalf("record: %s", errOut)
		}
	}
	if code, _, errOut := run(t, "", "consolidate", "--data", data); code != 0 {
		t.Fatalf("consolidate: %s", errOut)
	}

	code, out, errOut := run(t, start, "hooks", "session-start", "--data", data)
	if text := additional(t, "SessionStart", out); code != 0 || errOut != "" || !strings.Contains(text, `"We use Postgres 16 as the database for the Atlas project."`) {
		t.Fatalf("session start: exit %d, stderr %q, context %q", code, errOut, text)
	}
	compact := strings.Replace(start, `"startup"`, `"compact"`, 1)
	_, out, _ = run(t, compact, "hooks", "session-start", "--data", data)
	if text := additional(t, "SessionStart", out); !strings.Contains(text, "Note: no recollect daemon is running") ||
		!strings.Contains(text, "## Learned in this session before the compaction") {
		t.Fatalf("compact without a daemon: %q", text)
	}

	// The prompt hook is opt-in: off, it prints nothing.
	if code, out, errOut := run(t, prompt, "hooks", "user-prompt", "--data", data); code != 0 || out != "" || errOut != "" {
		t.Fatalf("prompt hook off: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	setConfig(t, data, `"context": {"prompt": true}`)
	_, out, _ = run(t, prompt, "hooks", "user-prompt", "--data", data)
	if text := additional(t, "UserPromptSubmit", out); !strings.Contains(text, "Postgres 16") || strings.Contains(text, "nightly backup") {
		t.Fatalf("prompt hook on: %q", text)
	}
	unrelated := strings.Replace(prompt, "which database does Atlas use?", "rename the parser tests", 1)
	if code, out, errOut := run(t, unrelated, "hooks", "user-prompt", "--data", data); code != 0 || out != "" || errOut != "" {
		t.Fatalf("unrelated prompt: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestContextHooksFailQuietly: whatever goes wrong, a context hook exits 0
// with nothing on stdout and one line on stderr, so it never blocks the
// agent.
func TestContextHooksFailQuietly(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	if code, _, _ := run(t, "", "init", "--yes", data); code != 0 {
		t.Fatal("init failed")
	}
	bad := filepath.Join(t.TempDir(), "bad")
	if code, _, _ := run(t, "", "init", "--yes", bad); code != 0 {
		t.Fatal("init failed")
	}
	setConfig(t, bad, `"context": {"session_budget": 10}`)
	cases := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"malformed payload", `{"hook_event_name": 3}`, []string{"hooks", "session-start", "--data", data}, "hook_event_name"},
		{"not a payload", "hello", []string{"hooks", "user-prompt", "--data", data}, "not a hook payload"},
		{"bad config", `{"hook_event_name":"SessionStart","source":"startup"}`, []string{"hooks", "session-start", "--data", bad}, "context.session_budget"},
		{"unknown flag", "", []string{"hooks", "session-start", "--budget", "9"}, "flag provided but not defined"},
	}
	for _, tc := range cases {
		code, out, errOut := run(t, tc.stdin, tc.args...)
		if code != 0 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q (want one line with %q)", tc.name, code, out, errOut, tc.want)
		}
	}
}

// setConfig replaces config.json's closing brace with key, a JSON member.
func setConfig(t *testing.T, dir, member string) {
	t.Helper()
	path := filepath.Join(dir, "config.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSpace(string(b))
	s = strings.TrimSuffix(s, "}") + ", " + member + "}"
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestHooksInstallContext: hooks install writes the SessionStart context
// hook beside PreCompact, the UserPromptSubmit hook only when asked for
// (saying it is off until context.prompt), and hooks print shows them.
func TestHooksInstallContext(t *testing.T) {
	proj, data := t.TempDir(), t.TempDir()
	settings := filepath.Join(proj, ".claude", "settings.local.json")
	out, errOut, code := runApp(t, nil, "hooks", "install", "--local", "--project", proj, "--data", data, "--prompt")
	if code != 0 || out != "recollect hooks in "+settings+" (this machine's settings for the project, which Claude Code keeps out of git): PreCompact installed, SessionStart installed, UserPromptSubmit installed (new file)\n" ||
		!strings.Contains(errOut, `the UserPromptSubmit hook adds nothing until "context": {"prompt": true} is set in `+filepath.Join(data, "config.json")) {
		t.Fatalf("install --prompt: exit %d, %q, %q", code, out, errOut)
	}
	var got struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	b, _ := os.ReadFile(settings)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	start := got.Hooks["SessionStart"][0]
	if start.Matcher != "startup|resume|clear|compact" || start.Hooks[0].Command != install.ContextCommand(thisBinary(t), "session-start", data) || start.Hooks[0].Timeout != 15 {
		t.Errorf("SessionStart entry %+v", start)
	}
	if p := got.Hooks["UserPromptSubmit"][0].Hooks[0]; p.Command != install.ContextCommand(thisBinary(t), "user-prompt", data) {
		t.Errorf("UserPromptSubmit entry %+v", p)
	}
	out, _, _ = runApp(t, nil, "hooks", "install", "--local", "--project", proj, "--data", data, "--prompt")
	if !strings.HasSuffix(out, "UserPromptSubmit unchanged; nothing changed\n") {
		t.Errorf("second install: %q", out)
	}
	out, _, _ = runApp(t, nil, "hooks", "print", "--data", data)
	if !strings.Contains(out, `"SessionStart"`) || strings.Contains(out, `"UserPromptSubmit"`) {
		t.Errorf("hooks print without --prompt:\n%s", out)
	}
}

// TestHooksInstallCursor: --cursor merges the stop hook into the project's
// .cursor/hooks.json and the MCP server into the .cursor/mcp.json beside
// it, keeping every other byte of both.
func TestHooksInstallCursor(t *testing.T) {
	proj, data := t.TempDir(), t.TempDir()
	path := filepath.Join(proj, ".cursor", "hooks.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"version": 1, "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}]}}`), 0o600)
	mcpPath := filepath.Join(proj, ".cursor", "mcp.json")
	mcpOrig := "{\n  \"mcpServers\": {\n    \"github\": {\"command\": \"gh-mcp\", \"args\": [\"--ro\"]}\n  }\n}\n"
	os.WriteFile(mcpPath, []byte(mcpOrig), 0o600)
	name := mcpserver.ServerName(data, "")
	out, errOut, code := runApp(t, nil, "hooks", "install", "--cursor", "--project", proj, "--data", data)
	if code != 0 || !strings.HasPrefix(out, "installed the Cursor stop hook (notify threshold) in "+path+" (backup: ") ||
		!strings.Contains(out, "installed the MCP server "+name+" in "+mcpPath+" (backup: ") {
		t.Fatalf("install --cursor: exit %d, %q, %q", code, out, errOut)
	}
	mcpGot, _ := os.ReadFile(mcpPath)
	wantMCP := strings.Replace(mcpOrig, "\"args\": [\"--ro\"]}\n", "\"args\": [\"--ro\"]},\n    \""+name+"\": {\n      \"command\": \""+thisBinary(t)+"\",\n      \"args\": [\n        \"mcp\",\n        \"--data\",\n        \""+data+"\"\n      ]\n    }\n", 1)
	if string(mcpGot) != wantMCP {
		t.Errorf("mcp.json:\n%s\nwant\n%s", mcpGot, wantMCP)
	}
	if out, _, _ := runApp(t, nil, "hooks", "install", "--cursor", "--project", proj, "--data", data); !strings.Contains(out, "MCP server "+name+" already in "+mcpPath+"; nothing changed") {
		t.Errorf("second install --cursor: %q", out)
	}
	var got struct {
		Version int                                   `json:"version"`
		Hooks   map[string][]struct{ Command string } `json:"hooks"`
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Version != 1 || got.Hooks["afterFileEdit"][0].Command != "./fmt.sh" ||
		got.Hooks["stop"][0].Command != install.ThresholdCommand(thisBinary(t), data) {
		t.Fatalf("merged hooks.json: %s", b)
	}
	out, _, code = runApp(t, nil, "hooks", "print", "--cursor", "--data", data)
	if code != 0 || !strings.Contains(out, "{\n  \"version\": 1,\n  \"hooks\": {\n    \"stop\": [") ||
		!strings.Contains(out, install.ThresholdCommand(thisBinary(t), data)) || !strings.Contains(out, `"mcpServers"`) {
		t.Errorf("print --cursor: exit %d\n%s", code, out)
	}
	if _, errOut, code := runApp(t, nil, "hooks", "install", "--cursor", "--data", data); code != 2 || !strings.Contains(errOut, "say where") {
		t.Errorf("--cursor without a place: exit %d, %q", code, errOut)
	}
}

// TestInitOffersPromptHook: the walk-through asks for the prompt hook (off
// unless answered yes), and init prints the hooks it would install.
func TestInitOffersPromptHook(t *testing.T) {
	for answers, want := range map[string]bool{"record\nn\ny\n": true, "record\nn\n\n": false, "record\nn\nno\n": false} {
		var out bytes.Buffer
		cfg, err := walkThrough(Env{Stdin: strings.NewReader(answers), Stdout: &out, Getenv: func(string) string { return "" }}, config.Default())
		if err != nil || cfg.Context.Prompt != want || !strings.Contains(out.String(), "UserPromptSubmit hook") {
			t.Errorf("answers %q: prompt %v (%v), want %v; asked:\n%s", answers, cfg.Context.Prompt, err, want, out.String())
		}
	}
	data := filepath.Join(t.TempDir(), "data")
	code, out, _ := run(t, "", "init", "--yes", data)
	if code != 0 || !strings.Contains(out, `"SessionStart"`) || !strings.Contains(out, `"PreCompact"`) || strings.Contains(out, `"UserPromptSubmit"`) {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
}

// TestContextHookGivesUpOnASilentServer: a PostgreSQL server that accepts
// the connection and never answers (a network that drops the replies)
// costs a context hook contextHookTimeout, then one line on stderr and
// nothing added — not the agent's prompt held for minutes.
func TestContextHookGivesUpOnASilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // read nothing, answer nothing
		}
	}()
	data := filepath.Join(t.TempDir(), "team")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Storage = config.Storage{Provider: "postgres", Postgres: config.PostgresStorage{Schema: "team"}}
	cfg.Context.Prompt = true
	if err := config.Write(data, cfg); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"RECOLLECT_POSTGRES_URL": "postgres://nobody@" + ln.Addr().String() + "/db?sslmode=disable", "HOME": t.TempDir()}
	prompt := `{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":"/tmp","prompt":"which database does Atlas use?"}`
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"recollect", "hooks", "user-prompt", "--data", data}, Env{
		Stdin: strings.NewReader(prompt), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
	want := "the store did not answer within " + contextHookTimeout.String() + "; nothing added this time"
	if code != 0 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), want) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 0, nothing on stdout, one line saying %q", code, out.String(), errb.String(), want)
	}
}

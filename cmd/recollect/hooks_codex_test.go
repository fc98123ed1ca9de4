package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/hooks/install"
)

// TestHooksInstallCodex: --codex sets notify in $CODEX_HOME/config.toml,
// refuses to replace another program's notify (exit 2) unless --force,
// and prints the MCP table.
func TestHooksInstallCodex(t *testing.T) {
	codexHome, data := t.TempDir(), t.TempDir()
	env := map[string]string{"CODEX_HOME": codexHome}
	path := filepath.Join(codexHome, "config.toml")
	theirs := "model = \"o3\"\nnotify = [\"python3\", \"/home/a/notify.py\"]\n\n[tui]\nnotifications = true\n"
	os.WriteFile(path, []byte(theirs), 0o600)

	_, errOut, code := runApp(t, env, "hooks", "install", "--codex", "--data", data)
	if code != 2 || !strings.Contains(errOut, "notify already runs another program") || !strings.Contains(errOut, "--force") {
		t.Fatalf("install over another notify: exit %d, %q", code, errOut)
	}
	if b, _ := os.ReadFile(path); string(b) != theirs {
		t.Fatalf("a refused install changed the file:\n%s", b)
	}
	out, errOut, code := runApp(t, env, "hooks", "install", "--codex", "--force", "--data", data)
	if code != 0 || !strings.HasPrefix(out, "set Codex's notify (notify threshold after each turn) in "+path+" (backup: ") ||
		!strings.Contains(out, "[mcp_servers.recollect]") {
		t.Fatalf("install --force: exit %d, %q, %q", code, out, errOut)
	}
	line := install.CodexNotifyLine(install.CodexNotifyArgv(thisBinary(t), data))
	if b, _ := os.ReadFile(path); string(b) != "model = \"o3\"\n"+line+"\n\n[tui]\nnotifications = true\n" {
		t.Fatalf("config.toml after install:\n%s", b)
	}
	if out, _, code := runApp(t, env, "hooks", "install", "--codex", "--data", data); code != 0 || !strings.Contains(out, "nothing changed") {
		t.Errorf("second install: exit %d, %q", code, out)
	}
	if out, _, code := runApp(t, env, "hooks", "print", "--codex", "--data", data); code != 0 || !strings.Contains(out, line) || !strings.Contains(out, `args = ["mcp", "--data", "`+data+`"]`) {
		t.Errorf("print --codex: exit %d\n%s", code, out)
	}
	if _, errOut, code := runApp(t, env, "hooks", "install", "--codex", "--user", "--data", data); code != 2 || !strings.Contains(errOut, "drop --project and --user") {
		t.Errorf("--codex --user: exit %d, %q", code, errOut)
	}
}

// readFails fails the test if anything reads it.
type readFails struct{ t *testing.T }

func (r readFails) Read([]byte) (int, error) {
	r.t.Error("stdin was read although Codex passed the payload as an argument")
	return 0, io.EOF
}

// TestNotifyTakesCodexArgument: `recollect notify threshold` as Codex runs
// it (the turn's JSON last) exits 0, prints nothing and leaves stdin alone.
func TestNotifyTakesCodexArgument(t *testing.T) {
	data := t.TempDir()
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"recollect", "notify", "threshold", "--data", data,
		`{"type":"agent-turn-complete","thread-id":"t1","turn-id":"1","cwd":"/w","input-messages":["hi"],"last-assistant-message":"ok"}`},
		Env{Stdin: readFails{t}, Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	if code != 0 || out.Len() != 0 || !strings.Contains(errb.String(), "no daemon is running") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

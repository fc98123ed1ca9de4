package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/hooks/install"
	"github.com/recollect/recollect/store/config"
)

// runApp runs the CLI in process and returns stdout, stderr and the status.
func runApp(t *testing.T, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"recollect"}, args...), Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
	})
	return out.String(), errb.String(), code
}

func thisBinary(t *testing.T) string {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if r, err := filepath.EvalSymlinks(bin); err == nil {
		bin = r
	}
	return bin
}

func TestHooksPrint(t *testing.T) {
	data := t.TempDir()
	out, _, code := runApp(t, nil, "hooks", "print", "--data", data)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var got struct {
		Hooks struct {
			PreCompact []struct {
				Hooks []struct {
					Type    string
					Command string
					Timeout int
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	h := got.Hooks.PreCompact[0].Hooks[0]
	if want := install.NotifyCommand(thisBinary(t), data); h.Command != want || h.Timeout != 5 || h.Type != "command" {
		t.Errorf("entry %+v, want command %q, timeout 5", h, want)
	}
	if !filepath.IsAbs(strings.Fields(h.Command)[0]) {
		t.Errorf("binary path is not absolute: %s", h.Command)
	}
}

func TestHooksInstall(t *testing.T) {
	proj, data := t.TempDir(), t.TempDir()
	settings := filepath.Join(proj, ".claude", "settings.json")
	shared := " (the project's shared settings, which a team commits: it now holds this machine's paths; --local writes settings.local.json instead)"
	out, stderr, code := runApp(t, nil, "hooks", "install", "--project", proj, "--data", data)
	if code != 0 || out != "recollect hooks in "+settings+shared+": PreCompact installed, SessionStart installed (new file)\n" {
		t.Fatalf("first install: exit %d, %q %q", code, out, stderr)
	}
	out, _, code = runApp(t, nil, "hooks", "install", "--project", proj, "--data", data)
	if code != 0 || out != "recollect hooks in "+settings+shared+": PreCompact unchanged, SessionStart unchanged; nothing changed\n" {
		t.Fatalf("second install: exit %d, %q", code, out)
	}
	home := t.TempDir()
	out, _, code = runApp(t, map[string]string{"HOME": home}, "hooks", "install", "--user", "--data", data)
	if code != 0 || !strings.Contains(out, filepath.Join(home, ".claude", "settings.json")) {
		t.Fatalf("--user: exit %d, %q", code, out)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"hooks", "install"}, "recollect: hooks install: say where: --local (this project's .claude/settings.local.json, kept out of git), --project DIR (that project's .claude/settings.json, shared) or --user (~/.claude/settings.json)\n"},
		{[]string{"hooks", "install", "--user", "--project", proj}, "recollect: hooks install: choose one of --project DIR, --local or --user\n"},
		{[]string{"hooks", "install", "--user", "--local"}, "recollect: hooks install: choose one of --project DIR, --local or --user\n"},
		{[]string{"hooks", "install", "--project", filepath.Join(proj, "nope")}, "recollect: hooks install: --project " + filepath.Join(proj, "nope") + " is not a directory; give the project's root\n"},
	} {
		_, stderr, code := runApp(t, map[string]string{"HOME": home}, c.args...)
		if code != 2 || stderr != c.msg {
			t.Errorf("%v: exit %d, %q; want 2, %q", c.args, code, stderr, c.msg)
		}
	}
}

func TestServicePrint(t *testing.T) {
	data := t.TempDir()
	out, _, code := runApp(t, nil, "service", "print", "--data", data)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	bin := thisBinary(t)
	for _, want := range []string{
		"ExecStart=" + bin + " daemon --data " + data,
		"<string>" + bin + "</string>",
		"<string>" + data + "</string>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "EnvironmentFile") {
		t.Errorf("a SQLite store's unit reads an environment file:\n%s", out)
	}
	// A PostgreSQL store's units read the URL from a file under the
	// user's config directory, and the note says how to write it.
	cfg := config.Default()
	cfg.Storage = config.Storage{Provider: "postgres", Postgres: config.PostgresStorage{URLEnv: "TEAM_URL"}}
	if err := config.Write(data, cfg); err != nil {
		t.Fatal(err)
	}
	xdg := t.TempDir()
	out, _, code = runApp(t, map[string]string{"XDG_CONFIG_HOME": xdg}, "service", "print", "--data", data)
	envFile := filepath.Join(xdg, "recollect", "postgres.env")
	for _, want := range []string{
		"needs $TEAM_URL, which a user\n# service does not inherit",
		"printf \"TEAM_URL='%s'\\n\" \"$TEAM_URL\" > '" + envFile + "'",
		"EnvironmentFile=" + envFile + "\n",
		"<string>set -a; . &#39;" + envFile + "&#39;; exec",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("postgres store: exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
}

// TestHooksInstallLocal: --local writes the project's settings.local.json,
// which Claude Code keeps out of git, says so, and leaves the shared
// settings.json alone.
func TestHooksInstallLocal(t *testing.T) {
	proj, data := t.TempDir(), t.TempDir()
	local := filepath.Join(proj, ".claude", "settings.local.json")
	out, stderr, code := runApp(t, nil, "hooks", "install", "--local", "--project", proj, "--data", data)
	want := "recollect hooks in " + local + " (this machine's settings for the project, which Claude Code keeps out of git): PreCompact installed, SessionStart installed (new file)\n"
	if code != 0 || out != want {
		t.Fatalf("--local: exit %d, %q %q\nwant %q", code, out, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(proj, ".claude", "settings.json")); !os.IsNotExist(err) {
		t.Errorf("--local touched the shared settings.json: %v", err)
	}
	raw, err := os.ReadFile(local)
	if err != nil || !strings.Contains(string(raw), install.NotifyCommand(thisBinary(t), data)) {
		t.Fatalf("settings.local.json: %v\n%s", err, raw)
	}
}

// TestHooksInstallKeepsEveryHookOnOneStore: re-installing with another
// --data moves UserPromptSubmit too, though it was not asked for this time,
// and adds it nowhere it was not.
func TestHooksInstallKeepsEveryHookOnOneStore(t *testing.T) {
	proj, first, second := t.TempDir(), t.TempDir(), t.TempDir()
	if _, stderr, code := runApp(t, nil, "hooks", "install", "--local", "--project", proj, "--prompt", "--data", first); code != 0 {
		t.Fatalf("first install: %s", stderr)
	}
	out, stderr, code := runApp(t, nil, "hooks", "install", "--local", "--project", proj, "--data", second)
	if code != 0 || !strings.Contains(out, "PreCompact updated, SessionStart updated, UserPromptSubmit updated (backup: ") {
		t.Fatalf("second install: exit %d, %q %q", code, out, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(proj, ".claude", "settings.local.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), first) || strings.Count(string(raw), second) != 3 {
		t.Fatalf("hooks left on two stores:\n%s", raw)
	}
	other := t.TempDir()
	out, _, _ = runApp(t, nil, "hooks", "install", "--local", "--project", other, "--data", second)
	if strings.Contains(out, "UserPromptSubmit") {
		t.Fatalf("an install without --prompt added or named UserPromptSubmit: %q", out)
	}
}

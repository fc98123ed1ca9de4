package install_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/install"
	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/store/sqlite"
	"github.com/recollect/recollect/store/storetest"
)

// The repository's marketplace and the plugin it lists.
const (
	repoRoot   = "../.."
	pluginRoot = "../../hooks/plugin/recollect"
)

// kebab is the name rule of the plugin and marketplace references: lowercase
// letters and digits in hyphen-separated words, starting with a letter.
var kebab = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// semver is MAJOR.MINOR.PATCH with an optional pre-release.
var semver = regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestMarketplaceManifest checks .claude-plugin/marketplace.json against the
// marketplace reference: name (kebab-case, not reserved), owner.name, and
// plugin entries with a name and a relative source ("./…") that holds a
// plugin of that name.
func TestMarketplaceManifest(t *testing.T) {
	var m struct {
		Name  *string `json:"name"`
		Owner *struct {
			Name *string `json:"name"`
		} `json:"owner"`
		Plugins []struct {
			Name   *string `json:"name"`
			Source any     `json:"source"`
		} `json:"plugins"`
	}
	readJSON(t, filepath.Join(repoRoot, ".claude-plugin", "marketplace.json"), &m)
	if m.Name == nil || !kebab.MatchString(*m.Name) {
		t.Errorf("marketplace name %v: required, kebab-case", m.Name)
	}
	reserved := []string{"claude-code-marketplace", "claude-code-plugins", "claude-plugins-official", "anthropic-marketplace", "anthropic-plugins", "agent-skills"}
	for _, r := range reserved {
		if m.Name != nil && *m.Name == r {
			t.Errorf("marketplace name %q is reserved", r)
		}
	}
	if m.Owner == nil || m.Owner.Name == nil || *m.Owner.Name == "" {
		t.Error("owner.name is required")
	}
	if len(m.Plugins) != 1 {
		t.Fatalf("%d plugin entries, want the one recollect plugin", len(m.Plugins))
	}
	p := m.Plugins[0]
	src, ok := p.Source.(string)
	if p.Name == nil || !kebab.MatchString(*p.Name) || !ok || !strings.HasPrefix(src, "./") || strings.Contains(src, "..") {
		t.Fatalf("plugin entry %+v: name (kebab-case) and a relative source ./… inside the marketplace are required", p)
	}
	if got, want := filepath.Clean(filepath.Join(repoRoot, src)), filepath.Clean(pluginRoot); got != want {
		t.Fatalf("source %s resolves to %s, want %s", src, got, want)
	}
	var pj struct {
		Name string `json:"name"`
	}
	readJSON(t, filepath.Join(repoRoot, src, ".claude-plugin", "plugin.json"), &pj)
	if pj.Name != *p.Name {
		t.Errorf("marketplace lists %q, the plugin is named %q", *p.Name, pj.Name)
	}
}

// TestPluginManifests checks the plugin against the manifest reference:
// plugin.json's required name (kebab-case), a semantic version, an author
// object with a name; only plugin.json inside .claude-plugin/; hooks.json
// with known events and command hooks, exactly what install.Hooks describes;
// and .mcp.json naming the wrapper, which exists and is executable.
func TestPluginManifests(t *testing.T) {
	var pj struct {
		Name    *string `json:"name"`
		Version string  `json:"version"`
		Author  *struct {
			Name string `json:"name"`
		} `json:"author"`
		Description string `json:"description"`
	}
	readJSON(t, filepath.Join(pluginRoot, ".claude-plugin", "plugin.json"), &pj)
	if pj.Name == nil || !kebab.MatchString(*pj.Name) {
		t.Errorf("plugin name %v: required, kebab-case", pj.Name)
	}
	if pj.Version != "" && !semver.MatchString(pj.Version) {
		t.Errorf("version %q is not MAJOR.MINOR.PATCH", pj.Version)
	}
	if pj.Author != nil && pj.Author.Name == "" {
		t.Error("author is an object with a name")
	}
	entries, err := os.ReadDir(filepath.Join(pluginRoot, ".claude-plugin"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "plugin.json" {
			t.Errorf(".claude-plugin/%s: only plugin.json belongs there; components go at the plugin root", e.Name())
		}
	}

	hooksPath := filepath.Join(pluginRoot, "hooks", "hooks.json")
	data, err := os.ReadFile(hooksPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, install.PluginHooksJSON()) {
		t.Fatalf("%s differs from install.PluginHooksJSON(); rewrite it from that function:\n%s", hooksPath, install.PluginHooksJSON())
	}
	var hj struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type    string  `json:"type"`
				Command string  `json:"command"`
				Timeout float64 `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	readJSON(t, hooksPath, &hj)
	known := map[string]bool{"PreToolUse": true, "PostToolUse": true, "Notification": true, "UserPromptSubmit": true, "Stop": true,
		"SubagentStop": true, "PreCompact": true, "SessionStart": true, "SessionEnd": true}
	for _, want := range []string{"PreCompact", "SessionStart", "UserPromptSubmit"} {
		if len(hj.Hooks[want]) == 0 {
			t.Errorf("hooks.json has no %s hook", want)
		}
	}
	for event, groups := range hj.Hooks {
		if !known[event] {
			t.Errorf("hooks.json: unknown event %q", event)
		}
		for _, g := range groups {
			if len(g.Hooks) == 0 {
				t.Errorf("%s: a matcher group without hooks", event)
			}
			for _, h := range g.Hooks {
				if h.Type != "command" || h.Command == "" || h.Timeout <= 0 {
					t.Errorf("%s: hook %+v needs type command, a command and a positive timeout", event, h)
				}
				if !strings.Contains(h.Command, "${CLAUDE_PLUGIN_ROOT}/") {
					t.Errorf("%s: %q does not run from the plugin root", event, h.Command)
				}
			}
		}
	}
	if g := hj.Hooks["SessionStart"]; len(g) > 0 && (g[0].Matcher == nil || *g[0].Matcher != "startup|resume|clear|compact") {
		t.Errorf("SessionStart matcher %v, want startup|resume|clear|compact", g[0].Matcher)
	}

	var mcp struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	readJSON(t, filepath.Join(pluginRoot, ".mcp.json"), &mcp)
	srv, ok := mcp.MCPServers["recollect"]
	if !ok || srv.Command != "${CLAUDE_PLUGIN_ROOT}/"+install.PluginWrapper || len(srv.Args) != 1 || srv.Args[0] != "mcp" {
		t.Fatalf(".mcp.json: %+v, want recollect running the wrapper with mcp", mcp)
	}
	fi, err := os.Stat(filepath.Join(pluginRoot, install.PluginWrapper))
	if err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("the wrapper %s must exist and be executable: %v", install.PluginWrapper, err)
	}
}

// pluginCommand is one hook's command from the plugin's hooks.json.
func pluginCommand(t *testing.T, event string) string {
	t.Helper()
	var hj struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	readJSON(t, filepath.Join(pluginRoot, "hooks", "hooks.json"), &hj)
	return hj.Hooks[event][0].Hooks[0].Command
}

// runHook runs a hook command the way Claude Code does: through the shell,
// with CLAUDE_PLUGIN_ROOT set, the payload on stdin, in the project's cwd.
func runHook(t *testing.T, command, payload, cwd string, env []string) (stdout, stderr string, code int) {
	t.Helper()
	stdout, stderr, code, err := execHook(command, payload, cwd, env)
	if err != nil {
		t.Fatal(err)
	}
	return stdout, stderr, code
}

// execHook is runHook without a *testing.T, for goroutines.
func execHook(command, payload, cwd string, env []string) (stdout, stderr string, code int, err error) {
	root, err := filepath.Abs(pluginRoot)
	if err != nil {
		return "", "", 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Dir = cwd
	cmd.Env = append([]string{"CLAUDE_PLUGIN_ROOT=" + root}, env...)
	cmd.Stdin = strings.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode(), nil
	}
	if err != nil {
		return "", "", 0, fmt.Errorf("run %s: %w", command, err)
	}
	return out.String(), errb.String(), 0, nil
}

// contextOf decodes a context hook's stdout.
func contextOf(t *testing.T, out string) string {
	t.Helper()
	var v struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not hook JSON: %v: %q", err, out)
	}
	return v.HookSpecificOutput.AdditionalContext
}

// TestPluginHooksRun runs every hook command of the plugin, with the
// payloads Claude Code writes, against the built binaries and a running
// daemon: PreCompact starts the consolidation of the session, SessionStart
// after the compaction waits for it and puts what it learned first, and
// UserPromptSubmit adds a relevant fact once context.prompt is on; the
// daemon answers every context hook.
func TestPluginHooksRun(t *testing.T) {
	bin := testbin.Binary(t)
	binDir := filepath.Dir(bin)
	project := t.TempDir()
	data := filepath.Join(project, ".recollect") // found from the session's cwd, as a project store
	env := []string{"RECOLLECT_BIN_DIR=" + binDir, "HOME=" + t.TempDir(), "PATH=/usr/bin:/bin"}
	cli := func(stdin string, args ...string) {
		t.Helper()
		cmd := exec.Command(bin, append(args, "--data", data)...)
		cmd.Env = env // the same user as the hooks: approvals live in HOME
		cmd.Stdin = strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("recollect %v: %v\n%s", args, err, out)
		}
	}
	cli("", "init", "--yes")
	cli("We use Postgres 16 as the database for the Atlas project.", "record", "--session-id", "s1")

	daemon := exec.Command(bin, "daemon", "--data", data)
	daemon.Env = env
	var daemonErr bytes.Buffer
	daemon.Stderr = &daemonErr
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		daemon.Process.Signal(syscall.SIGTERM)
		daemon.Wait()
	})
	sock := notice.SocketPath(data)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("daemon stderr:\n%s", daemonErr.String())
		}
	})
	storetest.Eventually(t, "the daemon's start run", func() bool {
		resp, err := control.Send(context.Background(), sock, notice.Request{Op: notice.OpStatus})
		return err == nil && resp.Status != nil && resp.Status.Runs["daemon-start"] == 1 && !resp.Status.Running && !resp.Status.Pending
	})

	setContext := func(key string, value any) {
		t.Helper()
		cfg := filepath.Join(data, "config.json")
		raw, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		doc["context"].(map[string]any)[key] = value
		raw, _ = json.Marshal(doc)
		if err := os.WriteFile(cfg, raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	// Something said since the last run, then compaction, while another
	// writer holds the store so that the run cannot finish yet.
	cli("The nightly backup of Atlas runs at three in the morning.", "record", "--session-id", "s1")
	holder, err := sqlite.Open(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	lock, err := holder.BeginTx(context.Background(), nil) // BEGIN IMMEDIATE: the write lock
	if err != nil {
		t.Fatal(err)
	}
	pre := `{"session_id":"s1","transcript_path":"` + filepath.Join(project, "s1.jsonl") + `","cwd":"` + project +
		`","permission_mode":"default","hook_event_name":"PreCompact","trigger":"auto","custom_instructions":""}`
	out, errOut, code := runHook(t, pluginCommand(t, "PreCompact"), pre, project, env)
	if code != 0 || out != "" || errOut != "" {
		t.Fatalf("PreCompact: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	start := `{"session_id":"s1","transcript_path":"` + filepath.Join(project, "s1.jsonl") + `","cwd":"` + project +
		`","hook_event_name":"SessionStart","source":"compact"}`

	// A short wait runs out: the context says so.
	setContext("compact_wait", "200ms")
	out, errOut, code = runHook(t, pluginCommand(t, "SessionStart"), start, project, env)
	if text := contextOf(t, out); code != 0 || errOut != "" || !strings.Contains(text, "Note: knowledge from the part just compacted is still being consolidated") {
		t.Fatalf("SessionStart with the run held: exit %d, stderr %q, context:\n%s", code, errOut, text)
	}

	// A long enough wait sees the run end (the lock goes while the hook
	// waits) and puts what it learned first.
	setContext("compact_wait", "8s")
	type result struct {
		out, errOut string
		code        int
		err         error
	}
	done := make(chan result, 1)
	startCmd := pluginCommand(t, "SessionStart")
	go func() {
		out, errOut, code, err := execHook(startCmd, start, project, env)
		done <- result{out, errOut, code, err}
	}()
	storetest.Eventually(t, "the SessionStart hook's wait held by the daemon", func() bool {
		resp, err := control.Send(context.Background(), sock, notice.Request{Op: notice.OpStatus})
		return err == nil && resp.Status != nil && resp.Status.Waiting == 1
	})
	lock.Rollback()
	r := <-done
	if r.err != nil || r.code != 0 || r.errOut != "" {
		t.Fatalf("SessionStart: %v, exit %d, stderr %q", r.err, r.code, r.errOut)
	}
	text := contextOf(t, r.out)
	learned, _, _ := strings.Cut(text, "## Key facts")
	if !strings.Contains(learned, "## Learned in this session before the compaction") || !strings.Contains(learned, "nightly backup of Atlas") ||
		strings.Contains(text, "Note:") {
		t.Fatalf("SessionStart after compaction did not wait for the run or put its fact first:\n%s", text)
	}

	prompt := `{"session_id":"s1","transcript_path":"` + filepath.Join(project, "s1.jsonl") + `","cwd":"` + project +
		`","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"when does the nightly backup of Atlas run?"}`
	if out, errOut, code = runHook(t, pluginCommand(t, "UserPromptSubmit"), prompt, project, env); code != 0 || out != "" || errOut != "" {
		t.Fatalf("UserPromptSubmit while off: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	setContext("prompt", true)
	out, errOut, code = runHook(t, pluginCommand(t, "UserPromptSubmit"), prompt, project, env)
	if code != 0 || errOut != "" || !strings.Contains(contextOf(t, out), "nightly backup of Atlas") {
		t.Fatalf("UserPromptSubmit: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
	// Every context hook went through recollect-notify to the daemon.
	resp, err := control.Send(context.Background(), sock, notice.Request{Op: notice.OpStatus})
	if err != nil || resp.Status.Answered != 4 {
		t.Fatalf("status %+v, %v; want the daemon to have answered the 4 context hooks", resp.Status, err)
	}
}

// TestPluginWithoutBinaries: with no recollect anywhere the wrapper looks,
// every hook exits 0 and says how to install it; SessionStart also as a
// message Claude Code shows the user; the MCP server fails with status 1.
func TestPluginWithoutBinaries(t *testing.T) {
	empty := t.TempDir()
	env := []string{"HOME=" + empty, "PATH=/usr/bin:/bin", "RECOLLECT_BIN_DIR=" + empty}
	for _, event := range []string{"PreCompact", "SessionStart", "UserPromptSubmit"} {
		out, errOut, code := runHook(t, pluginCommand(t, event), `{"hook_event_name":"`+event+`","session_id":"s1"}`, empty, env)
		if code != 0 || !strings.Contains(errOut, "go install -tags sqlite_fts5 github.com/recollect/recollect/cmd/...@latest") {
			t.Errorf("%s without binaries: exit %d, stderr %q", event, code, errOut)
		}
		if event != "SessionStart" {
			if out != "" {
				t.Errorf("%s printed %q on stdout", event, out)
			}
			continue
		}
		var v struct {
			SystemMessage string `json:"systemMessage"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil || !strings.Contains(v.SystemMessage, "recollect is not installed") {
			t.Errorf("SessionStart without binaries: stdout %q (%v), want a systemMessage", out, err)
		}
	}
	root, _ := filepath.Abs(pluginRoot)
	_, errOut, code := runHook(t, `"`+filepath.Join(root, install.PluginWrapper)+`" mcp`, "", empty, env)
	if code != 1 || !strings.Contains(errOut, "recollect is not installed") {
		t.Errorf("mcp without binaries: exit %d, stderr %q", code, errOut)
	}
}

// claudeTranscript writes a real Claude Code transcript (the claude-code-log
// sample, see fixtures/transcripts/SOURCES.md) into home's projects folder
// as recorded in project, with one decision said by the user appended.
func claudeTranscript(t *testing.T, home, project string) {
	t.Helper()
	raw, err := os.ReadFile("../../fixtures/transcripts/claude-code/claude-code-log/-Users-dain-workspace-claude-code-log-sample/326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	data := strings.ReplaceAll(string(raw), `"cwd":"/Users/dain/workspace/claude-code-log"`, `"cwd":"`+project+`"`)
	data += `{"type":"user","sessionId":"326189cf-5676-4237-8cde-1ce80aae4a9f","cwd":"` + project + `","timestamp":"2026-03-01T10:00:00.000Z",` +
		`"uuid":"u-atlas","message":{"role":"user","content":"We decided to use PostgreSQL 16 as the database for the Atlas project."}}` + "\n"
	folder := strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, project)
	dir := filepath.Join(home, ".claude", "projects", folder)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl"), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestPluginFirstRunGivesMemory: a new user installs the plugin in a
// project whose transcripts exist, and runs no recollect command. The first
// session start makes the store in copy mode for this project (what
// settings shows) and says so once; the plugin's MCP server copies and
// consolidates; search then finds what was said, and the next session
// start puts it in the context.
func TestPluginFirstRunGivesMemory(t *testing.T) {
	bin := testbin.Binary(t)
	home := t.TempDir()
	project, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	claudeTranscript(t, home, project)
	env := []string{"RECOLLECT_BIN_DIR=" + filepath.Dir(bin), "HOME=" + home, "PATH=/usr/bin:/bin"}
	data := filepath.Join(home, ".recollect")
	start := `{"session_id":"s1","cwd":"` + project + `","hook_event_name":"SessionStart","source":"startup"}`

	out, errOut, code := runHook(t, pluginCommand(t, "SessionStart"), start, project, env)
	var first struct {
		SystemMessage string `json:"systemMessage"`
	}
	if err := json.Unmarshal([]byte(out), &first); code != 0 || errOut != "" || err != nil {
		t.Fatalf("first SessionStart: exit %d, stderr %q, stdout %q (%v)", code, errOut, out, err)
	}
	want := "recollect: first run — made the memory store " + data + " in copy mode: it copies this project's conversations (" + project +
		") from claude-code (1 transcript) and consolidates them with provider heuristic, starting now in the background. " +
		"See or change it with: recollect settings --data " + data + " (or recollect init --force --data " + data + " for the walk-through)."
	if first.SystemMessage != want {
		t.Fatalf("first SessionStart message:\n got %s\nwant %s", first.SystemMessage, want)
	}
	cli := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append(args, "--data", data)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("recollect %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if got := cli("settings", "get", "sources"); !strings.Contains(got, `"kind": "claude-code"`) || !strings.Contains(got, `"cwd": "`+project+`"`) {
		t.Errorf("settings get sources: %s", got)
	}
	if got := strings.TrimSpace(cli("settings", "get", "mode")); got != "copy" {
		t.Errorf("settings get mode: %q, want copy", got)
	}
	if out, _, _ := runHook(t, pluginCommand(t, "SessionStart"), start, project, env); strings.Contains(out, "first run") {
		t.Fatalf("the first-run message was shown twice: %s", out)
	}

	// The plugin's MCP server, as Claude Code starts it in the project.
	root, _ := filepath.Abs(pluginRoot)
	mcp := exec.Command(filepath.Join(root, install.PluginWrapper), "mcp")
	mcp.Dir = project
	mcp.Env = env
	stdin, err := mcp.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var mcpErr bytes.Buffer
	mcp.Stderr = &mcpErr
	if err := mcp.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		mcp.Process.Signal(syscall.SIGTERM)
		mcp.Wait()
	}()
	search := func(q string) string {
		cmd := exec.Command(bin, "search", q, "--data", data)
		cmd.Env = env
		out, _ := cmd.CombinedOutput() // no store until the server has opened it
		return string(out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("mcp stderr:\n%s", mcpErr.String())
		}
	})
	storetest.Eventually(t, "search to find the transcript's decision", func() bool {
		return strings.Contains(search("Atlas database"), "PostgreSQL 16 as the database for the Atlas project")
	})
	if got := cli("search", "pytest import"); !strings.Contains(got, "pytest") {
		t.Errorf("search does not reach the copied conversation:\n%s", got)
	}
	out, errOut, code = runHook(t, pluginCommand(t, "SessionStart"), start, project, env)
	if code != 0 || errOut != "" || !strings.Contains(contextOf(t, out), "PostgreSQL 16 as the database for the Atlas project") {
		t.Fatalf("SessionStart after the first run: exit %d, stderr %q, stdout %s", code, errOut, out)
	}
}

// TestInstallHintNamesThisModule: the wrapper's install hint installs from
// go.mod's module path with go.mod's Go version, and README says that
// module path is this repository.
func TestInstallHintNamesThisModule(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(mod)
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if module == nil || goVersion == nil {
		t.Fatal("go.mod has no module or go line")
	}
	wrapper, err := os.ReadFile(filepath.Join(pluginRoot, install.PluginWrapper))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go install -tags sqlite_fts5 " + string(module[1]) + "/cmd/...@latest", "Go >= " + string(goVersion[1]) + " "} {
		if !bytes.Contains(wrapper, []byte(want)) {
			t.Errorf("the wrapper's install hint lacks %q", want)
		}
	}
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("This repository is the Go module `"+string(module[1])+"`")) {
		t.Errorf("README does not connect the module path %s to this repository", module[1])
	}
}

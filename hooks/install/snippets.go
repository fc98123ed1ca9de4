package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// HookTimeoutSeconds is the timeout written into the PreCompact entry.
// notify itself never blocks for more than a second.
const HookTimeoutSeconds = 5

// NotifyBinaryName is the file name of the hook binary (cmd/recollect-notify),
// installed beside recollect.
const NotifyBinaryName = "recollect-notify"

// HookBinary returns what a hook should run for the recollect binary at
// recollectBinary: the recollect-notify beside it when there is one (it
// starts several times faster), else recollectBinary itself, with ok false.
func HookBinary(recollectBinary string) (bin string, ok bool) {
	sibling := filepath.Join(filepath.Dir(recollectBinary), NotifyBinaryName)
	if fi, err := os.Stat(sibling); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
		return sibling, true
	}
	return recollectBinary, false
}

// NotifyCommand is the shell command a PreCompact hook runs: binary is
// either recollect-notify (`recollect-notify compaction`) or recollect
// (`recollect notify compaction`).
func NotifyCommand(binary, dataDir string) string {
	if filepath.Base(binary) == NotifyBinaryName {
		return fmt.Sprintf("%s compaction --data %s", commandArg(binary), commandArg(dataDir))
	}
	return fmt.Sprintf("%s notify compaction --data %s", commandArg(binary), commandArg(dataDir))
}

// PreCompactEntry is the value of hooks.PreCompact in Claude Code's
// settings.json that runs notify compaction.
func PreCompactEntry(binary, dataDir string) []any {
	return []any{map[string]any{
		"matcher": "",
		"hooks": []any{map[string]any{
			"type":    "command",
			"command": NotifyCommand(binary, dataDir),
			"timeout": HookTimeoutSeconds,
		}},
	}}
}

// HookSnippet is the settings.json fragment with the hooks `hooks install`
// writes by default for the hook binary at binary (recollect-notify, or
// recollect): PreCompact notify and the SessionStart context hook, which
// the recollect beside binary runs.
func HookSnippet(binary, dataDir string) string {
	return SettingsSnippet(SettingsEntries(RecollectBeside(binary), binary, dataDir, false))
}

// SettingsSnippet is the settings.json fragment holding entries.
func SettingsSnippet(entries []SettingsEntry) string {
	var events bytes.Buffer
	events.WriteByte('{')
	for i, e := range entries {
		if i > 0 {
			events.WriteByte(',')
		}
		key, _ := json.Marshal(e.Event)
		list, _ := json.Marshal([]group{{Matcher: e.Matcher, Hooks: []command{{Type: "command", Command: e.Command, Timeout: e.Timeout}}}})
		events.Write(key)
		events.WriteByte(':')
		events.Write(list)
	}
	events.WriteByte('}')
	top, _ := json.Marshal(struct {
		Hooks json.RawMessage `json:"hooks"`
	}{events.Bytes()})
	var b bytes.Buffer
	json.Indent(&b, top, "", "  ")
	return b.String()
}

// RecollectBeside is the recollect binary that goes with the hook binary
// at binary: recollect in the same directory when binary is
// recollect-notify, else binary itself.
func RecollectBeside(binary string) string {
	if filepath.Base(binary) == NotifyBinaryName {
		return filepath.Join(filepath.Dir(binary), "recollect")
	}
	return binary
}

// MCPSnippet is the MCP client configuration that starts recollect's server.
func MCPSnippet(binary, dataDir string) string { return MCPSnippetNamed("recollect", binary, dataDir) }

// MCPSnippetNamed is MCPSnippet under the server name name, so two stores
// added to one client do not replace each other.
func MCPSnippetNamed(name, binary, dataDir string) string {
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{
		name: map[string]any{"command": binary, "args": []string{"mcp", "--data", dataDir}},
	}}, "", "  ")
	return string(b)
}

// The hook events recollect offers for Claude Code.
const (
	EventPreCompact       = "PreCompact"
	EventSessionStart     = "SessionStart"
	EventUserPromptSubmit = "UserPromptSubmit"
)

// Hook is one entry recollect offers for Claude Code's hooks: the event,
// its matcher, what it runs (Verb, the plugin wrapper's argument) and how
// long Claude Code may let it run. The plugin's hooks.json and `hooks
// install` are both made from Hooks, so they never disagree.
type Hook struct {
	Event   string
	Matcher string
	Verb    string
	// Timeout is in seconds. SessionStart's covers the longest wait for a
	// running consolidation (context.compact_wait, at most 10 s).
	Timeout int
	// OptIn marks the hook that adds to every prompt: installed only when
	// asked for, and a no-op until context.prompt is on.
	OptIn bool
}

// Hooks are the entries, in the order they are written.
var Hooks = []Hook{
	{Event: EventPreCompact, Matcher: "", Verb: "notify", Timeout: HookTimeoutSeconds},
	{Event: EventSessionStart, Matcher: "startup|resume|clear|compact", Verb: "session-start", Timeout: 15},
	{Event: EventUserPromptSubmit, Matcher: "", Verb: "user-prompt", Timeout: 5, OptIn: true},
}

// PluginWrapper is the plugin's command, relative to its root: a POSIX sh
// script that finds the binaries and runs the verb it is given.
const PluginWrapper = "bin/recollect-run"

// PluginHooksJSON is the plugin's hooks/hooks.json: every hook, run through
// the wrapper under ${CLAUDE_PLUGIN_ROOT}.
func PluginHooksJSON() []byte {
	var events bytes.Buffer
	events.WriteByte('{')
	for i, h := range Hooks {
		if i > 0 {
			events.WriteByte(',')
		}
		cmd := `"${CLAUDE_PLUGIN_ROOT}/` + PluginWrapper + `" ` + h.Verb
		key, _ := json.Marshal(h.Event)
		entry, _ := json.Marshal([]group{{Matcher: h.Matcher, Hooks: []command{{Type: "command", Command: cmd, Timeout: h.Timeout}}}})
		events.Write(key)
		events.WriteByte(':')
		events.Write(entry)
	}
	events.WriteByte('}')
	top, _ := json.Marshal(struct {
		Description string          `json:"description"`
		Hooks       json.RawMessage `json:"hooks"`
	}{"recollect: consolidate before compaction, memory at session start, and (with context.prompt on) memory relevant to each prompt", events.Bytes()})
	var b bytes.Buffer
	json.Indent(&b, top, "", "  ")
	b.WriteByte('\n')
	return b.Bytes()
}

// group is one matcher group of an event's hook list, as Claude Code's
// settings and a plugin's hooks.json write it.
type group struct {
	Matcher string    `json:"matcher"`
	Hooks   []command `json:"hooks"`
}

// command is one command hook of a group.
type command struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// ContextCommand is the shell command of a context hook (verb
// session-start or user-prompt) for binary: recollect-notify (`recollect-notify
// VERB`, answered by the running daemon) or recollect (`recollect hooks VERB`).
func ContextCommand(binary, verb, dataDir string) string {
	if filepath.Base(binary) == NotifyBinaryName {
		return fmt.Sprintf("%s %s --data %s", commandArg(binary), verb, commandArg(dataDir))
	}
	return fmt.Sprintf("%s hooks %s --data %s", commandArg(binary), verb, commandArg(dataDir))
}

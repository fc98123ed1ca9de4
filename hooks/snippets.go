package hooks

import (
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
		return fmt.Sprintf("%s compaction --data %s", shellQuote(binary), shellQuote(dataDir))
	}
	return fmt.Sprintf("%s notify compaction --data %s", shellQuote(binary), shellQuote(dataDir))
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

// HookSnippet is the settings.json fragment with the PreCompact hook.
func HookSnippet(binary, dataDir string) string {
	b, _ := json.MarshalIndent(map[string]any{"hooks": map[string]any{"PreCompact": PreCompactEntry(binary, dataDir)}}, "", "  ")
	return string(b)
}

// MCPSnippet is the MCP client configuration that starts recollect's server.
func MCPSnippet(binary, dataDir string) string {
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{
		"recollect": map[string]any{"command": binary, "args": []string{"mcp", "--data", dataDir}},
	}}, "", "  ")
	return string(b)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '~' || r == '+' || r == '=') {
			safe = false
			break
		}
	}
	if safe && s != "" {
		return s
	}
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
		} else {
			out += string(r)
		}
	}
	return out + "'"
}

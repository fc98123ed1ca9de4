package hooks

import (
	"encoding/json"
	"fmt"
)

// HookTimeoutSeconds is the timeout written into the PreCompact entry.
// notify itself never blocks for more than a second.
const HookTimeoutSeconds = 5

// NotifyCommand is the shell command a PreCompact hook runs.
func NotifyCommand(binary, dataDir string) string {
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

package payload

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzParse: any bytes on a hook's stdin give a payload with an
// event name, ErrNotPayload, or one line that says what to do; never a
// panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"hook_event_name":"PreCompact","session_id":"s","transcript_path":"/t.jsonl","cwd":"/w","trigger":"auto","custom_instructions":""}`,
		`{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"I live in Lisbon"}`,
		`{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"a"}}`,
		`{"hook_event_name":"Stop","last_assistant_message":"done"}`,
		`{"hook_event_name":""}`, `{"hook_event_name":5}`, `{"hook_event_name":"X","prompt":{}}`, `{"hook_event_name"`,
		"plain text", "", "  \n", `[1,2]`, "{\"hook_event_name\":\"X\"}\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		switch {
		case err == nil:
			if p.HookEventName == "" {
				t.Fatalf("payload without event name from %q", data)
			}
			if !bytes.Equal(p.Raw, bytes.TrimSpace(data)) {
				t.Fatalf("Raw %q is not the trimmed input %q", p.Raw, data)
			}
		case errors.Is(err, ErrNotPayload):
		default:
			msg := err.Error()
			if !strings.Contains(msg, "pipe the payload exactly as Claude Code wrote it") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q is not one line that says what to do", msg)
			}
		}
	})
}

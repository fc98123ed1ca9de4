// Package payload parses what a Claude Code hook writes to its stdin: the
// JSON object that names the hook's event, session, transcript and the
// event's own fields (Parse, Payload). It stays on the standard library.
package payload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Payload is the JSON object Claude Code writes to a hook's stdin. Only the
// fields recollect uses are named; the rest stay in Raw.
type Payload struct {
	HookEventName  string `json:"hook_event_name"`
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	// Source is set on SessionStart: startup, resume, clear or compact.
	Source string `json:"source"`
	// Prompt is set on UserPromptSubmit.
	Prompt string `json:"prompt"`
	// Message is set on Notification.
	Message string `json:"message"`
	// LastAssistantMessage is set on Stop in newer Claude Code versions.
	LastAssistantMessage string `json:"last_assistant_message"`
	// Trigger and CustomInstructions are set on PreCompact.
	Trigger            string `json:"trigger"`
	CustomInstructions string `json:"custom_instructions"`
	// ToolName, ToolInput and ToolResponse are set on PostToolUse.
	ToolName     string          `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`

	// Raw is the payload exactly as read.
	Raw []byte `json:"-"`
}

// ErrNotPayload means the input is not a hook payload at all (plain text,
// or JSON without hook_event_name).
var ErrNotPayload = errors.New("not a hook payload")

// Parse reads a hook payload. Input that does not look like one
// returns ErrNotPayload; input that names hook_event_name but is not valid
// JSON, or whose fields have the wrong types, returns a descriptive error.
func Parse(data []byte) (Payload, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' || !bytes.Contains(trimmed, []byte(`"hook_event_name"`)) {
		return Payload{}, ErrNotPayload
	}
	var p Payload
	if err := json.Unmarshal(trimmed, &p); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Payload{}, fmt.Errorf("hook payload: field %s: wrong type (got a JSON %s); pipe the payload exactly as Claude Code wrote it", te.Field, te.Value)
		}
		return Payload{}, fmt.Errorf("hook payload: malformed JSON (%v); pipe the payload exactly as Claude Code wrote it", err)
	}
	if p.HookEventName == "" {
		return Payload{}, fmt.Errorf("hook payload: hook_event_name is empty; pipe the payload exactly as Claude Code wrote it")
	}
	p.Raw = trimmed
	return p, nil
}

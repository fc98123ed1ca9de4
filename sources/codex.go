package sources

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// codexLine is the envelope of a Codex CLI rollout line:
// {"timestamp", "type", "payload"}.
type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// codexPayload is the union of the payload shapes the mapping reads:
// session_meta, turn_context, response_item, event_msg and compacted.
type codexPayload struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Cwd       string          `json:"cwd"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Phase     string          `json:"phase"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Status    string          `json:"status"`
	Action    json.RawMessage `json:"action"`
	Message   json.RawMessage `json:"message"`
	Kind      string          `json:"kind"`
	// compacted: the items that replace the history (remote compaction).
	ReplacementHistory []json.RawMessage `json:"replacement_history"`
}

var codexSessionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$`)
})

// codexSession is a rollout's session id: the UUID that ends its file
// name (rollout-<local time>-<uuid>.jsonl, the same as session_meta's id),
// else the file name itself.
func codexSession(path string) string {
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if m := codexSessionRE().FindString(stem); m != "" {
		return strings.ToLower(m)
	}
	return stem
}

// ideRequestMarker starts the typed request inside the prompt the Codex
// IDE extension sends; what comes before it is IDE context.
const ideRequestMarker = "## My request for Codex:"

// mapCodex maps one Codex rollout line. Of the two views Codex records,
// prompts come from event_msg/user_message (what the user typed) and
// everything else from response_item (what the model saw and did); the
// duplicates and bookkeeping are counted as skipped.
func mapCodex(path string, line []byte) (Mapped, error) {
	var l codexLine
	if err := json.Unmarshal(line, &l); err != nil {
		return Mapped{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	m := &mapper{kind: Codex, path: path, rec: &record{SessionID: codexSession(path), Timestamp: l.Timestamp}}
	if len(bytes.TrimSpace(l.Payload)) == 0 && (l.Timestamp == "" || l.Type == "") {
		m.codexLegacy(line)
		return m.out, nil
	}
	var p codexPayload
	if len(bytes.TrimSpace(l.Payload)) > 0 && json.Unmarshal(l.Payload, &p) != nil {
		m.skip("unknown_payload:" + l.Type)
		return m.out, nil
	}
	switch l.Type {
	case "session_meta", "turn_context":
		m.out.Cwd = p.Cwd
		m.skip(l.Type)
	case "response_item":
		m.codexItem(p)
	case "event_msg":
		m.codexEvent(p)
	case "compacted":
		m.codexCompacted(p)
	case "":
		m.skip("unknown:(no type)")
	default:
		m.skip("unknown:" + l.Type)
	}
	return m.out, nil
}

func (m *mapper) codexItem(p codexPayload) {
	switch p.Type {
	case "message":
		switch p.Role {
		case "assistant":
			meta := map[string]any{}
			if p.Phase != "" {
				meta["phase"] = p.Phase
			}
			m.codexText("assistant", codexContentText(p.Content), meta)
		default:
			// User-role items restate the typed prompt (taken from
			// event_msg/user_message) or are injected context
			// (<environment_context>, AGENTS.md); developer items are
			// instructions.
			m.skip("response_item/message:" + p.Role)
		}
	case "function_call":
		var input any = json.RawMessage(p.Arguments)
		if !json.Valid([]byte(p.Arguments)) {
			input = p.Arguments
		}
		m.codexCall(p.Name, p.CallID, input)
	case "custom_tool_call":
		var input any = p.Input
		var s string
		if json.Unmarshal(p.Input, &s) == nil {
			input = s
		}
		m.codexCall(p.Name, p.CallID, input)
	case "local_shell_call":
		m.codexCall("local_shell", p.CallID, p.Action)
	case "web_search_call":
		m.codexCall("web_search", p.CallID, p.Action)
	case "function_call_output", "custom_tool_call_output":
		m.codexOutput(p)
	default:
		// reasoning (a summary of hidden thinking, like Claude Code's
		// thinking blocks), ghost_snapshot (an undo commit), …
		m.skip("response_item/" + p.Type)
	}
}

// codexLegacy maps a line of the rollout format Codex wrote until about
// mid-2025 (0.1x–0.2x): no envelope and no per-line time; a bare header
// line {"id","timestamp","instructions","git"}, {"record_type":"state"}
// lines, and bare response items. With no event_msg/user_message, a
// user-role message item is the typed prompt, except the context Codex
// injects: <environment_context> (which names the working directory —
// the only place this format records it) and the user's instructions.
func (m *mapper) codexLegacy(line []byte) {
	var p codexPayload
	if err := json.Unmarshal(line, &p); err != nil {
		m.skip("unknown_payload:legacy")
		return
	}
	var bare struct {
		RecordType   string          `json:"record_type"`
		Instructions json.RawMessage `json:"instructions"`
		Git          json.RawMessage `json:"git"`
	}
	_ = json.Unmarshal(line, &bare)
	switch {
	case bare.RecordType != "":
		m.skip("legacy/record_type:" + bare.RecordType)
	case p.Type == "" && p.ID != "" && (bare.Instructions != nil || bare.Git != nil):
		m.skip("legacy/header")
	case p.Type == "message" && p.Role == "user":
		text := codexContentText(p.Content)
		if cwd := environmentCwd(text); cwd != "" {
			m.out.Cwd = cwd
		}
		if codexInjected(text) {
			m.skip("legacy/message:user:injected")
			return
		}
		m.codexText("user", text, map[string]any{})
	case p.Type == "":
		m.skip("unknown:(no type)")
	default:
		m.codexItem(p)
	}
}

// codexInjected reports text Codex puts in a user turn itself: the
// environment context, the user's standing instructions and AGENTS.md.
func codexInjected(text string) bool {
	t := strings.TrimSpace(text)
	for _, prefix := range []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions"} {
		if strings.HasPrefix(t, prefix) {
			return true
		}
	}
	return false
}

// environmentCwd is the working directory an <environment_context> block
// names ("Current working directory: /path", or a <cwd> element in later
// builds), "" when text holds none.
func environmentCwd(text string) string {
	i := strings.Index(text, "<environment_context>")
	if i < 0 {
		return ""
	}
	block := text[i:]
	if j := strings.Index(block, "</environment_context>"); j >= 0 {
		block = block[:j]
	}
	if k := strings.Index(block, "Current working directory:"); k >= 0 {
		rest := block[k+len("Current working directory:"):]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[:nl]
		}
		return strings.TrimSpace(rest)
	}
	if k := strings.Index(block, "<cwd>"); k >= 0 {
		rest := block[k+len("<cwd>"):]
		if e := strings.Index(rest, "</cwd>"); e >= 0 {
			return strings.TrimSpace(rest[:e])
		}
	}
	return ""
}

func (m *mapper) codexEvent(p codexPayload) {
	if p.Type != "user_message" {
		// agent_message restates the assistant message item,
		// agent_reasoning the reasoning item; the rest is bookkeeping
		// (token_count, task_started, exec_command_end, …).
		m.skip("event_msg/" + p.Type)
		return
	}
	var text string
	_ = json.Unmarshal(p.Message, &text)
	meta := map[string]any{}
	if i := strings.Index(text, ideRequestMarker); i >= 0 {
		text = strings.TrimSpace(text[i+len(ideRequestMarker):])
		meta["dropped_context"] = []string{"ide_context"}
	}
	m.codexText("user", text, meta)
}

func (m *mapper) codexText(role, text string, meta map[string]any) {
	if strings.TrimSpace(text) == "" {
		m.skip("empty_text")
		return
	}
	m.emit(role, "message", "text", text, "", meta)
}

// codexContentText joins the text parts of a message item's content.
func codexContentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var out []string
	for _, c := range parts {
		if strings.HasSuffix(c.Type, "_text") || c.Type == "text" {
			out = append(out, c.Text)
		}
	}
	return strings.Join(out, "\n")
}

func (m *mapper) codexCall(name, callID string, input any) {
	call := map[string]any{"name": name}
	if input != nil {
		if raw, ok := input.(json.RawMessage); !ok || len(bytes.TrimSpace(raw)) > 0 {
			call["input"] = input
		}
	}
	if callID != "" {
		call["id"] = callID
	}
	content, _ := json.Marshal(call)
	meta := map[string]any{"tool": name}
	if callID != "" {
		meta["tool_use_id"] = callID
	}
	m.emit("assistant", "tool_call", "json", string(content), "", meta)
}

// codexOutput stores a tool's output: a string (plain text, or JSON text
// such as shell's {"output","metadata"}), or content items.
func (m *mapper) codexOutput(p codexPayload) {
	meta := map[string]any{}
	if p.CallID != "" {
		meta["tool_use_id"] = p.CallID
	}
	raw := bytes.TrimSpace(p.Output)
	var content string
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '"':
		_ = json.Unmarshal(raw, &content)
	default:
		if t := codexContentText(raw); t != "" {
			content = t
		} else {
			content = string(raw)
		}
	}
	if strings.TrimSpace(content) == "" {
		m.skip("empty:tool_result")
		return
	}
	ct := "text"
	if looksJSON(content) {
		ct = "json"
	}
	m.emit("tool", "tool_result", ct, content, "", meta)
}

// codexCompacted records the compaction marker, and the summary when
// Codex wrote one in the clear (local compaction; a remote compaction
// keeps it encrypted). The replacement history restates earlier items
// and is only counted.
func (m *mapper) codexCompacted(p codexPayload) {
	meta := map[string]any{"subtype": "compact_boundary"}
	if n := len(p.ReplacementHistory); n > 0 {
		meta["replacement_items"] = n
	}
	m.emit("system", "message", "text", "Conversation compacted", "", meta)
	var summary string
	_ = json.Unmarshal(p.Message, &summary)
	if strings.TrimSpace(summary) != "" {
		m.emit("user", "artifact", "text", summary, "", map[string]any{"compact_summary": true})
	}
}

// codexCounter names a rollout's events by what they say rather than by
// their line: the session (the latest session_meta's id), the digest of
// the line's type and payload, and which occurrence of that payload in
// the session it is. A resumed session's new file restates the old
// session's items under new timestamps (Codex 0.3x); named this way they
// are stored once, whichever file is read first.
type codexCounter struct {
	session string
	occ     map[[32]byte]int64
}

func newCodexCounter(path string) *codexCounter {
	return &codexCounter{session: codexSession(path), occ: map[[32]byte]int64{}}
}

// next counts one line and returns the key prefix of its events, "" for
// a line that is not a rollout line.
func (c *codexCounter) next(line []byte) string {
	var l codexLine
	if json.Unmarshal(line, &l) != nil {
		return ""
	}
	if l.Type == "session_meta" {
		var meta struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(l.Payload, &meta) == nil && meta.ID != "" {
			c.session = meta.ID
		}
	}
	body := bytes.TrimSpace(l.Payload)
	if len(body) == 0 {
		body = bytes.TrimSpace(line) // a legacy line: the item itself, unwrapped
	}
	h := sha256.New()
	h.Write([]byte(l.Type))
	h.Write([]byte{0})
	h.Write(body)
	var digest [32]byte
	h.Sum(digest[:0])
	k := sha256.Sum256(append([]byte(c.session+"\x00"), digest[:]...))
	n := c.occ[k]
	c.occ[k]++
	return fmt.Sprintf("%s/%x/%d", c.session, digest[:16], n)
}

package sources

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/recollect/recollect/store"
)

// Kinds of transcript source.
const (
	ClaudeCode = "claude-code"
	Cursor     = "cursor"
	Codex      = "codex"
	Gemini     = "gemini"
)

// ParentAgent is the speaker of text a parent agent wrote for a subagent:
// in a subagent's transcript the "user" turns are the prompts the parent
// agent sent, never something the person typed. Such text is stored with
// role assistant and this speaker, so no stage takes it for the user's word.
const ParentAgent = "parent agent"

// ErrMalformed marks a line that is not a JSON object.
var ErrMalformed = errors.New("malformed JSON line")

// Mapped is what one transcript line becomes: the events to store and the
// record or block types that were read but deliberately not stored.
type Mapped struct {
	Events  []store.Event
	Skipped []string
	// Cwd is the working directory the line names, if any (the project).
	Cwd string
	// Keys, when set, holds a dedupe key per event ("" for none): an
	// event that can be read again from another line or file (Gemini's
	// re-appended and rewritten messages) is stored once under it.
	Keys []string
}

// record is the union of the Claude Code and Cursor line shapes.
type record struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	Role             string          `json:"role"`
	SessionID        string          `json:"sessionId"`
	Timestamp        string          `json:"timestamp"`
	UUID             string          `json:"uuid"`
	Cwd              string          `json:"cwd"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	IsSidechain      bool            `json:"isSidechain"`
	AgentID          string          `json:"agentId"`
	Message          *message        `json:"message"`
	Content          json.RawMessage `json:"content"`
	CompactMetadata  *struct {
		Trigger   string `json:"trigger"`
		PreTokens int64  `json:"preTokens"`
	} `json:"compactMetadata"`
}

type message struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   *bool           `json:"is_error"`
	Source    *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	} `json:"source"`
}

// droppedTypes are record types read and counted but never stored: they
// are bookkeeping of the agent, not conversation.
var droppedTypes = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"progress": true, "attachment": true, "file-history-snapshot": true, "queue-operation": true,
		"permission-mode": true, "last-prompt": true, "summary": true, "custom-title": true,
		"ai-title": true, "turn_ended": true,
	}
})

// Map turns one transcript line of the given kind into events. The same
// function serves Claude Code and Cursor (kind only switches on Cursor's
// text clean-up), Codex CLI (codex.go) and Gemini CLI's JSONL chats
// (gemini.go). path names the file (session id fallback, source_file).
// A line that is not a JSON object returns an error wrapping ErrMalformed.
func Map(kind, path string, line []byte) (Mapped, error) {
	switch kind {
	case Codex:
		return mapCodex(path, line)
	case Gemini:
		return mapGeminiLine(path, line)
	}
	var rec record
	if err := json.Unmarshal(line, &rec); err != nil {
		return Mapped{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if rec.Type == "" && rec.Role != "" {
		rec.Type = rec.Role // Cursor lines carry only a role
	}
	m := &mapper{kind: kind, path: path, rec: &rec, out: Mapped{Cwd: rec.Cwd}}
	m.run()
	return m.out, nil
}

type mapper struct {
	kind, path string
	rec        *record
	out        Mapped
}

func (m *mapper) run() {
	rec := m.rec
	switch {
	case rec.Type == "user" && rec.IsCompactSummary:
		m.compactSummary()
	case rec.IsMeta && (rec.Type == "user" || rec.Type == "assistant"):
		m.skip("isMeta")
	case rec.Type == "user" || rec.Type == "assistant":
		m.conversation()
	case rec.Type == "system" && rec.Subtype == "compact_boundary":
		m.compactBoundary()
	case rec.Type == "system" && rec.Subtype != "":
		m.skip("system/" + rec.Subtype)
	case droppedTypes()[rec.Type] || rec.Type == "system":
		m.skip(rec.Type)
	case rec.Type == "":
		m.skip("unknown:(no type)")
	default:
		m.skip("unknown:" + rec.Type)
	}
}

func (m *mapper) skip(what string) { m.out.Skipped = append(m.out.Skipped, what) }

// session is the conversation a line belongs to: sessionId, else (absent
// or blank) the file name. A subagent's lines carry the parent's
// sessionId; they become their own conversation under it so they never
// interleave with the parent.
func (m *mapper) session() string {
	id := m.rec.SessionID
	if strings.TrimSpace(id) == "" {
		id = strings.TrimSuffix(filepath.Base(m.path), ".jsonl")
	}
	if m.rec.IsSidechain && m.rec.AgentID != "" {
		id += "/agent-" + m.rec.AgentID
	}
	return id
}

// subagent reports whether the line belongs to a subagent's transcript:
// Claude Code marks every such line isSidechain; Cursor keeps subagent
// threads under a subagents/ folder.
func (m *mapper) subagent() bool {
	if m.rec.IsSidechain {
		return true
	}
	return strings.Contains(filepath.ToSlash(m.path), "/subagents/")
}

func (m *mapper) occurredAt() *time.Time {
	if m.rec.Timestamp == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, m.rec.Timestamp)
	if err != nil {
		return nil
	}
	t = t.UTC()
	return &t
}

// emit appends one event with the line's common fields and metadata.
func (m *mapper) emit(role, eventType, contentType, content, ref string, meta map[string]any) {
	m.emitAs(role, "", eventType, contentType, content, ref, meta)
}

// emitAs is emit with a speaker.
func (m *mapper) emitAs(role, speaker, eventType, contentType, content, ref string, meta map[string]any) {
	if m.rec.UUID != "" {
		meta["uuid"] = m.rec.UUID
	}
	if m.rec.IsSidechain {
		meta["sidechain"] = true
	}
	md, _ := json.Marshal(meta) // maps of strings, numbers and raw JSON always encode
	m.out.Events = append(m.out.Events, store.Event{
		SessionID: m.session(), Source: m.kind, SourceFile: m.path, Role: role, Speaker: speaker,
		// Raw JSON (a tool's input) keeps its bytes; a stray invalid byte
		// becomes U+FFFD, as json.Unmarshal does for every decoded string.
		EventType: eventType, ContentType: contentType, Content: strings.ToValidUTF8(content, "\uFFFD"), ContentRef: ref,
		Metadata: md, OccurredAt: m.occurredAt(),
	})
}

func (m *mapper) compactSummary() {
	text := m.textOf(m.messageContent())
	if strings.TrimSpace(text) == "" {
		m.skip("empty:compact_summary")
		return
	}
	m.emit("user", "artifact", "text", text, "", map[string]any{"compact_summary": true})
}

func (m *mapper) compactBoundary() {
	meta := map[string]any{"subtype": "compact_boundary"}
	if cm := m.rec.CompactMetadata; cm != nil {
		meta["trigger"] = cm.Trigger
		meta["pre_tokens"] = cm.PreTokens
	}
	text := ""
	_ = json.Unmarshal(m.rec.Content, &text)
	if strings.TrimSpace(text) == "" {
		text = "Conversation compacted"
	}
	m.emit("system", "message", "text", text, "", meta)
}

func (m *mapper) messageContent() json.RawMessage {
	if m.rec.Message == nil {
		return nil
	}
	return m.rec.Message.Content
}

// textOf reads content that is a string or a list of text blocks.
func (m *mapper) textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []block
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// conversation maps a user or assistant record block by block.
func (m *mapper) conversation() {
	role := m.rec.Type
	raw := m.messageContent()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		m.skip("empty:" + role)
		return
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		m.text(role, s)
		return
	}
	var blocks []block
	if err := json.Unmarshal(raw, &blocks); err != nil {
		m.skip("unknown_content:" + role)
		return
	}
	for _, b := range blocks {
		m.block(role, b)
	}
}

func (m *mapper) block(role string, b block) {
	switch b.Type {
	case "text":
		m.text(role, b.Text)
	case "tool_use":
		m.toolUse(b)
	case "tool_result":
		m.toolResult(b)
	case "image", "document":
		m.artifact(role, b)
	case "thinking", "redacted_thinking":
		m.skip(b.Type)
	default:
		m.skip("unknown_block:" + b.Type)
	}
}

func (m *mapper) text(role, s string) {
	meta := map[string]any{}
	if m.kind == Cursor {
		c := cleanCursorText(s)
		s = c.text
		if len(c.dropped) > 0 {
			meta["dropped_context"] = c.dropped
		}
		if c.placeholder {
			meta["redacted_placeholder"] = true
			if strings.TrimSpace(s) == "" {
				m.skip("redacted_placeholder")
				return
			}
		}
	}
	if strings.TrimSpace(s) == "" {
		m.skip("empty_text")
		return
	}
	if msg := m.rec.Message; msg != nil && role == "assistant" {
		if msg.ID != "" {
			meta["message_id"] = msg.ID
		}
		if msg.Model != "" {
			meta["model"] = msg.Model
		}
	}
	if role == "user" && m.subagent() {
		// The parent agent wrote this prompt; the person said nothing here.
		meta["subagent_prompt"] = true
		m.emitAs("assistant", ParentAgent, "message", "text", s, "", meta)
		return
	}
	m.emit(role, "message", "text", s, "", meta)
}

func (m *mapper) toolUse(b block) {
	call := map[string]any{"name": b.Name}
	if len(b.Input) > 0 {
		call["input"] = b.Input
	}
	if b.ID != "" {
		call["id"] = b.ID
	}
	content, _ := json.Marshal(call)
	meta := map[string]any{"tool": b.Name}
	if b.ID != "" {
		meta["tool_use_id"] = b.ID
	}
	if msg := m.rec.Message; msg != nil && msg.ID != "" {
		meta["message_id"] = msg.ID
	}
	m.emit("assistant", "tool_call", "json", string(content), "", meta)
}

// toolResult stores the result text; JSON results are kept as JSON, and
// images inside a result become their own artifact events.
func (m *mapper) toolResult(b block) {
	meta := map[string]any{}
	if b.ToolUseID != "" {
		meta["tool_use_id"] = b.ToolUseID
	}
	if b.IsError != nil {
		meta["is_error"] = *b.IsError
	}
	raw := bytes.TrimSpace(b.Content)
	var content string
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '"':
		_ = json.Unmarshal(raw, &content)
	default:
		content = m.resultBlocks(raw)
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

// resultBlocks flattens a tool_result's block list: all-text lists become
// their joined text, anything else stays JSON (images split off).
func (m *mapper) resultBlocks(raw json.RawMessage) string {
	var blocks []json.RawMessage
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	var texts []string
	var others []json.RawMessage
	for _, rb := range blocks {
		var b block
		if json.Unmarshal(rb, &b) != nil {
			others = append(others, rb)
			continue
		}
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "image", "document":
			m.artifact("tool", b)
		default:
			others = append(others, rb)
		}
	}
	if len(others) == 0 {
		return strings.Join(texts, "\n")
	}
	for _, t := range texts {
		tb, _ := json.Marshal(map[string]string{"type": "text", "text": t})
		others = append(others, tb)
	}
	out, _ := json.Marshal(others)
	return string(out)
}

func looksJSON(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return false
	}
	return json.Valid([]byte(t))
}

// artifact records an image or document by reference: its digest, media
// type and size, never the base64 payload.
func (m *mapper) artifact(role string, b block) {
	meta := map[string]any{"block": b.Type}
	ct := "binary"
	if b.Type == "image" {
		ct = "image"
	}
	desc, ref := b.Type, ""
	if src := b.Source; src != nil {
		meta["media_type"] = src.MediaType
		switch {
		case src.Type == "base64":
			data, err := base64.StdEncoding.DecodeString(src.Data)
			if err != nil {
				data = []byte(src.Data)
			}
			sum := sha256.Sum256(data)
			ref = "sha256:" + hex.EncodeToString(sum[:])
			meta["bytes"] = len(data)
			desc = fmt.Sprintf("[%s %s, %d bytes]", b.Type, src.MediaType, len(data))
		case src.Type == "text" && b.Type == "document":
			sum := sha256.Sum256([]byte(src.Data))
			ref = "sha256:" + hex.EncodeToString(sum[:])
			meta["bytes"] = len(src.Data)
			desc = fmt.Sprintf("[document %s, %d bytes]", src.MediaType, len(src.Data))
		case src.URL != "":
			ref = src.URL
			desc = fmt.Sprintf("[%s %s]", b.Type, src.URL)
		}
	}
	if ref == "" {
		sum := sha256.Sum256(nil)
		ref = "sha256:" + hex.EncodeToString(sum[:])
		desc = "[" + b.Type + " without data]"
	}
	m.emit(role, "artifact", ct, desc, ref, meta)
}

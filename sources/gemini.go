package sources

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/recollect/recollect/store/regfile"
)

// EnvGeminiHome is Gemini CLI's override of the home its .gemini folder
// sits in.
const EnvGeminiHome = "GEMINI_CLI_HOME"

// geminiMessage is a Gemini CLI MessageRecord.
type geminiMessage struct {
	ID             string            `json:"id"`
	Timestamp      string            `json:"timestamp"`
	Type           string            `json:"type"`
	Content        json.RawMessage   `json:"content"`
	DisplayContent json.RawMessage   `json:"displayContent"`
	Model          string            `json:"model"`
	Thoughts       []json.RawMessage `json:"thoughts"`
	ToolCalls      []geminiToolCall  `json:"toolCalls"`
}

type geminiToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	Result    json.RawMessage `json:"result"`
	Status    string          `json:"status"`
	Timestamp string          `json:"timestamp"`
}

// geminiLine is any line of the JSONL form (or the whole legacy document):
// metadata, a message, a $set or a $rewindTo.
type geminiLine struct {
	geminiMessage
	SessionID   string            `json:"sessionId"`
	ProjectHash string            `json:"projectHash"`
	Set         json.RawMessage   `json:"$set"`
	RewindTo    json.RawMessage   `json:"$rewindTo"`
	Messages    []json.RawMessage `json:"messages"`
}

// geminiSession is the conversation of a Gemini CLI chat file: its name
// without extension (session-<time>-<id prefix>), which the .jsonl that
// Gemini writes when it resumes a legacy .json shares; a subagent's file
// sits in a folder named for its parent session.
func geminiSession(path string) string {
	stem := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".jsonl"), ".json")
	if parent := filepath.Base(filepath.Dir(path)); parent != "chats" {
		return parent + "/agent-" + stem
	}
	return stem
}

// mapGeminiLine maps one line of Gemini CLI's JSONL chat log. A message
// line can come again with more fields (its tool calls); its events carry
// keys made of the message and call ids, so the second copy adds only
// what is new.
func mapGeminiLine(path string, line []byte) (Mapped, error) {
	var l geminiLine
	if err := json.Unmarshal(line, &l); err != nil {
		return Mapped{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	m := &mapper{kind: Gemini, path: path, rec: &record{SessionID: geminiSession(path)}}
	switch {
	case len(l.Set) > 0:
		var set struct {
			Messages []json.RawMessage `json:"messages"`
		}
		_ = json.Unmarshal(l.Set, &set)
		if set.Messages == nil {
			m.skip("$set")
			break
		}
		// The history after a compression, a masking of tool output or a
		// rollback. What it keeps was stored when first written (the same
		// keys); a turn that is new here is one Gemini made up — the
		// summary a compression puts in place of what it retired.
		for _, raw := range set.Messages {
			var msg geminiMessage
			if json.Unmarshal(raw, &msg) == nil && msg.ID != "" {
				m.geminiSetMessage(msg)
			}
		}
		if len(m.out.Events) == 0 {
			m.skip("$set/messages")
		}
	case len(l.RewindTo) > 0:
		m.skip("$rewindTo")
	case l.ID != "":
		m.geminiMessage(l.geminiMessage)
	case l.SessionID != "" || l.ProjectHash != "":
		m.skip("metadata")
	default:
		m.skip("unknown:(no id)")
	}
	return m.out, nil
}

// mapGeminiDoc maps a legacy Gemini CLI chat: one JSON document that
// Gemini rewrites whole as the chat grows. Each message maps on its own.
func mapGeminiDoc(path string, data []byte) ([]Mapped, error) {
	var doc geminiLine
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	out := make([]Mapped, 0, len(doc.Messages))
	for _, raw := range doc.Messages {
		m := &mapper{kind: Gemini, path: path, rec: &record{SessionID: geminiSession(path)}}
		var msg geminiMessage
		if json.Unmarshal(raw, &msg) != nil || msg.ID == "" {
			m.skip("unknown:(no id)")
		} else {
			m.geminiMessage(msg)
		}
		out = append(out, m.out)
	}
	return out, nil
}

// emitKeyed is emit with the event's dedupe key.
func (m *mapper) emitKeyed(key, role, eventType, contentType, content string, meta map[string]any) {
	n := len(m.out.Events)
	m.emit(role, eventType, contentType, content, "", meta)
	for len(m.out.Keys) < n {
		m.out.Keys = append(m.out.Keys, "")
	}
	m.out.Keys = append(m.out.Keys, key)
}

func (m *mapper) geminiMessage(msg geminiMessage) {
	m.rec.Timestamp = msg.Timestamp
	switch msg.Type {
	case "user":
		if geminiHasFunctionResponse(msg.Content) {
			// Tool output recorded again as a user turn (v0.44+); the
			// tool call carries it.
			m.skip("user/function_response")
			return
		}
		text := geminiText(msg.Content)
		meta := map[string]any{"message_id": msg.ID}
		if shown := geminiText(msg.DisplayContent); strings.TrimSpace(shown) != "" && shown != text {
			// What the user typed (/init) rather than the built-in
			// prompt Gemini sent in its place.
			meta["sent_bytes"] = len(text)
			text = shown
		}
		if strings.TrimSpace(text) == "" {
			m.skip("empty_text")
			return
		}
		m.emitKeyed(msg.ID+"/text", "user", "message", "text", text, meta)
	case "gemini":
		for range msg.Thoughts {
			m.skip("thought")
		}
		if text := geminiText(msg.Content); strings.TrimSpace(text) != "" {
			meta := map[string]any{"message_id": msg.ID}
			if msg.Model != "" {
				meta["model"] = msg.Model
			}
			m.emitKeyed(msg.ID+"/text", "assistant", "message", "text", text, meta)
		}
		for _, tc := range msg.ToolCalls {
			m.geminiToolCall(msg.ID, tc)
		}
	default:
		// info, error, warning: notices the UI showed.
		m.skip("message/" + msg.Type)
	}
}

// geminiSetMessage maps a turn of a rewritten history under the key its
// own line had, so only a turn not seen before is stored: a user turn as
// the compression summary (an artifact, never the user's word), a model
// turn as the model's message. Tool calls and their output always
// restate earlier lines; the context Gemini injects is not a summary.
func (m *mapper) geminiSetMessage(msg geminiMessage) {
	m.rec.Timestamp = msg.Timestamp
	text := geminiText(msg.Content)
	if strings.TrimSpace(text) == "" {
		return
	}
	meta := map[string]any{"message_id": msg.ID}
	switch {
	case msg.Type == "user" && !geminiHasFunctionResponse(msg.Content) && !strings.HasPrefix(strings.TrimSpace(text), "<session_context>"):
		meta["compact_summary"] = true
		m.emitKeyed(msg.ID+"/text", "user", "artifact", "text", text, meta)
	case msg.Type == "gemini":
		m.emitKeyed(msg.ID+"/text", "assistant", "message", "text", text, meta)
	}
}

func (m *mapper) geminiToolCall(msgID string, tc geminiToolCall) {
	if tc.Timestamp != "" {
		m.rec.Timestamp = tc.Timestamp
	}
	call := map[string]any{"name": tc.Name}
	if len(bytes.TrimSpace(tc.Args)) > 0 {
		call["input"] = tc.Args
	}
	if tc.ID != "" {
		call["id"] = tc.ID
	}
	content, _ := json.Marshal(call)
	meta := map[string]any{"tool": tc.Name, "message_id": msgID}
	if tc.ID != "" {
		meta["tool_use_id"] = tc.ID
	}
	m.emitKeyed(msgID+"/call/"+tc.ID, "assistant", "tool_call", "json", string(content), meta)

	out := geminiToolOutput(tc.Result)
	if strings.TrimSpace(out) == "" {
		m.skip("empty:tool_result")
		return
	}
	rmeta := map[string]any{"tool_use_id": tc.ID}
	if tc.Status != "" && tc.Status != "success" {
		rmeta["status"] = tc.Status
		rmeta["is_error"] = tc.Status == "error"
	}
	ct := "text"
	if looksJSON(out) {
		ct = "json"
	}
	m.emitKeyed(msgID+"/result/"+tc.ID, "tool", "tool_result", ct, out, rmeta)
}

// geminiText reads content that is a string or a list of parts.
func geminiText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text    *string `json:"text"`
		Thought bool    `json:"thought"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var out []string
	for _, p := range parts {
		if p.Text != nil && !p.Thought {
			out = append(out, *p.Text)
		}
	}
	return strings.Join(out, "\n")
}

func geminiHasFunctionResponse(raw json.RawMessage) bool {
	var parts []struct {
		FunctionResponse json.RawMessage `json:"functionResponse"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return false
	}
	for _, p := range parts {
		if len(p.FunctionResponse) > 0 {
			return true
		}
	}
	return false
}

// geminiToolOutput is a tool call's result: the functionResponse's
// output text (or its response as JSON), else the parts' text.
func geminiToolOutput(raw json.RawMessage) string {
	var parts []struct {
		Text             *string `json:"text"`
		FunctionResponse *struct {
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	}
	var out []string
	for _, p := range parts {
		switch {
		case p.FunctionResponse != nil:
			var r struct {
				Output *string `json:"output"`
			}
			if json.Unmarshal(p.FunctionResponse.Response, &r) == nil && r.Output != nil {
				out = append(out, *r.Output)
			} else if len(p.FunctionResponse.Response) > 0 {
				out = append(out, string(p.FunctionResponse.Response))
			}
		case p.Text != nil:
			out = append(out, *p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// GeminiProjectHash is how Gemini CLI names a project in its chats: the
// SHA-256 of the project root, in hex.
func GeminiProjectHash(cwd string) string {
	sum := sha256.Sum256([]byte(cwd))
	return hex.EncodeToString(sum[:])
}

// geminiProject finds what a Gemini chat says of its project: the path
// in its project folder's .project_root marker (v0.29+), and the
// projectHash the file records.
func geminiProject(projects, path string) (root, hash string) {
	if rel, err := filepath.Rel(projects, path); err == nil {
		if b, err := os.ReadFile(filepath.Join(projects, firstElem(rel), ".project_root")); err == nil {
			root = strings.TrimSpace(string(b))
		}
	}
	f, _, err := regfile.Open(path)
	if err != nil {
		return root, ""
	}
	defer f.Close()
	// Gemini writes it near the start; a file written by another tool
	// may hold it after the messages.
	r := bufio.NewReader(io.LimitReader(f, 4<<20))
	for {
		line, err := r.ReadString('\n')
		if i := strings.Index(line, `"projectHash"`); i >= 0 {
			rest := line[i+len(`"projectHash"`):]
			if j := strings.IndexByte(rest, '"'); j >= 0 {
				if k := strings.IndexByte(rest[j+1:], '"'); k >= 0 {
					return root, rest[j+1 : j+1+k]
				}
			}
		}
		if err != nil {
			break
		}
	}
	return root, hash
}

// geminiProjectOf is geminiProject, cached once found: a chat's project
// never changes, and the selector asks at every scan.
func (s *selector) geminiProjectOf(src source, path string) (root, hash string) {
	s.mu.Lock()
	c, ok := s.cwds["gemini\x00"+path]
	s.mu.Unlock()
	if ok {
		root, hash, _ = strings.Cut(c, "\x00")
		return root, hash
	}
	root, hash = geminiProject(src.projects, path)
	if root != "" || hash != "" {
		s.mu.Lock()
		s.cwds["gemini\x00"+path] = root + "\x00" + hash
		s.mu.Unlock()
	}
	return root, hash
}

// geminiMatches reports whether a Gemini chat belongs to the project cwd:
// its project root is cwd or inside it, or (older chats, which record
// only the hash) its projectHash is cwd's.
func geminiMatches(root, hash, cwd string) bool {
	want := filepath.Clean(cwd)
	if root != "" {
		root = filepath.Clean(root)
		return root == want || strings.HasPrefix(root, want+string(filepath.Separator))
	}
	return hash != "" && strings.EqualFold(hash, GeminiProjectHash(want))
}

// isGeminiDoc reports whether f is a legacy Gemini chat: one JSON
// document, rewritten whole as the chat grows.
func isGeminiDoc(f selected) bool {
	return f.kind == Gemini && strings.HasSuffix(f.path, ".json")
}

// maxDocBytes bounds the legacy chat document read at once.
const maxDocBytes = 4 * MaxLineBytes

// passDoc reads a legacy Gemini chat whole and stores each message's
// events under keys of the message and call ids, so a rewritten file adds
// only its new messages and tool calls. A document caught half-written
// is left for the next change or scan; the progress stays where it was.
func (c *Copier) passDoc(ctx context.Context, st *passState, rep *Report) error {
	if st.size > maxDocBytes {
		return fileError(st.f.path, fmt.Errorf("chat file is %d bytes, more than the %d read at once", st.size, maxDocBytes))
	}
	data, err := io.ReadAll(io.NewSectionReader(st.file, 0, st.size))
	if err != nil {
		return fileError(st.f.path, err)
	}
	maps, err := mapGeminiDoc(st.f.path, data)
	if err != nil {
		c.Log.Info("chat file is not complete JSON (being rewritten?); reading it again when it changes", "file", st.f.path, "err", err)
		return nil
	}
	digest := sha256.Sum256(data)
	batch := make([]mappedLine, 0, len(maps))
	for i, m := range maps {
		ml := mappedLine{number: int64(i + 1), digest: digest, events: m.Events, skipped: m.Skipped, keys: m.Keys,
			cwd: st.cwd, mayBeDone: st.stored.exists}
		c.redactLine(&ml, 0)
		batch = append(batch, ml)
	}
	st.lineNo = int64(len(maps))
	return c.commit(ctx, st, batch, st.size, rep)
}

// keyedDedupe is the dedupe key of an event the mapping named: the kind
// and the name, whatever file it was read from.
func keyedDedupe(kind, key string) string {
	sum := sha256.Sum256([]byte(kind + "\x00" + key))
	return hex.EncodeToString(sum[:16])
}

// geminiCwd is the project of a Gemini chat, when known: its project
// folder's .project_root, else the cwd of a configured Gemini source
// whose hash the chat records.
func (s *selector) geminiCwd(path string) string {
	for _, src := range s.srcs {
		if src.Kind != Gemini || !src.structural(path) {
			continue
		}
		root, hash := s.geminiProjectOf(src, path)
		if root != "" {
			return root
		}
		if src.Cwd != "" && strings.EqualFold(hash, GeminiProjectHash(filepath.Clean(src.Cwd))) {
			return src.Cwd
		}
	}
	return ""
}

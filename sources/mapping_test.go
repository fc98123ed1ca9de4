package sources

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/recollect/recollect/store/storetest"
)

// fixtureRoot holds byte-for-byte copies of the shared real transcripts.
const fixtureRoot = "../fixtures/transcripts"

// goldenEvent is an event as pinned by a golden file: long content is cut
// (its length is kept) so goldens stay readable.
type goldenEvent struct {
	Line        int             `json:"line"`
	Session     string          `json:"session"`
	Role        string          `json:"role"`
	Speaker     string          `json:"speaker,omitempty"`
	EventType   string          `json:"event_type"`
	ContentType string          `json:"content_type"`
	Content     string          `json:"content"`
	Bytes       int             `json:"content_bytes"`
	ContentRef  string          `json:"content_ref,omitempty"`
	Metadata    json.RawMessage `json:"metadata,omitempty"`
	OccurredAt  string          `json:"occurred_at,omitempty"`
}

type goldenFile struct {
	File    string         `json:"file"`
	Kind    string         `json:"kind"`
	Lines   int            `json:"lines"`
	Events  int            `json:"events"`
	ByType  map[string]int `json:"events_by_type"`
	Skipped map[string]int `json:"skipped"`
	Bad     map[string]int `json:"bad_lines"`
	List    []goldenEvent  `json:"list"`
}

func fixtureFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(fixtureRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json") && strings.Contains(filepath.ToSlash(p), "/gemini/")) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk fixtures: %v", err)
	}
	sort.Strings(files)
	if len(files) < 15 {
		t.Fatalf("found %d fixture transcripts under %s, want every file of the shared collection", len(files), fixtureRoot)
	}
	return files
}

func kindOf(rel string) string {
	if strings.HasPrefix(rel, "cursor/") {
		return Cursor
	}
	if strings.HasPrefix(rel, "codex/") {
		return Codex
	}
	if strings.HasPrefix(rel, "gemini/") {
		return Gemini
	}
	return ClaudeCode
}

func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// mapFile maps every line of a fixture the way the copier does.
func mapFile(t *testing.T, path, rel string) goldenFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g := goldenFile{File: rel, Kind: kindOf(rel), ByType: map[string]int{}, Skipped: map[string]int{}, Bad: map[string]int{}, List: []goldenEvent{}}
	if g.Kind == Gemini && strings.HasSuffix(rel, ".json") {
		// A legacy chat is one document; each message counts as a line.
		maps, err := mapGeminiDoc(rel, data)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		for _, m := range maps {
			g.Lines++
			g.add(t, rel, m)
		}
		g.Events = len(g.List)
		return g
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), MaxLineBytes)
	for sc.Scan() {
		g.Lines++
		m, err := Map(g.Kind, rel, sc.Bytes())
		if err != nil {
			g.Bad["malformed_json"]++
			continue
		}
		g.add(t, rel, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	g.Events = len(g.List)
	return g
}

// add records one mapped line (or legacy Gemini message).
func (g *goldenFile) add(t *testing.T, rel string, m Mapped) {
	t.Helper()
	for _, s := range m.Skipped {
		g.Skipped[s]++
	}
	for _, ev := range m.Events {
		if err := ev.Validate(); err != nil {
			t.Errorf("%s line %d: mapped event invalid: %v", rel, g.Lines, err)
		}
		ge := goldenEvent{Line: g.Lines, Session: ev.SessionID, Role: ev.Role, Speaker: ev.Speaker, EventType: ev.EventType,
			ContentType: ev.ContentType, Content: cut(ev.Content, 160), Bytes: len(ev.Content),
			ContentRef: ev.ContentRef, Metadata: ev.Metadata}
		if ev.OccurredAt != nil {
			ge.OccurredAt = ev.OccurredAt.Format("2006-01-02T15:04:05.000Z")
		}
		g.List = append(g.List, ge)
		g.ByType[ev.Role+"/"+ev.EventType]++
	}
}

// TestMapGolden pins how every record type of every real fixture maps.
// Run with -update after an intended change and review the diff.
func TestMapGolden(t *testing.T) {
	for _, path := range fixtureFiles(t) {
		rel, _ := filepath.Rel(fixtureRoot, path)
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			g := mapFile(t, path, rel)
			got, err := json.MarshalIndent(g, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			storetest.Golden(t, "golden/"+strings.ReplaceAll(strings.TrimSuffix(strings.TrimSuffix(rel, ".jsonl"), ".json"), "/", "__")+".json", got)
		})
	}
}

// TestMapShapes pins the mapping rules on small hand-made lines, one rule
// per case; the goldens pin them on real files.
func TestMapShapes(t *testing.T) {
	type want struct {
		events  string // role/event_type/content_type=content;…
		skipped string
	}
	for _, tc := range []struct {
		name, kind, line string
		want
	}{
		{"user string", ClaudeCode, `{"type":"user","sessionId":"s","message":{"content":"hi there"}}`,
			want{"user/message/text=hi there", ""}},
		{"user text blocks", ClaudeCode, `{"type":"user","message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}`,
			want{"user/message/text=a;user/message/text=b", ""}},
		{"tool result JSON with is_error", ClaudeCode, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":"{\"code\":1}"}]}}`,
			want{`tool/tool_result/json={"code":1}`, ""}},
		{"tool result text list", ClaudeCode, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"ok"}]}]}}`,
			want{"tool/tool_result/text=ok", ""}},
		{"tool result of tool references", ClaudeCode, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"tool_reference","tool_name":"Read"}]}]}}`,
			want{`tool/tool_result/json=[{"type":"tool_reference","tool_name":"Read"}]`, ""}},
		{"tool use", ClaudeCode, `{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`,
			want{`assistant/tool_call/json={"id":"t1","input":{"command":"ls"},"name":"Bash"}`, ""}},
		{"thinking dropped", ClaudeCode, `{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"yes"}]}}`,
			want{"assistant/message/text=yes", "thinking"}},
		{"isMeta dropped", ClaudeCode, `{"type":"user","isMeta":true,"message":{"content":"<local-command-caveat>"}}`,
			want{"", "isMeta"}},
		{"unknown type counted", ClaudeCode, `{"type":"hologram","x":1}`, want{"", "unknown:hologram"}},
		{"unknown block counted", ClaudeCode, `{"type":"assistant","message":{"content":[{"type":"server_tool_use"}]}}`, want{"", "unknown_block:server_tool_use"}},
		{"system subtype dropped", ClaudeCode, `{"type":"system","subtype":"turn_duration","durationMs":5}`, want{"", "system/turn_duration"}},
		{"cursor user query", Cursor, `{"role":"user","message":{"content":[{"type":"text","text":"<attached_files>\nx.go\n</attached_files>\n<user_query>\nfix it\n</user_query>"}]}}`,
			want{"user/message/text=fix it", ""}},
		{"cursor trailing redacted", Cursor, `{"role":"assistant","message":{"content":[{"type":"text","text":"Checking.\n\n[REDACTED]"}]}}`,
			want{"assistant/message/text=Checking.", ""}},
		{"cursor standalone redacted", Cursor, `{"role":"assistant","message":{"content":[{"type":"text","text":"[REDACTED]"}]}}`,
			want{"", "redacted_placeholder"}},
		{"cursor redacted mid-sentence kept", Cursor, `{"role":"assistant","message":{"content":[{"type":"text","text":"the key is [REDACTED] here"}]}}`,
			want{"assistant/message/text=the key is [REDACTED] here", ""}},
		{"cursor turn marker", Cursor, `{"type":"turn_ended","status":"success"}`, want{"", "turn_ended"}},
		{"codex typed prompt", Codex, `{"timestamp":"2025-09-16T04:47:48.362Z","type":"event_msg","payload":{"type":"user_message","message":"check the design","kind":"plain"}}`,
			want{"user/message/text=check the design", ""}},
		{"codex IDE prompt unwrapped", Codex, `{"type":"event_msg","payload":{"type":"user_message","message":"# Context from my IDE setup:\n\n## Open tabs:\n- a.go\n\n## My request for Codex:\nfix the build"}}`,
			want{"user/message/text=fix the build", ""}},
		{"codex user item restates the prompt", Codex, `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"check the design"}]}}`,
			want{"", "response_item/message:user"}},
		{"codex assistant message", Codex, `{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}],"phase":"final_answer"}}`,
			want{"assistant/message/text=Done.", ""}},
		{"codex agent_message is a duplicate", Codex, `{"type":"event_msg","payload":{"type":"agent_message","message":"Done."}}`,
			want{"", "event_msg/agent_message"}},
		{"codex function call", Codex, `{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"}}`,
			want{`assistant/tool_call/json={"id":"c1","input":{"command":["ls"]},"name":"shell"}`, ""}},
		{"codex function output JSON", Codex, `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"a.go\\n\",\"metadata\":{\"exit_code\":0}}"}}`,
			want{`tool/tool_result/json={"output":"a.go\n","metadata":{"exit_code":0}}`, ""}},
		{"codex custom tool call", Codex, `{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch","call_id":"c2"}}`,
			want{`assistant/tool_call/json={"id":"c2","input":"*** Begin Patch","name":"apply_patch"}`, ""}},
		{"codex reasoning dropped", Codex, `{"type":"response_item","payload":{"type":"reasoning","summary":[],"encrypted_content":"gAAA"}}`,
			want{"", "response_item/reasoning"}},
		{"codex remote compaction", Codex, `{"type":"compacted","payload":{"message":"","replacement_history":[{"type":"compaction","encrypted_content":"x"}]}}`,
			want{"system/message/text=Conversation compacted", ""}},
		{"codex local compaction summary", Codex, `{"type":"compacted","payload":{"message":"We moved the API to port 8080."}}`,
			want{"system/message/text=Conversation compacted;user/artifact/text=We moved the API to port 8080.", ""}},
		{"codex session meta", Codex, `{"type":"session_meta","payload":{"id":"x","cwd":"/w/p"}}`, want{"", "session_meta"}},
		{"gemini metadata", Gemini, `{"sessionId":"s","projectHash":"ab","kind":"main"}`, want{"", "metadata"}},
		{"gemini $set", Gemini, `{"$set":{"lastUpdated":"2026-04-23T12:53:02.597Z"}}`, want{"", "$set"}},
		{"gemini history replaced", Gemini, `{"$set":{"messages":[]}}`, want{"", "$set/messages"}},
		{"gemini rewind", Gemini, `{"$rewindTo":"m1"}`, want{"", "$rewindTo"}},
		{"gemini notice", Gemini, `{"id":"i1","type":"info","content":"Empty GEMINI.md created."}`, want{"", "message/info"}},
		{"gemini typed command shown", Gemini, `{"id":"u1","type":"user","content":[{"text":"You are an AI agent that…"}],"displayContent":[{"text":"/init"}]}`,
			want{"user/message/text=/init", ""}},
		{"gemini tool output as a user turn", Gemini, `{"id":"u2","type":"user","content":[{"functionResponse":{"id":"c","name":"ls","response":{"output":"a"}}}]}`,
			want{"", "user/function_response"}},
		{"gemini tool-only turn", Gemini, `{"id":"g1","type":"gemini","content":"","thoughts":[{"subject":"s"}],"toolCalls":[{"id":"c1","name":"ls","args":{"dir":"."},"status":"error","result":[{"functionResponse":{"response":{"error":"denied"}}}]}]}`,
			want{`assistant/tool_call/json={"id":"c1","input":{"dir":"."},"name":"ls"};tool/tool_result/json={"error":"denied"}`, "thought"}},
		{"codex unknown type counted", Codex, `{"type":"world_state","payload":{}}`, want{"", "unknown:world_state"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Map(tc.kind, "/x/f1.jsonl", []byte(tc.line))
			if err != nil {
				t.Fatal(err)
			}
			var evs []string
			for _, ev := range m.Events {
				evs = append(evs, ev.Role+"/"+ev.EventType+"/"+ev.ContentType+"="+ev.Content)
			}
			if got := strings.Join(evs, ";"); got != tc.events {
				t.Errorf("events %q, want %q", got, tc.events)
			}
			if got := strings.Join(m.Skipped, ";"); got != tc.skipped {
				t.Errorf("skipped %q, want %q", got, tc.skipped)
			}
		})
	}
}

func TestMapSessionTimeAndMetadata(t *testing.T) {
	m, _ := Map(ClaudeCode, "/p/abc.jsonl", []byte(`{"type":"user","message":{"content":"no id, no time"}}`))
	if ev := m.Events[0]; ev.SessionID != "abc" || ev.OccurredAt != nil {
		t.Errorf("session %q occurred %v; want the file name and no invented time", ev.SessionID, ev.OccurredAt)
	}
	m, _ = Map(ClaudeCode, "/p/abc.jsonl", []byte(`{"type":"assistant","sessionId":"s1","isSidechain":true,"agentId":"a1","timestamp":"2026-02-11T21:18:41.543Z","message":{"id":"msg_1","content":[{"type":"text","text":"x"}]}}`))
	ev := m.Events[0]
	if ev.SessionID != "s1/agent-a1" || ev.OccurredAt == nil || ev.OccurredAt.Format(time.RFC3339Nano) != "2026-02-11T21:18:41.543Z" {
		t.Errorf("session %q occurred %v", ev.SessionID, ev.OccurredAt)
	}
	if !strings.Contains(string(ev.Metadata), `"message_id":"msg_1"`) {
		t.Errorf("metadata %s lacks message_id", ev.Metadata)
	}
	if _, err := Map(ClaudeCode, "/p/abc.jsonl", []byte(`{"type":`)); !errors.Is(err, ErrMalformed) {
		t.Errorf("malformed line: %v", err)
	}
}

// A subagent's "user" turns are prompts its parent agent wrote: they must
// never read as something the person said.
func TestMapSubagentPromptIsTheParentAgents(t *testing.T) {
	cases := []struct {
		name, kind, path, line string
		role, speaker          string
	}{
		{"claude code sidechain", ClaudeCode, "/p/s1/subagents/agent-a1.jsonl",
			`{"type":"user","sessionId":"s1","isSidechain":true,"agentId":"a1","message":{"role":"user","content":"Find every caller of Open."}}`,
			"assistant", ParentAgent},
		{"legacy flat sidechain", ClaudeCode, "/p/agent-3ea04571.jsonl",
			`{"type":"user","sessionId":"s1","isSidechain":true,"agentId":"3ea04571","message":{"role":"user","content":[{"type":"text","text":"Warmup"}]}}`,
			"assistant", ParentAgent},
		{"cursor subagent folder", Cursor, "/c/proj/agent-transcripts/u1/subagents/u2.jsonl",
			`{"role":"user","message":{"content":[{"type":"text","text":"Report whether each guards against an empty id."}]}}`,
			"assistant", ParentAgent},
		{"main session stays the user's", ClaudeCode, "/p/s1.jsonl",
			`{"type":"user","sessionId":"s1","message":{"role":"user","content":"We deploy with Terraform."}}`,
			"user", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Map(tc.kind, tc.path, []byte(tc.line))
			if err != nil || len(m.Events) != 1 {
				t.Fatalf("Map = %+v, %v; want one event", m, err)
			}
			ev := m.Events[0]
			if ev.Role != tc.role || ev.Speaker != tc.speaker {
				t.Errorf("role %q speaker %q, want %q %q", ev.Role, ev.Speaker, tc.role, tc.speaker)
			}
			if prompt := strings.Contains(string(ev.Metadata), `"subagent_prompt":true`); prompt != (tc.speaker != "") {
				t.Errorf("metadata %s: subagent_prompt marked %v", ev.Metadata, prompt)
			}
		})
	}
}

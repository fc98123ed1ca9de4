package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect/recollect/cmd/recollect/mcpserver"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// TestArgumentTypes: confidence and importance are plain numbers in the
// schema, and an argument of the wrong type is refused with its field and
// what it wants.
func TestArgumentTypes(t *testing.T) {
	p := openStore(t, t.TempDir(), config.Default())
	srv, err := mcpserver.New(p, mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := inProcess(t, srv)
	tools, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name != "capture_fact" {
			continue
		}
		props := tl.InputSchema.(map[string]any)["properties"].(map[string]any)
		for _, f := range []string{"confidence", "importance"} {
			if typ := props[f].(map[string]any)["type"]; typ != "number" {
				t.Errorf("%s has type %v, want number", f, typ)
			}
		}
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"capture_fact", map[string]any{"content": "The user likes tea.", "confidence": "0.9"}, `confidence: wrong type: got a string ("0.9"), want a number`},
		{"search_knowledge", map[string]any{"query": "x", "limit": "5"}, `limit: wrong type: got a string ("5"), want an integer`},
		{"search_knowledge", map[string]any{"query": "x", "order": "newest"}, `order: "newest" is unknown; give one of chronological, relevance`},
		{"log_event", map[string]any{"role": "robot", "event_type": "message", "content": "x"}, `role: "robot" is unknown; give one of user, assistant, system, tool`},
		{"log_event", map[string]any{"role": "user", "event_type": "note", "content": "x"}, `event_type: "note" is unknown; give one of message, tool_call, tool_result, artifact`},
		{"search_knowledge", map[string]any{"query": "x", "as_of": "yesterday"}, `as_of: "yesterday" is not a time`},
	} {
		text, _, isErr := c.call(tc.tool, tc.args)
		if !isErr || !strings.HasPrefix(text, tc.want) {
			t.Errorf("%s %v: error %v %q, want %q", tc.tool, tc.args, isErr, text, tc.want)
		}
	}
}

// TestSessionsAndHistory: get_events and get_session_context default to
// the current session and take another by id; an unknown id is refused;
// search_knowledge answers as of a time and with history like the CLI.
func TestSessionsAndHistory(t *testing.T) {
	p := openStore(t, t.TempDir(), config.Default())
	ctx := context.Background()
	if _, err := p.Record(ctx, []store.Event{{SessionID: "other", Source: "record", Role: "user", EventType: "message", ContentType: "text", Content: "I live in Lisbon."}}); err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(p, mcpserver.Options{SessionID: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	c := inProcess(t, srv)
	text, ans := c.ok("get_events", map[string]any{})
	if len(list(ans, "events")) != 0 || !strings.Contains(text, `in the current session "mine"; pass all_sessions=true`) {
		t.Errorf("get_events in a fresh session: %q", text)
	}
	c.ok("log_event", map[string]any{"role": "user", "event_type": "message", "content": "I moved to Porto."})
	if _, ans := c.ok("get_events", map[string]any{}); len(list(ans, "events")) != 1 || field(list(ans, "events")[0], "session_id") != "mine" {
		t.Errorf("get_events defaults to the current session: %v", ans)
	}
	if _, ans := c.ok("get_events", map[string]any{"all_sessions": true}); len(list(ans, "events")) != 2 {
		t.Errorf("all_sessions: %v", ans)
	}
	if _, ans := c.ok("get_events", map[string]any{"session_id": "other"}); len(list(ans, "events")) != 1 {
		t.Errorf("session_id other: %v", ans)
	}
	c.ok("capture_fact", map[string]any{"content": "The user moved to Porto."})
	if _, ans := c.ok("get_session_context", map[string]any{"session_id": "other"}); len(list(ans, "captured")) != 0 || ans["session_id"] != "other" {
		t.Errorf("get_session_context of another session: %v", ans["captured"])
	}
	if _, ans := c.ok("get_session_context", map[string]any{}); len(list(ans, "captured")) != 1 {
		t.Errorf("get_session_context of this session: %v", ans["captured"])
	}
	for _, tool := range []string{"get_session_context", "get_events"} {
		if text, _, isErr := c.call(tool, map[string]any{"session_id": "nope"}); !isErr || !strings.Contains(text, `no session has id "nope"`) {
			t.Errorf("%s with an unknown session: %v %q", tool, isErr, text)
		}
	}
	c.ok("consolidate", map[string]any{})
	if _, ans := c.ok("search_knowledge", map[string]any{"query": "Porto", "as_of": "2000-01-01"}); len(list(ans, "results")) != 0 {
		t.Errorf("as_of before anything was known still finds: %v", list(ans, "results"))
	}
	if _, ans := c.ok("search_knowledge", map[string]any{"query": "Porto", "history": true, "order": "chronological"}); len(list(ans, "results")) == 0 {
		t.Errorf("history and chronological order find nothing: %v", ans)
	}
}

// TestUnknownToolKeepsServing: a call to a tool the server does not have
// is answered with an error naming it, and the server keeps serving. The
// argument-message rewriter read the typed-nil result of that call and the
// process died of a nil pointer.
func TestUnknownToolKeepsServing(t *testing.T) {
	c := start(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "no_such_tool") {
		t.Fatalf("unknown tool: %v, want an error naming it", err)
	}
	c.ok("get_stats", map[string]any{})
}

// TestStructuredContentMatchesOutputSchema: every tool declares an output
// schema, and what it answers as structured content validates against it
// (what a client such as the MCP Inspector checks).
func TestStructuredContentMatchesOutputSchema(t *testing.T) {
	p := openStore(t, t.TempDir(), config.Default())
	ctx := context.Background()
	c := consolidatedServer(t, p,
		store.Event{SessionID: "s1", Source: "record", Role: "user", EventType: "message", ContentType: "text", Content: "Alice owns the billing service."},
		store.Event{SessionID: "s1", Source: "record", Role: "user", EventType: "message", ContentType: "text", Content: "We deploy the billing service with Render every Friday."})
	tools, err := c.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]map[string]any{
		"get_session_context": {},
		"search_knowledge":    {"query": "billing service"},
		"get_entity":          {"name": "billing service"},
		"get_context":         {"topic": "billing"},
		"capture_fact":        {"content": "The billing service runs on Go 1.26."},
		"log_event":           {"role": "user", "event_type": "message", "content": "Let us look at billing."},
		"get_events":          {"all_sessions": true},
		"consolidate":         {},
		"get_schemas":         {},
		"get_stats":           {},
	}
	for _, tool := range tools.Tools {
		args, ok := calls[tool.Name]
		if !ok {
			t.Errorf("%s: no call in this test", tool.Name)
			continue
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s declares no output schema", tool.Name)
			continue
		}
		raw, _ := json.Marshal(tool.OutputSchema)
		var sch jsonschema.Schema
		if err := json.Unmarshal(raw, &sch); err != nil {
			t.Fatalf("%s: output schema: %v", tool.Name, err)
		}
		resolved, err := sch.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: resolve output schema: %v", tool.Name, err)
		}
		res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: args})
		if err != nil || res.IsError || res.StructuredContent == nil {
			t.Errorf("%s: %v, error result %v, structured %v", tool.Name, err, res != nil && res.IsError, res != nil && res.StructuredContent != nil)
			continue
		}
		b, _ := json.Marshal(res.StructuredContent)
		var instance any
		json.Unmarshal(b, &instance)
		if err := resolved.Validate(instance); err != nil {
			t.Errorf("%s: structured content does not match its output schema: %v", tool.Name, err)
		}
	}
}

package mcpserver_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recollect/recollect/cmd/recollect/mcpserver"
	"github.com/recollect/recollect/store/postgres"
	"github.com/recollect/recollect/store/storetest"
)

func TestToolsAndResourcesGolden(t *testing.T) {
	c := start(t, filepath.Join(t.TempDir(), "work-notes"))
	if got := c.init.ServerInfo.Name; got != "recollect-work-notes" {
		t.Errorf("server name = %q", got)
	}
	ctx := context.Background()
	tools, err := c.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		InputSchema any    `json:"inputSchema"`
		ReadOnly    bool   `json:"readOnly"`
	}
	var entries []entry
	for _, tool := range tools.Tools {
		e := entry{Name: tool.Name, Description: tool.Description, InputSchema: tool.InputSchema}
		if tool.Annotations != nil {
			e.ReadOnly = tool.Annotations.ReadOnlyHint
		}
		entries = append(entries, e)
	}
	b, _ := json.MarshalIndent(entries, "", "  ")
	storetest.Golden(t, "tools.json", append(b, '\n'))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	want := []string{"capture_fact", "consolidate", "get_context", "get_entity", "get_events", "get_schemas",
		"get_session_context", "get_stats", "log_event", "search_knowledge"}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v", names)
	}
	for _, e := range entries {
		schema, _ := json.Marshal(e.InputSchema)
		for _, banned := range []string{`"path"`, `"store"`, `"user_id"`, `"data_dir"`} {
			if strings.Contains(string(schema), banned) {
				t.Errorf("%s takes %s: the data directory is the scope", e.Name, banned)
			}
		}
	}
	res, err := c.cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	if !slices.Equal(uris, []string{mcpserver.BriefingURI, mcpserver.ProfileURI}) {
		t.Errorf("resources = %v", uris)
	}
	brief, err := c.read(mcpserver.BriefingURI)
	if err != nil || !strings.HasPrefix(brief, "# Memory briefing\n") || !strings.Contains(brief, "Nothing is known yet") {
		t.Errorf("briefing = %q, %v", brief, err)
	}
	again, _ := c.read(mcpserver.BriefingURI)
	if again != brief {
		t.Errorf("briefing not byte-identical across reads")
	}
	if prof, err := c.read(mcpserver.ProfileURI); err != nil || !strings.HasPrefix(prof, "# Profile\n") {
		t.Errorf("profile = %q, %v", prof, err)
	}
	if _, err := c.read("memory://nothing"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("unknown resource: %v", err)
	}
}

func TestServerName(t *testing.T) {
	cases := []struct{ dir, home, want string }{
		{"/home/ann/.recollect", "/home/ann", "recollect"},
		{"/home/ann/.recollect/", "/home/ann/", "recollect"},
		{"/src/shop/.recollect", "/home/ann", "recollect-shop"},
		{"/data/My Notes", "/home/ann", "recollect-My-Notes"},
		{"/", "", "recollect"},
	}
	for _, tc := range cases {
		if got := mcpserver.ServerName(tc.dir, tc.home); got != tc.want {
			t.Errorf("ServerName(%q, %q) = %q, want %q", tc.dir, tc.home, got, tc.want)
		}
	}
}

// TestRememberAndRecall drives the whole loop through the tools: events in,
// consolidate, supersession, search, entity, context, capture, briefing.
func TestRememberAndRecall(t *testing.T) {
	for _, engine := range storetest.Engines {
		t.Run(engine, func(t *testing.T) {
			dir, _, getenv := storetest.DataDir(t, engine)
			var env []string
			if u := getenv(postgres.DefaultURLEnv); u != "" {
				env = append(env, postgres.DefaultURLEnv+"="+u)
			}
			c := start(t, dir, env...)
			for _, msg := range []string{"I live in Lisbon.", "My colleague Robin at Acme is leading the Atlas migration."} {
				c.ok("log_event", map[string]any{"role": "user", "event_type": "message", "content": msg})
			}
			_, run := c.ok("consolidate", map[string]any{})
			if run["facts_integrated"] != 2.0 || run["events_remaining"] != 0.0 {
				t.Fatalf("first consolidate = %v", run)
			}
			if e := run["embedding"].(map[string]any); e["configured"] != false || !strings.Contains(e["note"].(string), "embeddings are off") {
				t.Errorf("embedding = %v", e)
			}
			c.ok("log_event", map[string]any{"role": "user", "event_type": "message", "content": "I moved to Porto."})
			_, run = c.ok("consolidate", map[string]any{"limit": 10})
			if run["superseded"] != 1.0 {
				t.Fatalf("second consolidate superseded %v, want 1 (heuristic: moved to)", run["superseded"])
			}

			text, ans := c.ok("search_knowledge", map[string]any{"query": "where do I live"})
			results := list(ans, "results")
			if len(results) == 0 || field(results[0], "content") != "I moved to Porto." {
				t.Fatalf("search: %s", text)
			}
			if !strings.Contains(text, `reached through supersession: it replaced [fact 1] "I live in Lisbon." (history, no longer current)`) {
				t.Errorf("supersession not told:\n%s", text)
			}
			for _, r := range results {
				if field(r, "content") == "I live in Lisbon." {
					t.Errorf("superseded fact among results")
				}
			}
			if strings.Contains(strings.ToLower(text), "semantic") {
				t.Errorf("embeddings off, yet the answer says semantic:\n%s", text)
			}

			text, ent := c.ok("get_entity", map[string]any{"name": "robin"})
			if ent["found"] != true || !strings.Contains(text, "Robin at Acme") {
				t.Errorf("get_entity: %s", text)
			}
			text, _ = c.ok("get_context", map[string]any{"topic": "Acme"})
			if !strings.Contains(text, "reached by: ") {
				t.Errorf("get_context: %s", text)
			}

			_, cap1 := c.ok("capture_fact", map[string]any{"content": "The user prefers Go for backend services.", "importance": 0.9, "domain_hint": "tooling"})
			if cap1["stored"] != true || cap1["status"] != "pending" {
				t.Fatalf("capture = %v", cap1)
			}
			text, cap2 := c.ok("capture_fact", map[string]any{"content": "the user prefers Go for backend services"})
			if cap2["stored"] != false || cap2["duplicate"] != true || !strings.Contains(text, "not stored: the same fact was already captured in this session") {
				t.Errorf("duplicate capture: %s", text)
			}
			text, ans = c.ok("search_knowledge", map[string]any{"query": "backend services"})
			if len(list(ans, "results")) != 0 || len(list(ans, "pending")) != 1 || !strings.Contains(text, "Pending (captured, not yet integrated; unverified") {
				t.Errorf("pending capture must be listed apart from results:\n%s", text)
			}
			text, _ = c.ok("get_session_context", map[string]any{})
			if !strings.Contains(text, "# Memory briefing") || !strings.Contains(text, "The user prefers Go for backend services.") ||
				!strings.Contains(text, "## Captured this session, not yet consolidated (unverified)") {
				t.Errorf("get_session_context:\n%s", text)
			}
			c.ok("consolidate", map[string]any{"all": true})
			text, _ = c.ok("get_schemas", map[string]any{})
			if !strings.Contains(text, `"tooling" (1 active fact)`) {
				t.Errorf("get_schemas: %s", text)
			}
			brief, err := c.read(mcpserver.BriefingURI)
			if err != nil || !strings.Contains(brief, `[fact 4] "The user prefers Go for backend services."`) {
				t.Errorf("briefing after consolidate:\n%s (%v)", brief, err)
			}
		})
	}
}

func TestEventsEpisodesAndStats(t *testing.T) {
	c := start(t, t.TempDir())
	var seqs []float64
	for _, msg := range []string{"what should we do about kubernetes", "maybe later", "ok"} {
		_, out := c.ok("log_event", map[string]any{"role": "user", "event_type": "message", "content": msg, "metadata": map[string]any{"k": 1}})
		seqs = append(seqs, out["seq"].(float64))
	}
	_, evs := c.ok("get_events", map[string]any{"after_sequence": int(seqs[0]), "limit": 5})
	if got := list(evs, "events"); len(got) != 2 || field(got[0], "seq") != seqs[1] {
		t.Errorf("get_events = %v", got)
	}
	text, _, isErr := c.call("get_events", map[string]any{"session_id": "no-such-session"})
	if !isErr || text != `session_id: no session has id "no-such-session"; session ids are in get_events (all_sessions=true) and search results` {
		t.Errorf("get_events of an unknown session: %v %q", isErr, text)
	}
	text, ans := c.ok("search_knowledge", map[string]any{"query": "kubernetes"})
	_ = isErr
	if len(list(ans, "results")) != 0 || len(list(ans, "episodes")) != 1 ||
		!strings.Contains(text, "Episodes (raw conversation events, NOT knowledge; shown because no fact matched)") {
		t.Errorf("episodes:\n%s", text)
	}
	_, st := c.ok("get_stats", map[string]any{})
	if ev, _ := st["events"].(map[string]any); ev["count"] != 3.0 {
		t.Errorf("stats events = %v", st["events"])
	}
	if _, ok := st["unextracted_events"].(float64); !ok {
		t.Errorf("stats lacks the extract backlog number: %v", st)
	}
	brief, _ := c.read(mcpserver.BriefingURI)
	if !strings.Contains(brief, "Note: 1 raw event awaits extraction (consolidate)") {
		t.Errorf("briefing lacks the backlog note:\n%s", brief)
	}
}

func TestInvalidArgumentsNameTheField(t *testing.T) {
	c := start(t, t.TempDir())
	cases := []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{"search_knowledge", map[string]any{}, "query"},
		{"search_knowledge", map[string]any{"query": "  "}, "query"},
		{"search_knowledge", map[string]any{"query": "x", "limit": -1}, "limit"},
		{"search_knowledge", map[string]any{"query": "x", "limit": 1000}, "limit"},
		{"search_knowledge", map[string]any{"query": "x", "limit": "ten"}, "limit"},
		{"search_knowledge", map[string]any{"query": "x", "budget": -3}, "budget"},
		{"search_knowledge", map[string]any{"query": "x", "path": "/etc"}, "path"},
		{"get_entity", map[string]any{"name": "?!"}, "name"},
		{"get_entity", map[string]any{}, "name"},
		{"get_context", map[string]any{"topic": ""}, "topic"},
		{"capture_fact", map[string]any{"content": ""}, "content"},
		{"capture_fact", map[string]any{"content": strings.Repeat("x", 2001)}, "content"},
		{"capture_fact", map[string]any{"content": "A fact.", "confidence": 2}, "confidence"},
		{"capture_fact", map[string]any{"content": "A fact.", "importance": -0.1}, "importance"},
		{"capture_fact", map[string]any{"content": "A fact.", "source_event_id": 999}, "source_event_id"},
		{"log_event", map[string]any{"role": "robot", "event_type": "message", "content": "x"}, "role"},
		{"log_event", map[string]any{"role": "user", "event_type": "shout", "content": "x"}, "event_type"},
		{"log_event", map[string]any{"role": "user", "event_type": "message", "content": " "}, "content"},
		{"log_event", map[string]any{"role": "user", "event_type": "message", "content": "x", "content_type": "video"}, "content_type"},
		{"log_event", map[string]any{"role": "user", "event_type": "message", "content": "x", "metadata": "notjson"}, "metadata"},
		{"get_events", map[string]any{"limit": 501}, "limit"},
		{"get_events", map[string]any{"after_sequence": -1}, "after_sequence"},
		{"consolidate", map[string]any{"limit": -5}, "limit"},
		{"get_schemas", map[string]any{"x": 1}, "x"},
	}
	for _, tc := range cases {
		text, _, isErr := c.call(tc.tool, tc.args)
		if testing.Verbose() {
			t.Logf("%s %v → %s", tc.tool, tc.args, text)
		}
		if !isErr || !strings.Contains(text, tc.field) {
			t.Errorf("%s(%v): error=%v %q; want an error naming %q", tc.tool, tc.args, isErr, text, tc.field)
		}
	}
	// The server is still healthy after every bad call.
	if _, st := c.ok("get_stats", map[string]any{}); st["schema_version"] == nil {
		t.Errorf("stats after bad calls: %v", st)
	}
}

func TestSearchEdgeCasesOverMCP(t *testing.T) {
	c := start(t, t.TempDir())
	c.ok("log_event", map[string]any{"role": "user", "event_type": "message", "content": "I use Neovim with the 東京 colour theme."})
	c.ok("consolidate", map[string]any{})
	for _, q := range []string{"?!?", `"`, "AND", "NEAR(a b)", "te*", "東京", strings.Repeat("Neovim ", 1500), "\x00"} {
		text, ans, isErr := c.call("search_knowledge", map[string]any{"query": q})
		low := strings.ToLower(text)
		if isErr && !strings.HasPrefix(text, "query:") || strings.Contains(low, "sql") || strings.Contains(low, "fts5") {
			t.Errorf("query %.40q: %s", q, text)
		}
		if !isErr && len(list(ans, "results")) == 0 && len(list(ans, "notes")) == 0 && !strings.Contains(text, "No knowledge matches") {
			t.Errorf("query %.40q: empty answer without a reason: %s", q, text)
		}
	}
}

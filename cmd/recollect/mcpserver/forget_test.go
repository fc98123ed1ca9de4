package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// TestForgetToolIsOffUntilTurnedOn: the forget tool is not offered by
// default; with retention.agent_forget it is, says it is irreversible,
// shows a dry run and forgets a session with counts.
func TestForgetToolIsOffUntilTurnedOn(t *testing.T) {
	ctx := context.Background()
	for _, on := range []bool{false, true} {
		cfg := config.Default()
		cfg.Retention.AgentForget = on
		p := openStore(t, t.TempDir(), cfg)
		c := consolidatedServer(t, p,
			store.Event{SessionID: "old", Source: "record", Role: "user", EventType: "message", ContentType: "text", Content: "We deploy the Zephyr billing service with Render every Friday."},
			store.Event{SessionID: "new", Source: "record", Role: "user", EventType: "message", ContentType: "text", Content: "We moved the Atlas search service to Fly.io last week."})
		tools, err := c.cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		offered := false
		for _, tool := range tools.Tools {
			if tool.Name == "forget" {
				offered = true
				if !strings.Contains(tool.Description, "IRREVERSIBLE") || tool.Annotations == nil || tool.Annotations.DestructiveHint == nil || !*tool.Annotations.DestructiveHint {
					t.Errorf("forget tool: %q, %+v", tool.Description, tool.Annotations)
				}
			}
		}
		if offered != on {
			t.Fatalf("agent_forget %v: forget offered %v", on, offered)
		}
		if !on {
			continue
		}
		text, out := c.ok("forget", map[string]any{"session_id": "old", "dry_run": true})
		if !strings.HasPrefix(text, `dry run: session "old" picks 1 fact and 1 raw event; nothing deleted`) || out["dry_run"] != true {
			t.Fatalf("dry run: %q %v", text, out)
		}
		text, out = c.ok("forget", map[string]any{"session_id": "old", "reason": "the user asked"})
		if !strings.HasPrefix(text, "forgot 1 fact and 1 raw event for good: ") || out["rows"].(float64) == 0 {
			t.Fatalf("forget: %q %v", text, out)
		}
		if text, _, isErr := c.call("forget", map[string]any{}); !isErr || !strings.Contains(text, "name what to forget") {
			t.Errorf("no selector: %q", text)
		}
		if text, _ := c.ok("search_knowledge", map[string]any{"query": "Zephyr"}); strings.Contains(strings.ToLower(text), "zephyr billing") {
			t.Errorf("search still finds the forgotten session")
		}
	}
}

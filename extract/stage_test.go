package extract

import (
	"context"
	"database/sql"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// A conversation of tool output alone has nothing to extract; it must still
// count as examined, or its events could never be pruned.
func TestConversationWithoutExtractableEventsIsMarkedExamined(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	add := func(session, role, typ, content string) {
		t.Helper()
		err := db.Tx(ctx, func(tx *sql.Tx) error {
			_, _, err := store.InsertEvent(ctx, tx, &store.Event{SessionID: session, Source: "record", Role: role, EventType: typ, ContentType: "text", Content: content})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	add("tools", "tool", "tool_result", "total 48 drwxr-xr-x 5 root root 4096 Dec  2 13:54 .")
	add("tools", "assistant", "tool_call", `{"name":"Bash","input":{"command":"ls -la"}}`)
	add("talk", "user", "message", "I live in Lisbon with my two cats.")
	add("talk", "tool", "tool_result", "exit status 0 and nothing else to see")

	stage := &Stage{DB: db, Config: config.Default().Extraction, Extractor: Heuristic{}}
	rep, err := stage.Run(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.FactsExtracted != 1 || rep.EventsRemaining != 0 {
		t.Fatalf("report %+v: want 1 fact and nothing remaining", rep)
	}
	for session, want := range map[string]int64{"tools": 2, "talk": 4} {
		if last, _, _ := watermark(t, db, session); last != want {
			t.Errorf("conversation %s examined up to %d, want %d", session, last, want)
		}
	}
	// A new extractable event in the tool-only conversation is still found.
	add("tools", "user", "message", "My build server runs Debian bookworm.")
	if rep, err = stage.Run(ctx, Options{}); err != nil || rep.FactsExtracted != 1 {
		t.Fatalf("second run: %+v, %v", rep, err)
	}
}

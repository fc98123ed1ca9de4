package mcpserver_test

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// After `recollect forget`, get_events no longer hands the sentence back:
// the raw event it came from is gone with the fact.
func TestForgottenSentenceLeavesGetEvents(t *testing.T) {
	dir := t.TempDir()
	c := start(t, dir)
	const sentence = "I am allergic to shellfish, so restaurant suggestions must avoid it."
	c.ok("log_event", map[string]any{"role": "user", "event_type": "message", "content": sentence})
	c.ok("log_event", map[string]any{"role": "user", "event_type": "message", "content": "I prefer tabs over spaces in every Go file."})
	c.ok("consolidate", map[string]any{})
	if text, _ := c.ok("get_events", map[string]any{}); !strings.Contains(text, "shellfish") {
		t.Fatalf("fixture: get_events does not show the sentence before forget:\n%s", text)
	}
	id := storedCount(t, dir, `SELECT coalesce((SELECT id FROM facts WHERE content LIKE '%shellfish%'), 0)`)
	if id == 0 {
		t.Fatal("fixture: the sentence was not extracted as a fact")
	}
	out, err := exec.Command(binary, "forget", "--data", dir, strconv.Itoa(id)).CombinedOutput()
	if err != nil {
		t.Fatalf("forget: %v\n%s", err, out)
	}
	text, _ := c.ok("get_events", map[string]any{})
	if strings.Contains(text, "shellfish") {
		t.Errorf("get_events still returns the forgotten sentence:\n%s", text)
	}
	if !strings.Contains(text, "tabs over spaces") {
		t.Errorf("get_events lost an unrelated event:\n%s", text)
	}
}

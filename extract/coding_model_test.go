package extract

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/extract/model/modeltest"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// codingSession records a small coding session: a compaction summary, the
// user's prompt and the agent's report.
func codingSession(t testing.TB, db *store.DB) (summary, prompt, report int64) {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	if _, err := db.Exec(`INSERT INTO sessions(id, source, project, created_at) VALUES ('s1', 'claude-code', '/home/me/projects/billing', ?)`, store.Now()); err != nil {
		t.Fatal(err)
	}
	evs := []store.Event{
		{Role: "user", EventType: "artifact", ContentType: "text", Metadata: json.RawMessage(`{"compact_summary":true}`),
			Content: "This session is being continued from a previous conversation.\n\nSummary:\n1. Errors and fixes:\n   - **Migration failed on SQLite**: ALTER COLUMN is not supported; rewrote it as a table rebuild.\n\n2. Pending Tasks:\n   - **billing-x.2**: Add the refund endpoint tests\n\n3. Current Work:\n   Writing tests.\n"},
		{Role: "user", EventType: "message", ContentType: "text", Content: "Why does the invoice job time out?"},
		{Role: "assistant", EventType: "message", ContentType: "text", Content: "The invoice job timed out because the PDF renderer was called once per line item; it now renders each invoice once."},
	}
	var seqs []int64
	err := db.Tx(ctx, func(tx *store.Tx) error {
		for i := range evs {
			ev := evs[i]
			ev.SessionID, ev.Source = "s1", "claude-code"
			when := at.Add(time.Duration(i) * time.Minute)
			ev.OccurredAt = &when
			seq, _, err := store.InsertEvent(ctx, tx, &ev)
			if err != nil {
				return err
			}
			seqs = append(seqs, seq)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return seqs[0], seqs[1], seqs[2]
}

// TestModelRouteReadsCodingSessions drives the extract stage against a
// protocol-true OpenAI host: the compaction summary is read without a
// model call (its facts come from the heuristic, and its text is not in
// the prompt), the prompt carries the agent's report and asks for kinds,
// and the model's answer is held to the same rules — a fact that opens
// with a pronoun whose referent is elsewhere is dropped, a kind outside
// the list is normalised.
func TestModelRouteReadsCodingSessions(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	summary, _, report := codingSession(t, db)
	h := modeltest.NewHost(t)
	answer := map[string]any{"facts": []map[string]any{
		{"content": "billing: the invoice job timed out because the PDF renderer ran once per line item; it now renders each invoice once.",
			"kind": "fix", "domain": "work", "confidence": 0.9, "importance": 0.7, "entities": []any{}, "event_ids": []int64{report}},
		{"content": "It was caused by the renderer.", "kind": "fix", "domain": "work", "confidence": 0.9, "importance": 0.5, "entities": []any{}, "event_ids": []int64{report}},
		{"content": "The billing project prefers one render per invoice.", "kind": "preference", "domain": "work", "confidence": 0.9, "importance": 0.5, "entities": []any{}, "event_ids": []int64{report}},
	}}
	b, _ := json.Marshal(answer)
	h.Enqueue(modeltest.Answer{Content: string(b)})
	stage, _ := modelStage(t, db, h.Intelligence("llama3.2:3b"))
	rep, err := stage.Run(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	system, prompt := onlyCall(t, h)
	if strings.Contains(prompt, "Errors and fixes") || strings.Contains(prompt, "table rebuild") {
		t.Errorf("the compaction summary was sent to the model again:\n%s", prompt)
	}
	if !strings.Contains(prompt, "PDF renderer") || !strings.Contains(system, "kind (decision") {
		t.Errorf("prompt lacks the agent's report or the kinds:\n%s\n%s", system, prompt)
	}
	rows, err := db.Query(`SELECT content, kind, producer, event_ids FROM session_facts ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var c, k, p, ids string
		if err := rows.Scan(&c, &k, &p, &ids); err != nil {
			t.Fatal(err)
		}
		got = append(got, k+"|"+p+"|"+c)
	}
	want := []string{
		"fix|heuristic|billing: Migration failed on SQLite: ALTER COLUMN is not supported; rewrote it as a table rebuild.",
		"task|heuristic|billing: task: billing-x.2: Add the refund endpoint tests",
		"fix|http|billing: the invoice job timed out because the PDF renderer ran once per line item; it now renders each invoice once.",
		"rule|http|The billing project prefers one render per invoice.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("facts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[len(rep.Warnings)-1], "1 of the model's facts did not stand alone") {
		t.Errorf("warnings %q do not say a fact was dropped", rep.Warnings)
	}
	_ = summary
}

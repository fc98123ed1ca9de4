package pipeline

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// After forget, nothing of the sentence is left in the database file or
// its write-ahead log: not the fact, not the extracted facts, not the raw
// events it came from (deleted when nothing else cites them, emptied when
// something does), not an index term.
func TestForgetLeavesNothingOnDisk(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	p.Config.Extraction.WorkingMemorySize = 0
	robin := "My colleague Robin at Acme is leading the Atlas migration to Postgres this quarter."
	seqs := say(t, p, "s1", shellfish, robin)
	say(t, p, "s2", shellfish)
	// The sentence inside a longer tool result that no fact cites.
	tool, err := p.Record(ctx, []store.Event{{SessionID: "s2", Source: "record", Role: "tool", EventType: "tool_result", ContentType: "text",
		Content: "notes.md:\n- " + shellfish + "\n- Bring water."}})
	if err != nil {
		t.Fatal(err)
	}
	consolidate(t, p)
	var id, other int64
	if err := p.db.QueryRowContext(ctx, `SELECT id FROM facts WHERE content = ?`, shellfish).Scan(&id); err != nil {
		t.Fatalf("fixture: no shellfish fact: %v", err)
	}
	if err := p.db.QueryRowContext(ctx, `SELECT id FROM facts WHERE content = ?`, robin).Scan(&other); err != nil {
		t.Fatalf("fixture: no Robin fact: %v", err)
	}
	// Another fact also cites the first shellfish event: that event stays
	// (its row is someone's provenance) but loses its text.
	if _, err := p.db.ExecContext(ctx, `INSERT INTO fact_provenance(fact_id, event_seq, session_id, added_at) VALUES (?, ?, 's1', '2026-01-01T00:00:00Z')`, other, seqs[0]); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{p.db.Path, p.db.Path + "-wal"} {
		if data, _ := os.ReadFile(f); !bytes.Contains(bytes.ToLower(data), []byte("shellfish")) && f == p.db.Path+"-wal" {
			t.Fatalf("fixture: %s does not hold the sentence before forget", f)
		}
	}

	var rep ForgetReport
	rep, err = p.Forget(ctx, []int64{id}, ForgetOptions{Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ScrubbedEvents != 1 || rep.RowsBy["session_events"] != 2 || rep.WAL != "truncated" {
		t.Errorf("report: scrubbed %d, deleted %d events, wal %q; want 1, 2 (the second saying and the notes), truncated",
			rep.ScrubbedEvents, rep.RowsBy["session_events"], rep.WAL)
	}
	var content string
	if err := p.db.QueryRowContext(ctx, `SELECT content FROM session_events WHERE seq = ?`, seqs[0]).Scan(&content); err != nil || content != ForgottenText {
		t.Errorf("cited event content %q (%v), want %q", content, err, ForgottenText)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM session_events WHERE seq = ?`, tool.Seqs[0]); n != 0 {
		t.Errorf("the uncited event holding the sentence is still stored")
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM session_events WHERE content = ?`, robin); n != 1 {
		t.Errorf("an unrelated event was touched")
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM events_fts WHERE events_fts MATCH 'shellfish'`); n != 0 {
		t.Errorf("events index still finds the word: %d", n)
	}
	leftovers(t, p, "shellfish")
	if _, err := p.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{p.db.Path, p.db.Path + "-wal"} {
		data, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, word := range []string{"shellfish", "allergic", "restaurant suggestions"} {
			if bytes.Contains(bytes.ToLower(data), []byte(word)) {
				t.Errorf("%s still holds %q after forget and a checkpoint", f, word)
			}
		}
	}
}

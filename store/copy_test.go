package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// fill writes a little of every layer: events, a pending fact, facts with
// provenance in an order that is not their key order, an entity link, a
// vector and its code.
func fill(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	err := db.Tx(ctx, func(tx *store.Tx) error {
		for i := range 3 {
			ev := store.Event{SessionID: "s", Source: "record", Role: "user", EventType: "message", ContentType: "text", Content: fmt.Sprintf("line %d about Lisbon", i)}
			if i == 2 {
				ev.Content += " with a NUL \x00 and \xff" // SQLite keeps these bytes; PostgreSQL's text cannot
			}
			if _, _, err := store.InsertEvent(ctx, tx, &ev); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := addFacts(t, db, "I live in Lisbon", "We deploy with Render", "Berlin is cold")
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO fact_provenance(fact_id, event_seq, session_id, added_at) VALUES (?, 3, 's', 'a'), (?, 1, 's', 'b'), (?, 2, 's', 'c')`, []any{ids[2], ids[0], ids[1]}},
		{`INSERT INTO entities(type, name, canonical, fold, created_at) VALUES ('place', 'Lisbon', 'lisbon', 'lisbon', 'a')`, nil},
		{`INSERT INTO fact_entities(fact_id, entity_id, role, is_subject) VALUES (?, 1, 'mention', 0)`, []any{ids[0]}},
		{`INSERT INTO embeddings(fact_id, provider, model, dim, vector, created_at) VALUES (?, 'p', 'm', 2, ?, 'a')`, []any{ids[0], []byte{1, 2, 3, 4, 5, 6, 7, 8}}},
		{`INSERT INTO vector_codes(fact_id, provider, model, dim, code) VALUES (?, 'p', 'm', 2, ?)`, []any{ids[0], []byte{1}}},
		{`INSERT INTO session_facts(session_id, content, digest, producer, created_at) VALUES ('s', 'pending one', 'pd', 'capture', 'a')`, nil},
		// The first fact's successor has a higher key, so a copy in key
		// order meets the reference before the row it names.
		{`UPDATE facts SET status = 'superseded', superseded_by = ? WHERE id = ?`, []any{ids[2], ids[0]}},
	} {
		if _, err := db.ExecContext(ctx, q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
}

// checkSuccessor checks that fill's superseded fact still names its
// successor.
func checkSuccessor(t *testing.T, db *store.DB) {
	t.Helper()
	var status string
	var next *int64
	if err := db.QueryRowContext(context.Background(), `SELECT status, superseded_by FROM facts WHERE id = 1`).Scan(&status, &next); err != nil {
		t.Fatal(err)
	}
	if status != "superseded" || next == nil || *next != 3 {
		t.Errorf("%s: fact 1 after the copy is %s, superseded by %v; want superseded by 3", db.Engine().Name(), status, next)
	}
}

// TestCopyKeepsSuccessors copies a SQLite store into another (no server
// needed): a fact superseded by a later one keeps its successor, and the
// copy checks every table's count.
func TestCopyKeepsSuccessors(t *testing.T) {
	a, b := storetest.Open(t, "sqlite"), storetest.Open(t, "sqlite")
	fill(t, a)
	counts, err := store.Copy(context.Background(), a, b)
	if err != nil {
		t.Fatalf("copy: %v", err)
	}
	for _, tc := range counts {
		if tc.Source != tc.Dest {
			t.Errorf("%s: %d → %d", tc.Table, tc.Source, tc.Dest)
		}
	}
	checkSuccessor(t, b)
}

func provenanceOrder(t *testing.T, db *store.DB) []int64 {
	t.Helper()
	return storetest.Column[int64](t, db, `SELECT p.event_seq FROM fact_provenance p ORDER BY `+db.Engine().InsertOrder("p"))
}

// TestCopyBetweenEngines copies a store from SQLite to PostgreSQL and back:
// every table's count matches, ids and insert order are kept, each
// provenance row's adjacent facts are its session's (on PostgreSQL relinked
// once at the copy's end), a second run writes nothing, and new rows take
// ids after the copied ones.
func TestCopyBetweenEngines(t *testing.T) {
	ctx := context.Background()
	a := storetest.Open(t, "sqlite")
	b := storetest.Open(t, "postgres")
	c := storetest.Open(t, "sqlite")
	fill(t, a)
	for _, hop := range []struct{ from, to *store.DB }{{a, b}, {b, c}} {
		counts, err := store.Copy(ctx, hop.from, hop.to)
		if err != nil {
			t.Fatalf("copy %s → %s: %v", hop.from.Engine().Name(), hop.to.Engine().Name(), err)
		}
		for _, tc := range counts {
			if tc.Source != tc.Dest {
				t.Errorf("%s: %d → %d", tc.Table, tc.Source, tc.Dest)
			}
		}
		again, err := store.Copy(ctx, hop.from, hop.to)
		if err != nil {
			t.Fatalf("copy again: %v", err)
		}
		for _, tc := range again {
			if tc.Copied && tc.Source > 0 {
				t.Errorf("copy again rewrote %s", tc.Table)
			}
		}
	}
	if got, want := provenanceOrder(t, c), provenanceOrder(t, a); !slices.Equal(got, want) || len(got) != 3 {
		t.Errorf("provenance order after two copies %v, want %v", got, want)
	}
	for _, db := range []*store.DB{b, c} {
		checkSuccessor(t, db)
		checkFactCounts(t, db, "a copy into "+db.Engine().Name())
		checkAdjacent(t, db, "a copy into "+db.Engine().Name())
	}
	for _, db := range []*store.DB{b, c} {
		ids := addFacts(t, db, "a fact written after the copy")
		if ids[0] != 4 {
			t.Errorf("%s: new fact id %d, want 4 (after the copied 1..3)", db.Engine().Name(), ids[0])
		}
	}
	d := storetest.Open(t, "sqlite")
	addFacts(t, d, "something else")
	if _, err := store.Copy(ctx, a, d); err == nil {
		t.Error("copy into a store holding other facts: want a refusal")
	}
}

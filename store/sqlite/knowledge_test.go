package sqlite

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/recollect/recollect/store"
)

// knowledgeStore is topkStore's facts with two entities, Altair and
// Vega, each naming some of them (a third of those as their subject).
func knowledgeStore(t *testing.T) (db *store.DB, altair, vega int64) {
	t.Helper()
	ctx := context.Background()
	db = topkStore(t, 400)
	for _, name := range []string{"Altair", "Vega"} {
		var id int64
		if err := db.QueryRowContext(ctx, `INSERT INTO entities(type, name, canonical, fold, created_at) VALUES ('thing', ?, ?, ?, ?) RETURNING id`,
			name, strings.ToLower(name), strings.ToLower(name), store.Now()).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if name == "Altair" {
			altair = id
		} else {
			vega = id
		}
	}
	for f := int64(1); f <= 400; f++ {
		for _, link := range []struct{ entity, every int64 }{{altair, 7}, {vega, 11}} {
			if f%link.every != 0 {
				continue
			}
			if _, err := db.ExecContext(ctx, `INSERT INTO fact_entities(fact_id, entity_id, role, is_subject) VALUES (?, ?, 'mention', ?)`,
				f, link.entity, f%3 == 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	return db, altair, vega
}

// knowledgeQuery is the entity arm's query for Altair and Vega over the
// active facts.
var knowledgeQuery = store.EntityQuery{
	Folds: []string{"altair", "vega"}, Cond: "f.status = ?", Args: []any{"active"},
	CountCap: 1000, FactCap: 40, Depth: 60, Unit: 1 << 20,
}

// windowQuery is knowledgeQuery under a retention window from 2000 on,
// the condition graph's factWithin writes: a fact passes when an event it
// cites happened since, or, citing none, it was said or recorded since.
var windowQuery = store.EntityQuery{
	Folds: []string{"altair", "vega"},
	Cond: `f.status = ? AND (EXISTS (SELECT 1 FROM fact_provenance wv JOIN session_events we ON we.seq = wv.event_seq
			WHERE wv.fact_id = f.id AND COALESCE(we.occurred_at, we.recorded_at) >= ?)
		OR (NOT EXISTS (SELECT 1 FROM fact_provenance wv WHERE wv.fact_id = f.id AND wv.event_seq IS NOT NULL)
			AND COALESCE(f.said_at, f.recorded_at) >= ?))`,
	Args:     []any{"active", "2000-01-01T00:00:00Z", "2000-01-01T00:00:00Z"},
	CountCap: 1000, FactCap: 40, Depth: 60, Unit: 1 << 20,
}

// knowledgeText is the keyword arm's query: words whose counts a fact
// written in the cases below changes.
var knowledgeText = store.TextQuery{"zebra3", "note", "project"}

// cachedAnswers searches db twice through its engine's caches (the first
// search at a version fills them, the second is served by them) and
// fails unless each answer is what a search without the caches gives; it
// returns that answer.
func cachedAnswers(t *testing.T, db *store.DB, what string) string {
	t.Helper()
	ctx := context.Background()
	eng := db.Engine().(sqliteEngine)
	wantTop := topOf(t, ctx, db, nil, knowledgeText, 20)
	want := wantTop
	for _, q := range []store.EntityQuery{knowledgeQuery, windowQuery} {
		rows, err := store.EntityFactsInSteps(ctx, db, q)
		if err != nil {
			t.Fatal(err)
		}
		want += fmt.Sprintf("\n%+v", sortedEntities(rows))
	}
	for search := range 2 {
		got := topOf(t, ctx, db, eng.counts, knowledgeText, 20)
		for _, q := range []store.EntityQuery{knowledgeQuery, windowQuery} {
			rows, err := eng.EntityFacts(ctx, db, q)
			if err != nil {
				t.Fatal(err)
			}
			got += fmt.Sprintf("\n%+v", sortedEntities(rows))
		}
		if got != want {
			t.Errorf("%s, search %d: with the caches\n%s\nwithout\n%s", what, search+1, got, want)
		}
	}
	return want
}

// sortedEntities is rows with each fact's entities sorted, the one part
// whose order the rows leave open.
func sortedEntities(rows store.EntityRows) store.EntityRows {
	out := store.EntityRows{Names: rows.Names}
	for _, f := range rows.Facts {
		ids := strings.Split(f.Entities, ",")
		slices.Sort(ids)
		f.Entities = strings.Join(ids, ",")
		out.Facts = append(out.Facts, f)
	}
	return out
}

// knowledgeVersion is the knowledge version db's caches are kept under.
func knowledgeVersion(t *testing.T, db *store.DB) int64 {
	t.Helper()
	v, ok, err := db.Engine().(sqliteEngine).counts.key()
	if err != nil || !ok {
		t.Fatalf("knowledge version: %v, %v", ok, err)
	}
	return v
}

// TestKnowledgeVersionWrites: every kind of write to what the search
// caches derive from, committed by another handle on the file (as another
// process would), changes the knowledge version, and the searches after
// it give what searches without the caches give; copying a transcript
// line changes the data version and leaves the knowledge version as it
// was.
func TestKnowledgeVersionWrites(t *testing.T) {
	ctx := context.Background()
	db, altair, vega := knowledgeStore(t)
	other, err := Open(ctx, db.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	newest := func() int64 {
		var id int64
		if err := other.QueryRowContext(ctx, `SELECT max(id) FROM facts`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	cases := []struct {
		name string
		// changes: the answers differ after the write, so kept ones
		// would be stale.
		changes bool
		write   func() []string
	}{
		{"fact stored", true, func() []string {
			c := "zebra3 zebra3 note project stored"
			return []string{fmt.Sprintf(`INSERT INTO facts(content, digest, producer, recorded_at) VALUES ('%s', '%s', 'cli', '%s')`, c, store.Digest(c), store.Now())}
		}},
		{"entity linked", true, func() []string {
			return []string{fmt.Sprintf(`INSERT INTO fact_entities(fact_id, entity_id, role, is_subject) VALUES (%d, %d, 'mention', 1)`, newest(), altair)}
		}},
		{"fact superseded", true, func() []string {
			return []string{fmt.Sprintf(`UPDATE facts SET status = 'superseded', superseded_by = %d WHERE id = 399`, newest())}
		}},
		{"importance changed", true, func() []string {
			return []string{`UPDATE facts SET importance = 0.99 WHERE id = 350`}
		}},
		{"subject changed", true, func() []string {
			return []string{fmt.Sprintf(`UPDATE fact_entities SET is_subject = 1 WHERE fact_id = 385 AND entity_id = %d`, altair)}
		}},
		{"entity unlinked", true, func() []string {
			return []string{fmt.Sprintf(`DELETE FROM fact_entities WHERE fact_id = 378 AND entity_id = %d`, altair)}
		}},
		{"fact forgotten", true, func() []string {
			return []string{`DELETE FROM fact_entities WHERE fact_id = 371`, `DELETE FROM facts WHERE id = 371`}
		}},
		{"fact without entities forgotten", true, func() []string {
			return []string{`DELETE FROM facts WHERE id = 370`}
		}},
		{"entity renamed", true, func() []string {
			return []string{fmt.Sprintf(`UPDATE entities SET name = 'Altair Prime' WHERE id = %d`, altair)}
		}},
		{"alias added", false, func() []string {
			return []string{fmt.Sprintf(`INSERT INTO entity_aliases(entity_id, alias, fold) VALUES (%d, 'Alpha Aquilae', 'alpha aquilae')`, altair)}
		}},
		{"entity added", false, func() []string {
			return []string{`INSERT INTO entities(type, name, canonical, fold, created_at) VALUES ('thing', 'Deneb', 'deneb', 'deneb', '` + store.Now() + `')`}
		}},
		{"old event cited", true, func() []string {
			return []string{
				`INSERT INTO sessions(id, source, created_at) VALUES ('s-old', 'record', '1999-01-01T00:00:00Z')`,
				`INSERT INTO session_events(session_id, source, role, event_type, content_type, content, occurred_at, recorded_at)
					VALUES ('s-old', 'record', 'user', 'message', 'text', 'said long ago', '1999-01-01T00:00:00Z', '1999-01-01T00:00:00Z')`,
				`INSERT INTO fact_provenance(fact_id, event_seq, session_id, added_at) VALUES (364, (SELECT max(seq) FROM session_events), 's-old', '1999-01-01T00:00:00Z')`,
			}
		}},
		{"event time changed", true, func() []string {
			return []string{`UPDATE session_events SET occurred_at = '2020-01-01T00:00:00Z' WHERE session_id = 's-old'`}
		}},
		{"event deleted", true, func() []string {
			return []string{`DELETE FROM session_events WHERE session_id = 's-old'`}
		}},
		{"provenance moved", true, func() []string {
			return []string{`UPDATE fact_provenance SET fact_id = 357 WHERE fact_id = 364`}
		}},
		{"provenance removed", true, func() []string {
			return []string{`DELETE FROM fact_provenance WHERE fact_id = 357`}
		}},
		{"alias renamed", false, func() []string {
			return []string{`UPDATE entity_aliases SET alias = 'Altair of Aquila', fold = 'altair of aquila' WHERE fold = 'alpha aquilae'`}
		}},
		{"alias removed", false, func() []string {
			return []string{`DELETE FROM entity_aliases WHERE fold = 'altair of aquila'`}
		}},
		{"entity removed", false, func() []string {
			return []string{`DELETE FROM entities WHERE fold = 'deneb'`}
		}},
		{"entities merged", true, func() []string {
			return []string{
				fmt.Sprintf(`UPDATE fact_entities SET entity_id = %d WHERE entity_id = %d AND fact_id NOT IN (SELECT fact_id FROM fact_entities WHERE entity_id = %d)`, altair, vega, altair),
				fmt.Sprintf(`DELETE FROM entities WHERE id = %d`, vega),
			}
		}},
	}
	for _, c := range cases {
		before := cachedAnswers(t, db, c.name+", before")
		v := knowledgeVersion(t, db)
		for _, stmt := range c.write() {
			if _, err := other.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("%s: %s: %v", c.name, stmt, err)
			}
		}
		if knowledgeVersion(t, db) == v {
			t.Errorf("%s: the knowledge version stayed %d", c.name, v)
		}
		after := cachedAnswers(t, db, c.name)
		if c.changes && after == before {
			t.Errorf("%s: the write did not change the answers; the case cannot tell stale ones", c.name)
		}
	}

	cachedAnswers(t, db, "before the copy")
	v := knowledgeVersion(t, db)
	dv, _, err := db.DataVersion()
	if err != nil {
		t.Fatal(err)
	}
	copyLine(t, other, "s-known", "a transcript line")
	if d, _, _ := db.DataVersion(); d == dv {
		t.Fatal("the copy did not change the data version; the test cannot tell the two keys apart")
	}
	if got := knowledgeVersion(t, db); got != v {
		t.Errorf("copying a transcript line changed the knowledge version from %d to %d", v, got)
	}
	cachedAnswers(t, db, "after the copy")
}

// copyLine stores a transcript line of session as the daemon's copy does:
// the session's row, then the event.
func copyLine(t *testing.T, db *store.DB, session, line string) {
	t.Helper()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `INSERT INTO sessions(id, source, created_at) VALUES (?, 'claude-code', ?) ON CONFLICT(id) DO UPDATE SET last_at = excluded.created_at`,
		session, store.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO session_events(session_id, source, role, event_type, content_type, content, recorded_at)
		VALUES (?, 'claude-code', 'user', 'message', 'text', ?, ?)`, session, line, store.Now()); err != nil {
		t.Fatal(err)
	}
}

// heldRows is how many facts the list cache holds between its lists.
func (c *listCache) heldRows() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rows
}

// TestCachesKeptAcrossCopies: transcript lines copied by another handle
// (the daemon's copier, or another process) between two searches leave
// the words' counts and the entities' lists held: the next search finds
// the lists kept at once and adds its words to those held. An engine
// keyed on every commit (CommitKeyed) drops them, which is what the test
// tells apart.
func TestCachesKeptAcrossCopies(t *testing.T) {
	ctx := context.Background()
	db, altair, vega := knowledgeStore(t)
	other, err := Open(ctx, db.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	commitKeyed, ok := CommitKeyed(db)
	if !ok {
		t.Fatal("CommitKeyed refused the store's own handle")
	}
	for _, c := range []struct {
		name string
		eng  sqliteEngine
		kept bool
	}{
		{"keyed on knowledge", db.Engine().(sqliteEngine), true},
		{"keyed on commits", commitKeyed.(sqliteEngine), false},
	} {
		for range 2 {
			if _, err := c.eng.EntityFacts(ctx, db, knowledgeQuery); err != nil {
				t.Fatal(err)
			}
			if _, _, _, err := topFactText(ctx, db, c.eng.counts, knowledgeText, 20, topTextMin{}); err != nil {
				t.Fatal(err)
			}
		}
		words, rows := c.eng.counts.cachedWords(), c.eng.lists.heldRows()
		if words != len(knowledgeText) || rows == 0 {
			t.Fatalf("%s: the searches keep %d words' counts and %d facts of lists; want %d and some", c.name, words, rows, len(knowledgeText))
		}
		copyLine(t, other, "s-"+c.name, "the prompt the hook searches")
		kept := c.eng.lists.view(db)
		if (kept != nil) != c.kept {
			t.Errorf("%s: after a copy, lists kept for the next search: %v; want %v", c.name, kept != nil, c.kept)
		}
		if kept != nil && len(kept.Held(store.EntityListKey(knowledgeQuery), []int64{altair, vega})) == 0 {
			t.Errorf("%s: after a copy the view holds no list", c.name)
		}
		more := store.TextQuery{"release", "alpha"}
		if _, _, _, err := topFactText(ctx, db, c.eng.counts, more, 20, topTextMin{}); err != nil {
			t.Fatal(err)
		}
		want := len(more)
		if c.kept {
			want += words
		}
		if got := c.eng.counts.cachedWords(); got != want {
			t.Errorf("%s: after a copy and a search of %d new words the cache holds %d words' counts; want %d", c.name, len(more), got, want)
		}
	}
}

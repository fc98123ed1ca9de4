package graph_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/sqlite"
)

// day0 is the fixtures' first day; dayN(n) is n days later.
var day0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func dayN(n int) string { return store.FormatTime(day0.Add(time.Duration(n) * 24 * time.Hour)) }

func newDB(tb testing.TB) *store.DB {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// ent is an entity a fixture fact names.
type ent struct {
	name, typ, role string
	subject         bool
}

// fact is a fixture row of the facts table with its links.
type fact struct {
	content     string
	domain      string
	importance  float64
	status      string
	said        string
	recorded    string
	retracted   string
	session     string
	events      []int64
	entities    []ent
	speakerRole string
}

func addFact(tb testing.TB, db *store.DB, f fact) int64 {
	tb.Helper()
	ctx := context.Background()
	if f.domain == "" {
		f.domain = "general"
	}
	if f.importance == 0 {
		f.importance = 0.5
	}
	if f.status == "" {
		f.status = "active"
	}
	if f.recorded == "" {
		f.recorded = dayN(0)
	}
	if f.session == "" {
		f.session = "s1"
	}
	if f.speakerRole == "" {
		f.speakerRole = "user"
	}
	var id int64
	err := db.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.QueryRowContext(ctx, `INSERT INTO facts(content, digest, domain, confidence, importance, status, producer,
			speaker_role, session_id, said_at, valid_from, recorded_at, retracted_at) VALUES (?,?,?,0.7,?,?,'heuristic',?,?,?,?,?,?) RETURNING id`,
			f.content, store.Digest(f.content), f.domain, f.importance, f.status, f.speakerRole, f.session,
			nullable(f.said), nullable(f.said), f.recorded, nullable(f.retracted)).Scan(&id); err != nil {
			return err
		}
		for _, ev := range f.events {
			if _, err := tx.ExecContext(ctx, `INSERT INTO fact_provenance(fact_id, event_seq, session_id, said_at, added_at) VALUES (?,?,?,?,?)`,
				id, ev, f.session, nullable(f.said), f.recorded); err != nil {
				return err
			}
		}
		var ids []int64
		for _, e := range f.entities {
			eid, err := integrate.ResolveEntity(ctx, tx, e.name, e.typ)
			if err != nil {
				return err
			}
			role := e.role
			if role == "" {
				role = "mention"
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO fact_entities(fact_id, entity_id, role, is_subject) VALUES (?,?,?,?)`, id, eid, role, e.subject); err != nil {
				return err
			}
			ids = append(ids, eid)
		}
		for i := range ids {
			for j := i + 1; j < len(ids); j++ {
				a, b := min(ids[i], ids[j]), max(ids[i], ids[j])
				if _, err := tx.ExecContext(ctx, `INSERT INTO entity_edges(a_id, b_id, relation, strength, fact_id, updated_at)
					VALUES (?,?,'co_mention',1,?,?) ON CONFLICT(a_id, b_id, relation) DO UPDATE SET strength = strength + 1`, a, b, id, f.recorded); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

// supersede marks old as replaced by new, as integrate does.
func supersede(tb testing.TB, db *store.DB, old, new int64) {
	tb.Helper()
	if _, err := db.ExecContext(context.Background(), `UPDATE facts SET status = 'superseded', superseded_by = ? WHERE id = ?`, new, old); err != nil {
		tb.Fatal(err)
	}
}

func addEvent(tb testing.TB, db *store.DB, session, role, content string) int64 {
	tb.Helper()
	var seq int64
	err := db.Tx(context.Background(), func(tx *store.Tx) error {
		ev := store.Event{SessionID: session, Source: "record", Role: role, EventType: "message", ContentType: "text", Content: content}
		var err error
		seq, _, err = store.InsertEvent(context.Background(), tx, &ev)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return seq
}

func addPending(tb testing.TB, db *store.DB, session, content string) {
	tb.Helper()
	if _, err := db.ExecContext(context.Background(), `INSERT INTO session_facts(session_id, content, digest, producer, status, created_at)
		VALUES (?,?,?,'capture','pending',?)`, session, content, store.Digest(content), dayN(0)); err != nil {
		tb.Fatal(err)
	}
}

func addVector(tb testing.TB, db *store.DB, id int64, sp vector.Space, v []float32) {
	tb.Helper()
	b, err := vector.Encode(v)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := db.ExecContext(context.Background(), `INSERT INTO embeddings(fact_id, provider, model, dim, vector, created_at) VALUES (?,?,?,?,?,?)`,
		id, sp.Provider, sp.Model, sp.Dim, b, dayN(0)); err != nil {
		tb.Fatal(err)
	}
}

// search answers q as a one-shot command does: a reader of its own.
func search(tb testing.TB, db *store.DB, q graph.Query) graph.Answer {
	tb.Helper()
	r := graph.NewReader(db)
	defer r.Close()
	return searchWith(tb, r, q)
}

// searchWith answers q through r, as a long-running server does.
func searchWith(tb testing.TB, r *graph.Reader, q graph.Query) graph.Answer {
	tb.Helper()
	ans, err := r.Search(context.Background(), q)
	if err != nil {
		tb.Fatalf("search %q: %v", q.Text, err)
	}
	return ans
}

func ids(hits []graph.Hit) []int64 {
	out := []int64{}
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

func find(hits []graph.Hit, id int64) *graph.Hit {
	for i := range hits {
		if hits[i].ID == id {
			return &hits[i]
		}
	}
	return nil
}

func toJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// reopenReader opens dir's store again and a reader on it, as a new
// process does; both close when the test ends.
func reopenReader(t *testing.T, dir string) *graph.Reader {
	t.Helper()
	h, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	r := graph.NewReader(h)
	t.Cleanup(func() { r.Close(); h.Close() })
	return r
}

package integrate_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"
	"time"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// day is a fixed calendar day of the tests.
func day(n int) time.Time { return time.Date(2026, 1, n, 9, 0, 0, 0, time.UTC) }

// statement is something said in a conversation, extracted as one fact.
type statement struct {
	session, text string
	day           int
	role          string // user when empty
	entities      string // the extract's entities JSON, if any
	domain        string
}

// say records the statement as an event and its pending session fact, the
// way the extract stage writes them.
func say(tb testing.TB, db *store.DB, s statement) int64 {
	tb.Helper()
	ctx := context.Background()
	if s.session == "" {
		s.session = "s1"
	}
	if s.role == "" {
		s.role = "user"
	}
	at := day(s.day)
	var sfID int64
	err := db.Tx(ctx, func(tx *store.Tx) error {
		ev := store.Event{SessionID: s.session, Source: "record", Role: s.role, EventType: "message", ContentType: "text",
			Content: s.text, OccurredAt: &at}
		seq, _, err := store.InsertEvent(ctx, tx, &ev)
		if err != nil {
			return err
		}
		c := extract.Candidate{Content: s.text, Domain: s.domain, Confidence: 0.8, Importance: 0.5, EventIDs: []int64{seq},
			SpeakerRole: s.role, SaidAt: &at}
		if s.entities != "" {
			c.Entities = json.RawMessage(s.entities)
		}
		if _, err := extract.InsertSessionFact(ctx, tx, s.session, "heuristic", "", c); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT max(id) FROM session_facts`).Scan(&sfID)
	})
	if err != nil {
		tb.Fatal(err)
	}
	return sfID
}

func newIntegrator(db *store.DB, now time.Time) *integrate.Integrator {
	return &integrate.Integrator{DB: db, Config: config.Default(), Now: func() time.Time { return now }}
}

func run(tb testing.TB, in *integrate.Integrator) integrate.Report {
	tb.Helper()
	rep, err := in.Run(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

// fact is a K row as the tests look at it.
type fact struct {
	ID           int64
	Status       string
	SupersededBy int64
	ValidUntil   string
	RetractedAt  string
	Domain       string
}

func factNamed(tb testing.TB, db *store.DB, content string) fact {
	tb.Helper()
	var f fact
	var by sql.NullInt64
	var vu, ret sql.NullString
	err := db.QueryRowContext(context.Background(), `SELECT id, status, superseded_by, valid_until, retracted_at, domain FROM facts WHERE content = ?`, content).
		Scan(&f.ID, &f.Status, &by, &vu, &ret, &f.Domain)
	if err != nil {
		tb.Fatalf("fact %q: %v", content, err)
	}
	f.SupersededBy, f.ValidUntil, f.RetractedAt = by.Int64, vu.String, ret.String
	return f
}

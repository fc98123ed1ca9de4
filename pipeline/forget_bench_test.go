package pipeline

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// forgetStore fills p with n user events, each the source of one
// extracted and one integrated fact (provenance and citations as
// integrate writes them), and returns the facts' ids.
func forgetStore(tb testing.TB, p *Pipeline, n int) []int64 {
	tb.Helper()
	ctx := context.Background()
	var ids []int64
	err := p.db.Tx(ctx, func(tx *store.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO sessions(id, source, created_at) VALUES ('s', 'record', ?)`, store.Now()); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			text := fmt.Sprintf("Service %d of the fleet listens on port %d and logs to /var/log/svc%d.", i, 10000+i, i)
			ev := store.Event{SessionID: "s", Source: "record", Role: "user", EventType: "message", ContentType: "text", Content: text}
			seq, _, err := store.InsertEvent(ctx, tx, &ev)
			if err != nil {
				return err
			}
			sf, _, err := tx.InsertID(ctx, "id", `INSERT INTO session_facts(session_id, content, digest, producer, event_ids, status, created_at)
				VALUES ('s', ?, ?, 'heuristic', ?, 'integrated', ?)`, text, store.Digest(text), fmt.Sprintf("[%d]", seq), store.Now())
			if err != nil {
				return err
			}
			id, _, err := tx.InsertID(ctx, "id", `INSERT INTO facts(content, digest, producer, session_id, recorded_at) VALUES (?, ?, 'heuristic', 's', ?)`,
				text, store.Digest(text), store.Now())
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE session_facts SET fact_id = ? WHERE id = ?`, id, sf); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO fact_provenance(fact_id, session_fact_id, event_seq, session_id, added_at) VALUES (?,?,?,?,?)`,
				id, sf, seq, "s", store.Now()); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return ids
}

// BenchmarkForget times forgetting 1,000 facts of a store of 20,000
// events and facts, each with its events and extracted facts, against a
// baseline in the same process that deletes the same facts' rows with
// plain statements (no search for the events holding their text), and
// reports the ratio. Run:
//
//	go test -tags sqlite_fts5 -run '^$' -bench Forget -benchtime 3x ./pipeline
func BenchmarkForget(b *testing.B) {
	ctx := context.Background()
	var inForget, inBase time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		p := openTest(b)
		ids := forgetStore(b, p, 20000)
		q := openTest(b)
		qids := forgetStore(b, q, 20000)
		b.StartTimer()
		start := time.Now()
		if _, err := p.Forget(ctx, ids[:1000], ForgetOptions{Reason: "bench"}); err != nil {
			b.Fatal(err)
		}
		inForget += time.Since(start)
		start = time.Now()
		err := q.db.Tx(ctx, func(tx *store.Tx) error {
			for _, id := range qids[:1000] {
				for _, stmt := range []string{`DELETE FROM fact_provenance WHERE fact_id = ?`, `DELETE FROM session_facts WHERE fact_id = ?`, `DELETE FROM facts WHERE id = ?`} {
					if _, err := tx.ExecContext(ctx, stmt, id); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		inBase += time.Since(start)
	}
	b.ReportMetric(float64(inForget.Milliseconds())/float64(b.N), "ms/forget_1000")
	b.ReportMetric(float64(inForget)/float64(inBase), "x_plain_delete")
}

// TestForgetManyFactsAtOnce: 200 of 300 facts forgotten in one call —
// over several transactions — take their events and text with them, and
// the events the other 100 rest on stay.
func TestForgetManyFactsAtOnce(t *testing.T) {
	p := openTest(t)
	ids := forgetStore(t, p, 300)
	rep, err := p.Forget(context.Background(), ids[:200], ForgetOptions{Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Facts) != 200 {
		t.Fatalf("forgot %d facts, want 200", len(rep.Facts))
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM facts`); n != 100 {
		t.Fatalf("%d facts left, want 100", n)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM session_events`); n != 100 {
		t.Fatalf("%d events left, want the 100 the remaining facts rest on", n)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM session_events WHERE content LIKE '%Service 5 of%'`); n != 0 {
		t.Fatalf("a forgotten fact's text is still in an event")
	}
}

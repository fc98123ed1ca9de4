package store_test

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// provRow is a fact_provenance row as Engine.Adjacent's definition reads
// it, with the neighbours the engine answers.
type provRow struct {
	order              int64
	fact               int64
	session            string
	event, captured    sql.NullInt64
	gotPrev, gotNext   sql.NullInt64
	wantPrev, wantNext sql.NullInt64
}

// place is a row's place in its session's order: events first by their
// sequence, captured facts apart by theirs; ok is false for a row of no
// place.
func (r provRow) place() (captured bool, key int64, ok bool) {
	switch {
	case r.session == "":
		return false, 0, false
	case r.event.Valid:
		return false, r.event.Int64, true
	case r.captured.Valid:
		return true, r.captured.Int64, true
	}
	return false, 0, false
}

// checkAdjacent reads every provenance row with its neighbours as the
// engine answers them (Engine.Adjacent) and compares them with the
// neighbours worked out here from the rows alone: in the row's session,
// among rows of the same kind (with an event, or captured without one),
// the place just before and the place just after its own; of several
// facts at one place, the highest id before and the lowest after.
func checkAdjacent(t *testing.T, db *store.DB, step string) {
	t.Helper()
	eng := db.Engine()
	rows, err := db.QueryContext(context.Background(), `SELECT `+eng.InsertOrder("p")+`, p.fact_id, COALESCE(p.session_id, ''),
		p.event_seq, p.session_fact_id, `+eng.Adjacent("p")+` FROM fact_provenance p`)
	if err != nil {
		t.Fatalf("after %s: read the neighbours: %v", step, err)
	}
	defer rows.Close()
	var all []provRow
	for rows.Next() {
		var r provRow
		if err := rows.Scan(&r.order, &r.fact, &r.session, &r.event, &r.captured, &r.gotPrev, &r.gotNext); err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for i := range all {
		r := &all[i]
		captured, key, ok := r.place()
		if !ok {
			continue
		}
		// The best before is the highest (place, fact), the best after
		// the lowest.
		var prevKey, nextKey int64
		for _, o := range all {
			oc, at, placed := o.place()
			if !placed || o.session != r.session || oc != captured {
				continue
			}
			if at < key && (!r.wantPrev.Valid || at > prevKey || at == prevKey && o.fact > r.wantPrev.Int64) {
				r.wantPrev, prevKey = sql.NullInt64{Int64: o.fact, Valid: true}, at
			}
			if at > key && (!r.wantNext.Valid || at < nextKey || at == nextKey && o.fact < r.wantNext.Int64) {
				r.wantNext, nextKey = sql.NullInt64{Int64: o.fact, Valid: true}, at
			}
		}
	}
	slices.SortFunc(all, func(a, b provRow) int { return cmp.Compare(a.order, b.order) })
	for _, r := range all {
		if r.gotPrev != r.wantPrev || r.gotNext != r.wantNext {
			t.Errorf("after %s: fact %d (session %q, event %v, captured %v) has neighbours %s, %s; want %s, %s",
				step, r.fact, r.session, nullText(r.event), nullText(r.captured),
				nullText(r.gotPrev), nullText(r.gotNext), nullText(r.wantPrev), nullText(r.wantNext))
		}
	}
}

func nullText(n sql.NullInt64) string {
	if !n.Valid {
		return "none"
	}
	return fmt.Sprint(n.Int64)
}

// addCaptured stores n captured facts of session and returns their ids.
func addCaptured(t *testing.T, db *store.DB, session string, n int) []int64 {
	t.Helper()
	var ids []int64
	for i := range n {
		var id int64
		c := fmt.Sprintf("%s captured %d", session, i)
		if err := db.QueryRowContext(context.Background(), `INSERT INTO session_facts(session_id, content, digest, producer, created_at)
			VALUES (?, ?, ?, 'capture', ?) RETURNING id`, session, c, store.Digest(c), store.Now()).Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// cite adds a provenance row: fact said in session at event (0: none) or
// as the captured fact captured (0: none).
func cite(t *testing.T, q store.Querier, fact int64, session string, event, captured int64) {
	t.Helper()
	var s, e, c any
	if session != "" {
		s = session
	}
	if event != 0 {
		e = event
	}
	if captured != 0 {
		c = captured
	}
	if _, err := q.ExecContext(context.Background(), `INSERT INTO fact_provenance(fact_id, session_fact_id, event_seq, session_id, added_at)
		VALUES (?, ?, ?, ?, ?)`, fact, c, e, s, store.Now()); err != nil {
		t.Fatalf("cite fact %d: %v", fact, err)
	}
}

// TestAdjacentFollowsProvenance writes provenance out of session order —
// one row a statement, several in one statement and in one transaction,
// two facts at one event, captured facts beside events, rows of no place
// — then deletes facts (the middle of a run, the highest of a tie),
// captured facts (their rows lose their place) and moves a row to another
// event: after each step every row's neighbours, as the engine answers
// them (on PostgreSQL the ones its triggers keep), are the ones its
// session's rows define.
func TestAdjacentFollowsProvenance(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		f := addFacts(t, db, "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12", "f13", "f14")
		sf := addCaptured(t, db, "B", 4)
		checkAdjacent(t, db, "nothing")
		for _, c := range []struct{ fact, event int64 }{{f[3], 30}, {f[1], 10}, {f[4], 40}, {f[2], 20}, {f[5], 20}, {f[0], 5}} {
			cite(t, db, c.fact, "A", c.event, 0)
		}
		checkAdjacent(t, db, "events out of order, one a statement")
		for _, i := range []int{2, 0, 3} {
			cite(t, db, f[6+i], "B", 0, sf[i])
		}
		cite(t, db, f[9], "B", 25, 0) // an event beside the captured facts
		cite(t, db, f[10], "", 0, 0)  // no session
		cite(t, db, f[11], "A", 0, 0) // neither an event nor a captured fact
		checkAdjacent(t, db, "captured facts, and rows of no place")
		if _, err := db.ExecContext(ctx, `INSERT INTO fact_provenance(fact_id, event_seq, session_id, added_at)
			SELECT id, 100 - id, 'C', 'a' FROM facts WHERE id IN (?, ?, ?)`, f[12], f[13], f[14]); err != nil {
			t.Fatal(err)
		}
		checkAdjacent(t, db, "three rows in one statement")
		err := db.Tx(ctx, func(tx *store.Tx) error {
			cite(t, tx, f[7], "A", 35, 0)
			cite(t, tx, f[8], "A", 1, 0)
			cite(t, tx, f[6], "B", 0, sf[1])
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		checkAdjacent(t, db, "one transaction, three statements")
		if _, err := db.ExecContext(ctx, `DELETE FROM facts WHERE id = ?`, f[3]); err != nil {
			t.Fatal(err)
		}
		checkAdjacent(t, db, "a fact in the middle deleted")
		if _, err := db.ExecContext(ctx, `DELETE FROM facts WHERE id = ?`, max(f[2], f[5])); err != nil {
			t.Fatal(err)
		}
		checkAdjacent(t, db, "the highest fact of a tie deleted")
		if _, err := db.ExecContext(ctx, `DELETE FROM session_facts WHERE id = ?`, sf[0]); err != nil {
			t.Fatal(err)
		}
		checkAdjacent(t, db, "a captured fact deleted (its row loses its place)")
		if _, err := db.ExecContext(ctx, `UPDATE fact_provenance SET event_seq = 50 WHERE fact_id = ?`, f[1]); err != nil {
			t.Fatal(err)
		}
		checkAdjacent(t, db, "a row moved to a later event")
		if _, err := db.ExecContext(ctx, `DELETE FROM fact_provenance WHERE session_id = 'C'`); err != nil {
			t.Fatal(err)
		}
		checkAdjacent(t, db, "a session's rows deleted")
	})
}

// TestAdjacentWithTwoWritersInOneSession has two PostgreSQL transactions
// write the same session at once, each a place next to places the other
// did not see: the second waits for the first to commit and relinks
// against its rows, so both commits leave every neighbour exact (without
// the session lock the first's neighbours would point past the second's
// row).
func TestAdjacentWithTwoWritersInOneSession(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, "postgres")
	f := addFacts(t, db, "ten", "thirty", "fifteen", "twenty-five")
	cite(t, db, f[0], "S", 10, 0)
	cite(t, db, f[1], "S", 30, 0)
	first, err := db.BeginTx(ctx, nil) // the plain handle: $n placeholders
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback()
	if _, err := first.ExecContext(ctx, `INSERT INTO fact_provenance(fact_id, event_seq, session_id, added_at) VALUES ($1, 15, 'S', 'a')`, f[2]); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		done <- db.Tx(wctx, func(tx *store.Tx) error {
			_, err := tx.ExecContext(wctx, `INSERT INTO fact_provenance(fact_id, event_seq, session_id, added_at) VALUES (?, 25, 'S', 'a')`, f[3])
			return err
		})
	}()
	select {
	case err := <-done:
		t.Fatalf("the second writer finished while the first held the session (err %v); it should wait", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the second writer: %v", err)
	}
	checkAdjacent(t, db, "two writers in one session")
}

package integrate_test

import (
	"context"
	"slices"
	"testing"

	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// TestSignaturesKeptInStep: a new fact is signed in the transaction that
// stores it, its signature goes with it when it is deleted, and facts a
// store held before it had signatures are signed by the next run, so a
// near duplicate of one of them is found and merged.
func TestSignaturesKeptInStep(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{text: "The staging database runs Postgres 16 on the blue cluster", day: 1})
		run(t, newIntegrator(db, day(1)))
		first := factNamed(t, db, "The staging database runs Postgres 16 on the blue cluster")
		if n := storetest.Count(t, db, `SELECT count(*) FROM fact_signatures WHERE fact_id = ?`, first.ID); n == 0 {
			t.Fatal("a new fact has no signature")
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM fact_signatures WHERE fact_id = ? AND (mask IS NULL OR mask = 0)`, first.ID); n != 0 {
			t.Fatalf("%d of a new fact's signature rows have no word mask", n)
		}

		// Signatures from before word masks (v21) are read until the fact is
		// signed again: the near duplicate is still found.
		if _, err := db.ExecContext(context.Background(), `UPDATE fact_signatures SET mask = NULL`); err != nil {
			t.Fatal(err)
		}
		say(t, db, statement{session: "s1b", text: "The staging database runs Postgres 16 on a blue cluster", day: 1})
		if rep := run(t, newIntegrator(db, day(1))); rep.Merged != 1 || rep.Integrated != 0 {
			t.Fatalf("report = %+v, want the near duplicate merged into the stored fact found by its mask-less signature", rep)
		}
		if ids, err := integrate.NearDuplicateIDs(context.Background(), db, "The staging database runs Postgres 16 on the blue cluster", "general"); err != nil || !slices.Contains(ids, first.ID) {
			t.Fatalf("near duplicates of the stored fact by its mask-less signature: %v, %v; want fact %d among them", ids, err, first.ID)
		}

		// A store from before signatures: its facts carry none, and the
		// migration left the marker of what to sign.
		if _, err := db.ExecContext(context.Background(), `DELETE FROM fact_signatures`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(context.Background(), `INSERT INTO fact_signature_backfill VALUES (?)`, first.ID); err != nil {
			t.Fatal(err)
		}
		say(t, db, statement{session: "s2", text: "Postgres 16 runs the staging database on the blue cluster", day: 2})
		rep := run(t, newIntegrator(db, day(2)))
		if rep.Merged != 1 || rep.Integrated != 0 {
			t.Fatalf("report = %+v, want the reworded fact merged into the stored one", rep)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM fact_signatures WHERE fact_id = ?`, first.ID); n == 0 {
			t.Fatal("the stored fact was not signed by the run")
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM fact_signatures WHERE mask IS NULL`); n != 0 {
			t.Fatalf("%d signature rows still lack a word mask after the run signed the stored facts", n)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM fact_signature_backfill`); n != 0 {
			t.Fatalf("the backfill marker is still there (%d rows)", n)
		}

		if _, err := db.ExecContext(context.Background(), `DELETE FROM facts WHERE id = ?`, first.ID); err != nil {
			t.Fatal(err)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM fact_signatures`); n != 0 {
			t.Fatalf("%d signature rows outlive their deleted fact", n)
		}
	})
}

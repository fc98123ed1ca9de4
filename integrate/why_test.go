package integrate_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

func TestWhyWalksTheChainBothWays(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		say(t, db, statement{session: "a", text: "I live in Paris", day: 1})
		run(t, newIntegrator(db, day(1)))
		say(t, db, statement{session: "b", text: "I live in Paris", day: 2})
		say(t, db, statement{session: "b", text: "I moved to Berlin", day: 5})
		run(t, newIntegrator(db, day(5)))
		say(t, db, statement{session: "c", text: "I moved to Madrid", day: 9})
		run(t, newIntegrator(db, day(9)))
		paris, berlin, madrid := factNamed(t, db, "I live in Paris"), factNamed(t, db, "I moved to Berlin"), factNamed(t, db, "I moved to Madrid")

		ex, err := integrate.Why(ctx, db, paris.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(ex.Sources) != 2 || ex.Sources[0].SessionID != "a" || ex.Sources[1].SessionID != "b" || ex.Sources[0].Event != "I live in Paris" {
			t.Errorf("sources = %+v, want both sessions with their events", ex.Sources)
		}
		if len(ex.ReplacedBy) != 2 || ex.ReplacedBy[0].ID != berlin.ID || ex.ReplacedBy[1].ID != madrid.ID {
			t.Fatalf("replaced by = %+v, want Berlin then Madrid", ex.ReplacedBy)
		}
		if ex.ReplacedBy[0].Reason != `same subject and residence: "Berlin" replaces "Paris"` || ex.ReplacedBy[0].Actor != "integrate/heuristic" {
			t.Errorf("step reason = %q by %q", ex.ReplacedBy[0].Reason, ex.ReplacedBy[0].Actor)
		}
		ops := []string{}
		for _, l := range ex.Log {
			ops = append(ops, l.Op)
		}
		if strings.Join(ops, ",") != "add,merge,supersede" {
			t.Errorf("Paris's log = %v, want add,merge,supersede", ops)
		}

		ex, err = integrate.Why(ctx, db, madrid.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(ex.ReplacedBy) != 0 || len(ex.Replaces) != 2 || ex.Replaces[0].ID != berlin.ID || ex.Replaces[1].ID != paris.ID {
			t.Errorf("Madrid replaces %+v, replaced by %+v", ex.Replaces, ex.ReplacedBy)
		}

		if _, err := integrate.Why(ctx, db, 999); !errors.Is(err, integrate.ErrNoFact) {
			t.Errorf("unknown id: err = %v", err)
		}
	})
}

func TestSummaryIsFactual(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{text: "I live in Paris", day: 1})
		say(t, db, statement{text: "I need to renew my passport before March", day: 2})
		say(t, db, statement{text: "I moved to Berlin", day: 5})
		rep := run(t, newIntegrator(db, day(5)))
		s, ok, err := integrate.LatestSummary(context.Background(), db)
		if err != nil || !ok {
			t.Fatalf("summary: %v %v", ok, err)
		}
		want := "Last consolidation 2026-01-05T09:00: 3 facts taken in: 3 new, 0 merged into known facts, 0 already known, 1 superseded and 0 conflicts. " +
			"The store holds 2 active facts in 1 domain. Newest: \"I moved to Berlin\"; \"I need to renew my passport before March\"."
		if s.Summary != want || rep.Summary != want {
			t.Errorf("summary =\n%s\nwant\n%s", s.Summary, want)
		}
		if len(s.OpenThreads) != 1 || s.OpenThreads[0] != "I need to renew my passport before March" {
			t.Errorf("open threads = %q", s.OpenThreads)
		}
		// A run with nothing to do keeps the last summary.
		run(t, newIntegrator(db, day(6)))
		if n := storetest.Count(t, db, `SELECT count(*) FROM summaries`); n != 1 {
			t.Errorf("%d summaries after an empty run, want 1", n)
		}
	})
}

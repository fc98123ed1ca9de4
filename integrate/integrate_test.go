package integrate_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

func TestHeuristicMovedSupersedesLiveAcrossRuns(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{text: "I live in Lisbon", day: 1})
		say(t, db, statement{text: "Lisbon is lovely in the spring", day: 2})
		run(t, newIntegrator(db, day(2)))
		say(t, db, statement{session: "s2", text: "I moved to Porto last month", day: 5})
		rep := run(t, newIntegrator(db, day(5)))
		if rep.Superseded != 1 || rep.Integrated != 1 {
			t.Fatalf("report = %+v, want 1 integrated, 1 superseded", rep)
		}
		lisbon, lovely, porto := factNamed(t, db, "I live in Lisbon"), factNamed(t, db, "Lisbon is lovely in the spring"), factNamed(t, db, "I moved to Porto last month")
		if lisbon.Status != "superseded" || lisbon.SupersededBy != porto.ID {
			t.Errorf("Lisbon = %+v, want superseded by %d", lisbon, porto.ID)
		}
		if lisbon.ValidUntil != store.FormatTime(day(5)) {
			t.Errorf("Lisbon valid_until = %q, want the day Porto was said", lisbon.ValidUntil)
		}
		if lisbon.RetractedAt != "" {
			t.Errorf("valid mode set retracted_at = %q", lisbon.RetractedAt)
		}
		if lovely.Status != "active" || porto.Status != "active" {
			t.Errorf("lovely = %s, porto = %s; want both active", lovely.Status, porto.Status)
		}
		var reason, actor string
		if err := db.QueryRowContext(context.Background(), `SELECT reason, actor FROM mutation_log WHERE op = 'supersede' AND target = ?`, fmt.Sprintf("fact:%d", lisbon.ID)).Scan(&reason, &actor); err != nil {
			t.Fatal(err)
		}
		if reason != `same subject and residence: "Porto" replaces "Lisbon"` || actor != "integrate/heuristic" {
			t.Errorf("mutation log = %q by %q", reason, actor)
		}
	})
}

func TestLovelyDoesNotSupersede(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{text: "I live in Lisbon", day: 1})
		run(t, newIntegrator(db, day(1)))
		say(t, db, statement{text: "Lisbon is lovely", day: 3})
		rep := run(t, newIntegrator(db, day(3)))
		if rep.Superseded != 0 {
			t.Fatalf("superseded %d, want 0", rep.Superseded)
		}
		if f := factNamed(t, db, "I live in Lisbon"); f.Status != "active" {
			t.Errorf("Lisbon is %s", f.Status)
		}
	})
}

func TestSameBatchLaterWins(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		// Written in the wrong order: integration goes by when things were said.
		say(t, db, statement{session: "s2", text: "I moved to Berlin", day: 5})
		say(t, db, statement{session: "s1", text: "I live in Paris", day: 1})
		rep := run(t, newIntegrator(db, day(6)))
		if rep.Integrated != 2 || rep.Superseded != 1 {
			t.Fatalf("report = %+v", rep)
		}
		paris, berlin := factNamed(t, db, "I live in Paris"), factNamed(t, db, "I moved to Berlin")
		if berlin.Status != "active" || paris.Status != "superseded" || paris.SupersededBy != berlin.ID {
			t.Errorf("paris = %+v, berlin = %+v", paris, berlin)
		}
		if got := storetest.Count(t, db, `SELECT count(*) FROM facts`); got != 2 {
			t.Errorf("%d facts, want 2 (history kept)", got)
		}
	})
}

func TestSameFactTwoSessionsOneFact(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{session: "a", text: "I am allergic to peanuts.", day: 1})
		run(t, newIntegrator(db, day(1)))
		say(t, db, statement{session: "b", text: "i am allergic to peanuts", day: 4})
		rep := run(t, newIntegrator(db, day(4)))
		if rep.Merged != 1 || rep.Integrated != 0 {
			t.Fatalf("report = %+v, want one merge", rep)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM facts`); n != 1 {
			t.Fatalf("%d facts, want 1", n)
		}
		if n := storetest.Count(t, db, `SELECT count(DISTINCT session_id) FROM fact_provenance`); n != 2 {
			t.Errorf("provenance cites %d sessions, want 2", n)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM mutation_log WHERE op = 'merge' AND reason LIKE 'exact duplicate%'`); n != 1 {
			t.Errorf("%d merge entries in the mutation log, want 1", n)
		}
	})
}

// TestFactOfNoContentWords integrates facts made only of stop words or
// punctuation ("I am."): they have no signature, so nothing is a near
// duplicate of them and they are a near duplicate of nothing (the
// signature of no words took a slice of one and crashed the run).
func TestFactOfNoContentWords(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{session: "a", text: "I am.", day: 1})
		say(t, db, statement{session: "a", text: "---", day: 1})
		say(t, db, statement{session: "a", text: "I am here.", day: 1})
		rep := run(t, newIntegrator(db, day(1)))
		if rep.Integrated != 3 {
			t.Fatalf("report = %+v, want 3 facts integrated", rep)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM fact_signatures`); n != 1 {
			t.Errorf("%d signature rows, want 1 (\"here\" of the third fact)", n)
		}
	})
}

func TestBitemporalAsOf(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{text: "I live in Paris", day: 1})
		in := newIntegrator(db, day(1))
		in.Config.Temporal.Mode = "bitemporal"
		run(t, in)
		say(t, db, statement{text: "I moved to Berlin", day: 5})
		in.Now = func() time.Time { return day(5) }
		run(t, in)
		paris, berlin := factNamed(t, db, "I live in Paris"), factNamed(t, db, "I moved to Berlin")
		if paris.RetractedAt != store.FormatTime(day(5)) {
			t.Fatalf("Paris retracted_at = %q, want day 5", paris.RetractedAt)
		}
		for _, c := range []struct {
			at   time.Time
			want []int64
		}{
			{day(1).Add(-time.Hour), nil},
			{day(3), []int64{paris.ID}},
			{day(6), []int64{berlin.ID}},
		} {
			got, err := integrate.BelievedAt(context.Background(), db, c.at)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("believed at %s = %v, want %v", c.at, got, c.want)
			}
		}
		got, err := integrate.ValidAt(context.Background(), db, day(3))
		if err != nil || fmt.Sprint(got) != fmt.Sprint([]int64{paris.ID}) {
			t.Errorf("valid at day 3 = %v, %v; want Paris", got, err)
		}
	})
}

// TestConcurrentIntegratorsNeverShareAFact: two integrate runs on two
// handles of one store, at once, integrate every pending fact once.
func TestConcurrentIntegratorsNeverShareAFact(t *testing.T) {
	for _, engine := range storetest.Engines {
		t.Run(engine, func(t *testing.T) {
			a, b := storetest.Pair(t, engine)
			integrateAtOnce(t, a, b)
		})
	}
}

func TestStaleClaimIsTakenOverFreshIsNot(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		stale := say(t, db, statement{text: "I work at Initech", day: 1})
		fresh := say(t, db, statement{text: "I prefer tabs over spaces", day: 1})
		now := day(10)
		if _, err := db.ExecContext(context.Background(), `UPDATE session_facts SET status = 'claimed', claim_token = ? WHERE id = ?`, store.FormatTime(now.Add(-2*time.Hour))+"/dead", stale); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(context.Background(), `UPDATE session_facts SET status = 'claimed', claim_token = ? WHERE id = ?`, store.FormatTime(now.Add(-time.Minute))+"/live", fresh); err != nil {
			t.Fatal(err)
		}
		rep := run(t, newIntegrator(db, now))
		if rep.Claimed != 1 || rep.Integrated != 1 {
			t.Fatalf("report = %+v, want the stale claim taken over and the live one left", rep)
		}
		var status string
		if err := db.QueryRowContext(context.Background(), `SELECT status FROM session_facts WHERE id = ?`, fresh).Scan(&status); err != nil || status != "claimed" {
			t.Errorf("live claim is %q (%v), want still claimed", status, err)
		}
	})
}

func TestCancelledRunLeavesFactsPending(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{text: "I live in Oslo", day: 1})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := newIntegrator(db, day(1)).Run(ctx); err == nil {
			t.Fatal("a cancelled run reported success")
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM session_facts WHERE status = 'pending' AND claim_token IS NULL`); n != 1 {
			t.Errorf("%d pending facts after a cancelled run, want 1", n)
		}
	})
}

func TestPigeonholeFindsEveryNearDuplicate(t *testing.T) {
	// Any fact overlapping by NearThreshold shares a searched word.
	facts := []string{"I work at Acme on the billing service", "I work at Acme on their billing service",
		"At Acme I work on the billing service", "The billing service at Acme is where I work", "Acme billing"}
	for _, a := range facts {
		for _, b := range facts {
			if integrate.Overlap(a, b) < integrate.NearThreshold {
				continue
			}
			found := false
			for _, w := range integrate.PigeonholeWords(a) {
				if strings.Contains(strings.ToLower(b), w) {
					found = true
				}
			}
			if !found {
				t.Errorf("%q overlaps %q by %.2f but shares none of %v", a, b, integrate.Overlap(a, b), integrate.PigeonholeWords(a))
			}
		}
	}
}

// integrateAtOnce says 40 statements through a, runs an integrator on a
// and one on b at the same time, and checks that every pending fact was
// claimed and integrated once: one fact each, none by both.
func integrateAtOnce(t *testing.T, a, b *store.DB) {
	t.Helper()
	ctx := context.Background()
	const n = 40
	for i := range n {
		say(t, a, statement{session: fmt.Sprintf("s%d", i%3), text: fmt.Sprintf("Project number %d uses the Zeta%d build tool", i, i), day: 1 + i%20})
	}
	var wg sync.WaitGroup
	reps := make([]integrate.Report, 2)
	errs := make([]error, 2)
	for i, db := range []*store.DB{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[i], errs[i] = newIntegrator(db, day(21)).Run(ctx)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := reps[0].Claimed + reps[1].Claimed; got != n {
		t.Errorf("claimed %d + %d, want %d in all", reps[0].Claimed, reps[1].Claimed, n)
	}
	if got := storetest.Count(t, a, `SELECT count(*) FROM facts`); got != n {
		t.Errorf("%d facts, want %d", got, n)
	}
	if got := storetest.Count(t, a, `SELECT count(*) FROM session_facts WHERE status = 'integrated' AND fact_id IS NOT NULL`); got != n {
		t.Errorf("%d session facts integrated, want %d", got, n)
	}
	if got := storetest.Count(t, a, `SELECT count(*) FROM (SELECT session_fact_id FROM fact_provenance GROUP BY session_fact_id HAVING count(DISTINCT fact_id) > 1) twice`); got != 0 {
		t.Errorf("%d session facts integrated twice", got)
	}
}

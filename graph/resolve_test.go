package graph

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// TestMayRankHoldsWhatResolveKeeps: over random fusions of believed facts
// (scores, context-only matches, importances and ages at the extremes
// Adjust allows), every fact resolve keeps among the first want is one
// mayRank named, and mayRank passes facts over (so the test is not
// vacuous).
func TestMayRankHoldsWhatResolveKeeps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	passed := 0
	for trial := 0; trial < 2000; trial++ {
		n := 1 + rng.IntN(80)
		f := newFusion(n)
		known := map[int64]chainLink{}
		for i := 0; i < n; i++ {
			id := int64(i + 1)
			arm := ArmKeyword
			if rng.IntN(4) == 0 {
				arm = ArmContext
			}
			f.order = append(f.order, id)
			f.score[id] = 1 / float64(RRFK+1+rng.IntN(60))
			if rng.IntN(3) == 0 {
				f.score[id] += 1 / float64(RRFK+1+rng.IntN(60))
			}
			f.matches[id] = []Match{{Arm: arm, Rank: i + 1}}
			l := chainLink{live: true, importance: float64(rng.IntN(2)), when: dayString(rng.IntN(2) * 3650)}
			l.recorded = l.when
			known[id] = l
		}
		want := 1 + rng.IntN(25)
		may := mayRank(f, want)
		passed += n - len(may)
		score := map[int64]float64{}
		for id, s := range f.score {
			score[id] = s
		}
		keep := roomForDirect(rankAdjusted(dedupe(slices.Clone(f.order)), score, known), f.matches, want)
		for _, id := range keep {
			if !slices.Contains(may, id) {
				t.Fatalf("trial %d: fact %d (score %g) is kept among the first %d, but mayRank left it out: %v", trial, id, f.score[id], want, may)
			}
		}
	}
	if passed == 0 {
		t.Fatal("mayRank never passed a fact over")
	}
}

// day0Internal is the first day of these tests' facts.
var day0Internal = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// dayString is the time days after day0Internal, as the store writes it.
func dayString(days int) string {
	return store.FormatTime(day0Internal.AddDate(0, 0, days))
}

// remoteQuerier is a querier whose engine says each statement is a round
// trip, so resolve takes the path it takes on PostgreSQL.
type remoteQuerier struct{ querier }

func (q remoteQuerier) Engine() store.Engine { return remoteEngine{q.querier.Engine()} }

type remoteEngine struct{ store.Engine }

func (remoteEngine) Remote() bool { return true }

// TestResolveReadsTheSameWithLinksAndHitsInOneStatement: resolve where
// each statement is a round trip (the links read with the hits that can
// rank, the rest read after) answers as it does in process, with
// superseded facts, a chain, context-only matches and facts that never
// rank, for several limits and with history.
func TestResolveReadsTheSameWithLinksAndHitsInOneStatement(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, "sqlite")
	add := func(content string, importance float64, day int) int64 {
		var id int64
		if err := db.QueryRowContext(ctx, `INSERT INTO facts(content, digest, domain, confidence, importance, status, producer,
			speaker_role, session_id, said_at, recorded_at) VALUES (?, ?, 'general', 0.7, ?, 'active', 'heuristic', 'user', 's1', ?, ?) RETURNING id`,
			content, store.Digest(content), importance, dayString(day), dayString(day)).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO fact_provenance(fact_id, session_id, added_at) VALUES (?, 's1', ?)`, id, dayString(day)); err != nil {
			t.Fatal(err)
		}
		return id
	}
	supersede := func(old, new int64) {
		if _, err := db.ExecContext(ctx, `UPDATE facts SET status = 'superseded', superseded_by = ? WHERE id = ?`, new, old); err != nil {
			t.Fatal(err)
		}
	}
	var ids []int64
	for i := 0; i < 40; i++ {
		ids = append(ids, add("fact number "+string(rune('a'+i%26))+string(rune('a'+i/26)), float64(i%3)/2, i*7))
	}
	// A chain: 3 → 4 → 5 (5 believed), and 10 → 41 (a fact no arm found).
	supersede(ids[3], ids[4])
	supersede(ids[4], ids[5])
	newer := add("the newer fact", 0.9, 400)
	supersede(ids[10], newer)
	build := func() *fusion {
		f := newFusion(len(ids))
		for i, id := range ids {
			arm := ArmKeyword
			if i%5 == 4 {
				arm = ArmContext
			}
			f.order = append(f.order, id)
			f.score[id] = 1 / float64(RRFK+1+i)
			f.matches[id] = []Match{{Arm: arm, Rank: i + 1}}
		}
		return f
	}
	r := NewReader(db)
	defer r.Close()
	for _, history := range []bool{false, true} {
		for _, want := range []int{1, 3, 5, 10, 20, 0} {
			local, err := resolve(ctx, preparedQuerier{r}, newScope(time.Time{}), build(), history, want)
			if err != nil {
				t.Fatal(err)
			}
			remote, err := resolve(ctx, remoteQuerier{preparedQuerier{r}}, newScope(time.Time{}), build(), history, want)
			if err != nil {
				t.Fatal(err)
			}
			if len(local) == 0 {
				t.Fatalf("want %d history %v: no hits", want, history)
			}
			if !reflect.DeepEqual(local, remote) {
				t.Errorf("want %d history %v: in one statement\n%v\nin process\n%v", want, history, hitIDs(remote), hitIDs(local))
			}
		}
	}
}

func hitIDs(hits []*Hit) []int64 {
	var out []int64
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

package graph

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// day0Internal is the first day of these tests' facts.
var day0Internal = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// dayString is the time days after day0Internal, as the store writes it.
func dayString(days int) string {
	return store.FormatTime(day0Internal.AddDate(0, 0, days))
}

// TestResolveAnswersTheSameOnBothEngines: resolve answers the same on
// SQLite and PostgreSQL for the same store and fused list, with
// superseded facts, a chain, context-only matches and facts that never
// rank, for several limits and with history.
func TestResolveAnswersTheSameOnBothEngines(t *testing.T) {
	ctx := context.Background()
	got := map[string][][]*Hit{}
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
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
				hits, err := resolve(ctx, preparedQuerier{r}, newScope(time.Time{}), build(), history, want)
				if err != nil {
					t.Fatal(err)
				}
				if len(hits) == 0 {
					t.Fatalf("want %d history %v: no hits", want, history)
				}
				if want > 0 && !history && len(hits) != want {
					t.Errorf("want %d: %d hits %v", want, len(hits), hitIDs(hits))
				}
				if h := hits[0]; !history && want == 0 && !slices.ContainsFunc(hits, func(h *Hit) bool { return len(h.Supersedes) > 0 }) {
					t.Errorf("no hit names the fact it supersedes; first %+v", h)
				}
				got[db.Engine().Name()] = append(got[db.Engine().Name()], hits)
			}
		}
	})
	lite, pg := got["sqlite"], got["postgres"]
	if pg == nil {
		return // PostgreSQL skipped, saying why
	}
	for i := range lite {
		if !reflect.DeepEqual(lite[i], pg[i]) {
			t.Errorf("case %d (history %v, want %d): SQLite %v\nPostgreSQL %v", i, i >= 6, []int{1, 3, 5, 10, 20, 0}[i%6], hitIDs(lite[i]), hitIDs(pg[i]))
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

package integrate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// newestNaming reads each entity's newest facts from the index instead of
// every fact naming it; it must answer what ordering them all answers,
// whatever the mix of statuses, subject flags and roles.
func TestNewestNamingMatchesOrderingEveryFact(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		rng := rand.New(rand.NewPCG(7, 8))
		err := db.Tx(ctx, func(tx *store.Tx) error {
			for e := 1; e <= 4; e++ {
				if _, err := tx.ExecContext(ctx, `INSERT INTO entities(id, name, canonical, fold, created_at) VALUES (?,?,?,?,?)`,
					e, fmt.Sprint("e", e), fmt.Sprint("e", e), fmt.Sprint("e", e), store.Now()); err != nil {
					return err
				}
			}
			for i := 1; i <= 1500; i++ {
				status := []string{"active", "active", "superseded"}[rng.IntN(3)]
				if _, err := tx.ExecContext(ctx, `INSERT INTO facts(id, content, digest, status, producer, recorded_at) VALUES (?,?,?,?, 'test', ?)`,
					i, fmt.Sprint("fact ", i), fmt.Sprint("d", i), status, store.Now()); err != nil {
					return err
				}
				// Entity 1 is named by most facts, 4 by few; some name one
				// entity in two roles.
				for e := 1; e <= 4; e++ {
					if rng.IntN(e*e) != 0 {
						continue
					}
					for _, role := range []string{"mention", "object"}[:1+rng.IntN(2)] {
						if _, err := tx.ExecContext(ctx, `INSERT INTO fact_entities(fact_id, entity_id, role, is_subject) VALUES (?,?,?,?)`,
							i, e, role, rng.IntN(2)); err != nil {
							return err
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		in := &Integrator{DB: db}
		for _, tc := range []struct {
			entities []int64
			status   string
		}{
			{[]int64{1}, "f.status = 'active'"},
			{[]int64{4}, "f.status = 'active'"},
			{[]int64{2, 3, 4}, "f.status = 'active'"},
			{[]int64{1, 4}, "(f.status = 'active' OR f.id IN (1498,1200,3))"},
		} {
			got, err := in.newestNaming(ctx, tc.entities, tc.status, 200)
			if err != nil {
				t.Fatal(err)
			}
			var want []int64
			rows, err := db.QueryContext(ctx, `SELECT f.id FROM facts f WHERE `+tc.status+` AND f.id IN
			(SELECT fact_id FROM fact_entities WHERE entity_id IN (`+marksFor(len(tc.entities))+`)) ORDER BY f.id DESC LIMIT 200`, anys(tc.entities)...)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				want = append(want, id)
			}
			rows.Close()
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("entities %v, %s: got %d ids %v…, want %d ids %v…", tc.entities, tc.status, len(got), head(got), len(want), head(want))
			}
		}
	})
}

func marksFor(n int) string {
	s := "?"
	for range n - 1 {
		s += ",?"
	}
	return s
}

func anys(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

func head(ids []int64) []int64 { return ids[:min(5, len(ids))] }

package graph

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// BenchmarkEntityArmKeptLists times the entity arm on SQLite two ways,
// taking turns going first, over the same queries on one store: the
// engine's (store.Engine.EntityFacts), which keeps each entity's list of
// facts while nothing commits, and the store's statement ranking the
// lists read afresh (store.EntityFactsInSteps). It reports the first's
// total over the second's as kept-read-ratio, and fails if the two answer
// differently. The store holds 20,000 facts naming 400 entities, a few
// named by thousands of facts and most by a few; each query names three
// of them.
func BenchmarkEntityArmKeptLists(b *testing.B) {
	ctx := context.Background()
	db := storetest.Open(b, "sqlite")
	rng := rand.New(rand.NewPCG(3, 4))
	const entities, facts = 400, 20_000
	names := make([]string, entities)
	ids := make([]int64, entities)
	for i := range names {
		names[i] = fmt.Sprintf("Star%d", i)
		ids[i] = addEntity(b, db, names[i])
	}
	err := db.Tx(ctx, func(tx *store.Tx) error {
		for n := range facts {
			c := fmt.Sprintf("benchmark fact %d", n)
			var id int64
			if err := tx.QueryRowContext(ctx, `INSERT INTO facts(content, digest, producer, importance, recorded_at) VALUES (?,?,'capture',?,?) RETURNING id`,
				c, store.Digest(c), float64(rng.IntN(10))/10, store.Now()).Scan(&id); err != nil {
				return err
			}
			seen := map[int]bool{}
			for range 1 + rng.IntN(3) {
				// Zipf-like: entity i is named about 1/(i+1) as often.
				e := int(float64(entities)*rng.Float64()*rng.Float64()*rng.Float64()) % entities
				if seen[e] {
					continue
				}
				seen[e] = true
				if _, err := tx.ExecContext(ctx, `INSERT INTO fact_entities(fact_id, entity_id, role, is_subject) VALUES (?,?,'mention',?)`,
					id, ids[e], rng.IntN(4)/3); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	queries := make([]store.EntityQuery, 200)
	for i := range queries {
		q := []string{"about"}
		for range 3 {
			q = append(q, names[int(float64(entities)*rng.Float64()*rng.Float64())%entities], "and")
		}
		queries[i] = entityQuery(newScope(time.Time{}), termGrams(text.Terms(strings.Join(q, " "))), 60)
	}
	var spent [2]time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := queries[i%len(queries)]
		var got [2]store.EntityRows
		for _, w := range []int{i % 2, 1 - i%2} {
			t0 := time.Now()
			var err error
			if w == 0 {
				got[w], err = db.Engine().EntityFacts(ctx, db, q)
			} else {
				got[w], err = store.EntityFactsInSteps(ctx, db, q)
			}
			if err != nil {
				b.Fatal(err)
			}
			spent[w] += time.Since(t0)
		}
		if k, r := readEntityList(entityArmList(got[0])), readEntityList(entityArmList(got[1])); !reflect.DeepEqual(k, r) {
			b.Fatalf("query %d: from kept lists %+v\nread afresh %+v", i, k, r)
		}
	}
	b.ReportMetric(float64(spent[0])/float64(spent[1]), "kept-read-ratio")
	b.ReportMetric(float64(spent[0].Microseconds())/1000/float64(b.N), "kept-ms/op")
	b.ReportMetric(float64(spent[1].Microseconds())/1000/float64(b.N), "read-ms/op")
}

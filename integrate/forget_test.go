package integrate_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// TestForgetFact: forgetting a fact deletes it with its knowledge rows —
// entity links, the co-mention edge it added, an entity no other fact
// names — keeps what another fact still needs, tombstones its digest and
// logs who forgot it and why.
func TestForgetFact(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		say(t, db, statement{text: "Robin from Initech is leading the Atlas migration", day: 1,
			entities: `[{"name":"Robin","type":"person","role":"subject"},{"name":"Initech","type":"organization","role":"employer"}]`})
		say(t, db, statement{text: "Robin prefers green tea in the afternoon", day: 2,
			entities: `[{"name":"Robin","type":"person","role":"subject"}]`})
		run(t, newIntegrator(db, day(3)))
		f := factNamed(t, db, "Robin from Initech is leading the Atlas migration")
		if n := storetest.Count(t, db, `SELECT count(*) FROM entity_edges WHERE relation = 'co_mention'`); n != 1 {
			t.Fatalf("fixture: %d co-mention edges, want one", n)
		}
		var digest string
		if err := db.QueryRowContext(ctx, `SELECT digest FROM facts WHERE id = ?`, f.ID).Scan(&digest); err != nil {
			t.Fatal(err)
		}

		links := storetest.Count(t, db, `SELECT count(*) FROM fact_entities WHERE fact_id = ?`, f.ID)
		orphans := storetest.Count(t, db, `SELECT count(*) FROM entities e WHERE is_self = 0 AND EXISTS (SELECT 1 FROM fact_entities fe WHERE fe.entity_id = e.id)
			AND NOT EXISTS (SELECT 1 FROM fact_entities fe WHERE fe.entity_id = e.id AND fe.fact_id <> ?)`, f.ID)

		rowsBy := map[string]int{}
		var gone integrate.Forgotten
		err := db.Tx(ctx, func(tx *store.Tx) error {
			var err error
			gone, err = integrate.ForgetFact(ctx, tx, f.ID, []string{digest}, integrate.Forgetter{Actor: "test", Reason: "asked to"}, rowsBy)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if gone.Entities != links || gone.Tombstones != 1 || rowsBy["facts"] != 1 || rowsBy["fact_entities"] != links || rowsBy["entities"] != orphans || rowsBy["entity_edges"] != 1 {
			t.Errorf("forgotten %+v, rows %v; want the fact, its %d links, the %d entities only it names, its co-mention edge and one tombstone", gone, rowsBy, links, orphans)
		}
		if db.Engine().TextIndexRows() && rowsBy["facts_fts"] != 1 {
			t.Errorf("facts_fts rows %d, want 1 where the index is a table", rowsBy["facts_fts"])
		}
		for q, want := range map[string]int{
			`SELECT count(*) FROM facts WHERE id = ` + fmt.Sprint(f.ID):                                                                  0,
			`SELECT count(*) FROM fact_entities WHERE fact_id = ` + fmt.Sprint(f.ID):                                                     0,
			`SELECT count(*) FROM fact_provenance WHERE fact_id = ` + fmt.Sprint(f.ID):                                                   0,
			`SELECT count(*) FROM entities WHERE canonical = 'initech'`:                                                                  0,
			`SELECT count(*) FROM entities WHERE canonical = 'robin'`:                                                                    1,
			`SELECT count(*) FROM entity_edges WHERE relation = 'co_mention'`:                                                            0,
			`SELECT count(*) FROM facts WHERE content = 'Robin prefers green tea in the afternoon'`:                                      1,
			`SELECT count(*) FROM tombstones WHERE digest = '` + digest + `' AND actor = 'test'`:                                         1,
			`SELECT count(*) FROM mutation_log WHERE op = 'forget' AND target = 'fact:` + fmt.Sprint(f.ID) + `' AND reason = 'asked to'`: 1,
		} {
			if n := storetest.Count(t, db, q); n != want {
				t.Errorf("%s = %d, want %d", q, n, want)
			}
		}
	})
}

package integrate_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// A fact naming hundreds of entities (a runaway entities stage or an old
// session fact) is linked to the first model.MaxEntitiesPerFact of them,
// with at most model.MaxEdgesPerFact edges, and the cut is counted.
func TestFactEntitiesAndEdgesAreBounded(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		var ents []map[string]any
		for i := range 300 {
			ents = append(ents, map[string]any{"name": fmt.Sprintf("Entity%d", i), "type": "thing", "role": "mention"})
		}
		raw, _ := json.Marshal(ents)
		say(t, db, statement{text: "The migration touched a great many services at once", day: 1, entities: string(raw)})
		run(t, newIntegrator(db, time.Now()))
		if n := storetest.Count(t, db, `SELECT count(*) FROM fact_entities WHERE role != 'speaker'`); n != model.MaxEntitiesPerFact {
			t.Errorf("fact linked to %d entities, want %d", n, model.MaxEntitiesPerFact)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM entity_edges`); n > model.MaxEdgesPerFact {
			t.Errorf("one fact made %d edges, want at most %d", n, model.MaxEdgesPerFact)
		}
		if n := storetest.Count(t, db, `SELECT count FROM skipped_records WHERE source = 'integrate' AND record_type = ?`, model.CutEntitiesOverCap); n != 300-model.MaxEntitiesPerFact {
			t.Errorf("counted %d entities cut, want %d", n, 300-model.MaxEntitiesPerFact)
		}
	})
}

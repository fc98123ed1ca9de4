package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/extract/model/modeltest"
	"github.com/recollect/recollect/store/storetest"
)

// A model answer is bounded: facts per answer, bytes per fact and entities
// per fact are capped and what is cut is counted for stats.
func TestModelAnswerIsBounded(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	a := addEvents(t, db, "conv-a", "Our billing service deploys to Fly.io now.")
	var facts []map[string]any
	for i := range 150 {
		f := map[string]any{"content": fmt.Sprintf("Fact number %d about the billing service.", i), "domain": "work",
			"confidence": 0.9, "importance": 0.5, "event_ids": []int64{a[0]}, "entities": []map[string]any{}}
		facts = append(facts, f)
	}
	facts[3]["content"] = strings.Repeat("a fact far longer than a captured one ", 300)
	var ents []map[string]any
	for i := range 1000 {
		ents = append(ents, map[string]any{"name": fmt.Sprintf("Entity%d", i), "type": "thing", "role": "mention", "is_subject": false})
	}
	facts[5]["entities"] = ents
	answer, _ := json.Marshal(map[string]any{"facts": facts})
	h := modeltest.NewHost(t)
	h.Enqueue(modeltest.Answer{Content: string(answer)}, modeltest.Answer{Content: `{"facts":[]}`})
	stage, _ := modelStage(t, db, h.Intelligence("llama3.2:3b"))
	rep, err := stage.Run(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Held) > 0 {
		t.Fatalf("the answer was refused, not bounded: %+v", rep)
	}
	stored := sessionFacts(t, db)
	if len(stored) != 99 {
		t.Fatalf("stored %d facts of 150, want the first %d without the over-long one; report %+v", len(stored), 99, rep)
	}
	for _, f := range stored {
		if len(f.Content) > 2000 {
			t.Fatalf("a fact of %d bytes was stored", len(f.Content))
		}
		if f.Content == "Fact number 5 about the billing service." {
			var es []EntityMention
			if f.Entities == nil || json.Unmarshal([]byte(*f.Entities), &es) != nil || len(es) != model.MaxEntitiesPerFact || es[0].Name != "Entity0" {
				t.Fatalf("the fact naming 1,000 entities kept %v; want the first %d", f.Entities, 16)
			}
		}
	}
	want := map[string]int64{model.CutFactsOverAnswerCap: 50, model.CutFactsOverBytes: 1, model.CutEntitiesOverCap: 1000 - model.MaxEntitiesPerFact}
	got := storetest.Skipped(t, db, "extract")
	for k, v := range want {
		if got[k] != v {
			t.Errorf("skipped_records extract/%s = %d, want %d (all: %v)", k, got[k], v, got)
		}
	}
}

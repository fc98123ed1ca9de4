package extract

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/recollect/recollect/extract/extracttest"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// benchStage runs the extract stage over 10 conversations of 10 events with
// ex, on a fresh store per iteration; the store setup is not timed.
func benchStage(b *testing.B, ex func(db *store.DB) Extractor) {
	for b.Loop() {
		b.StopTimer()
		db := openDB(b)
		for c := range 10 {
			contents := make([]string, 10)
			for i := range contents {
				contents[i] = fmt.Sprintf("Our service %d-%d deploys to Fly.io from the main branch every morning.", c, i)
			}
			addEvents(b, db, fmt.Sprintf("conv-%d", c), contents...)
		}
		stage := &Stage{DB: db, Config: config.Default().Extraction, Extractor: ex(db), Log: slog.New(slog.DiscardHandler)}
		b.StartTimer()
		rep, err := stage.Run(context.Background(), Options{All: true})
		if err != nil || rep.EventsExamined != 100 || rep.FactsExtracted != 100 {
			b.Fatalf("report %+v err %v", rep, err)
		}
	}
}

// BenchmarkExtractStageHeuristic is the baseline for
// BenchmarkExtractStageModel: the same 100 events through the heuristic.
func BenchmarkExtractStageHeuristic(b *testing.B) {
	benchStage(b, func(*store.DB) Extractor { return Heuristic{} })
}

// BenchmarkExtractStageModel runs the model path against a local host that
// answers at once: what recollect itself adds around the model (prompt,
// HTTP, validation, spend booking), 10 calls per run, writing the same
// 100 facts as the baseline.
func BenchmarkExtractStageModel(b *testing.B) {
	h := extracttest.NewHost(b)
	benchStage(b, func(db *store.DB) Extractor {
		// One fact per event, as the heuristic writes, so both runs store
		// the same 100 facts.
		for c := range 10 {
			rows, err := db.Query(`SELECT seq, content FROM session_events WHERE session_id = ? ORDER BY seq`, fmt.Sprintf("conv-%d", c))
			if err != nil {
				b.Fatal(err)
			}
			var facts []any
			for rows.Next() {
				var seq int64
				var content string
				if err := rows.Scan(&seq, &content); err != nil {
					b.Fatal(err)
				}
				facts = append(facts, content, []int64{seq})
			}
			rows.Close()
			h.Enqueue(extracttest.Answer{Content: factsAnswer(facts...)})
		}
		r := newRouter(b, httpConfig(h, "llama3.2:3b"), db, nil)
		return &ModelExtractor{DB: db, Router: r, Config: config.Default().Extraction}
	})
}

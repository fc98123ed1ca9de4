package extract

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/recollect/recollect/extract/model/modeltest"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// benchStage runs the extract stage over 10 conversations of 10 events with
// ex, on a fresh store per iteration; the store setup is not timed.
func benchStage(b *testing.B, ex func(db *store.DB) Extractor) {
	for b.Loop() {
		b.StopTimer()
		db := storetest.Open(b, "sqlite")
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
	h := modeltest.NewHost(b)
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
			h.Enqueue(modeltest.Answer{Content: factsAnswer(facts...)})
		}
		r := newRun(b, h.Intelligence("llama3.2:3b"), db, nil)
		return &ModelExtractor{DB: db, Run: r, Config: config.Default().Extraction}
	})
}

// examinedStore is a store of n events in conversations of 200, every one
// already examined, as a store is after months of use.
func examinedStore(b *testing.B, n int) *store.DB {
	db := storetest.Open(b, "sqlite")
	contents := make([]string, 200)
	for c := 0; c*200 < n; c++ {
		for i := range contents {
			contents[i] = fmt.Sprintf("The cache for service %d-%d lives under /var/cache/svc and is rebuilt nightly.", c, i)
		}
		addEvents(b, db, fmt.Sprintf("old-%d", c), contents...)
	}
	if _, err := db.Exec(`INSERT INTO extract_watermarks(session_id, last_seq, consecutive_failures, updated_at)
		SELECT session_id, max(seq), 0, ? FROM session_events GROUP BY session_id`, store.Now()); err != nil {
		b.Fatal(err)
	}
	return db
}

// BenchmarkExtractRunFixedCost runs the extract stage over a new
// conversation of 10 events in a store of 1k examined events and in one of
// 100k, alternating in one run: ms_small and ms_large are the mean per run
// and large/small their ratio. A run's cost should follow its backlog, not
// the history already examined.
func BenchmarkExtractRunFixedCost(b *testing.B) {
	ctx := context.Background()
	small, large := examinedStore(b, 1_000), examinedStore(b, 100_000)
	var spent [2]time.Duration
	for i := 0; b.Loop(); i++ {
		for k, db := range []*store.DB{small, large} {
			contents := make([]string, 10)
			for j := range contents {
				contents[j] = fmt.Sprintf("Our service %d-%d deploys to Fly.io from the main branch every morning.", i, j)
			}
			b.StopTimer()
			addEvents(b, db, fmt.Sprintf("new-%d", i), contents...)
			stage := &Stage{DB: db, Config: config.Default().Extraction, Extractor: Heuristic{}, Log: slog.New(slog.DiscardHandler)}
			b.StartTimer()
			start := time.Now()
			rep, err := stage.Run(ctx, Options{})
			spent[k] += time.Since(start)
			if err != nil || rep.EventsExamined != 10 || rep.EventsRemaining != 0 {
				b.Fatalf("report %+v err %v", rep, err)
			}
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(spent[0].Microseconds())/n/1000, "ms_small")
	b.ReportMetric(float64(spent[1].Microseconds())/n/1000, "ms_large")
	b.ReportMetric(float64(spent[1])/float64(spent[0]), "large/small")
}

package model

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/recollect/recollect/store"
)

// Bounds on what one model answer may add, so a runaway or hostile host
// cannot flood the store (one fact naming 1,000 entities made 499,500
// co-mention edges; 10,000 facts in one answer and an 8 MB fact were
// stored). What is cut is counted in skipped_records (stats' "skipped")
// under the stage that cut it.
const (
	// MaxFactsPerAnswer is the most facts one extract answer adds; the
	// rest of the answer is dropped.
	MaxFactsPerAnswer = 100
	// MaxFactBytes is the longest fact kept, the same cap as a captured
	// fact (capture_fact): one or two sentences. A longer one is dropped
	// whole, never cut into a sentence nobody said.
	MaxFactBytes = 2000
	// MaxEntitiesPerFact is the most entities one fact is linked to; the
	// first named are kept.
	MaxEntitiesPerFact = 16
	// MaxEdgesPerFact is the most entity edges (co-mentions and explicit
	// relations) one fact adds: every pair of MaxEntitiesPerFact entities.
	MaxEdgesPerFact = MaxEntitiesPerFact * (MaxEntitiesPerFact - 1) / 2
)

// Kinds of cuts, as counted in skipped_records.
const (
	CutFactsOverAnswerCap = "facts_over_answer_cap"
	CutFactsOverBytes     = "facts_over_bytes_cap"
	CutEntitiesOverCap    = "entities_over_fact_cap"
	CutEdgesOverCap       = "edges_over_fact_cap"
)

// CountCuts adds what a stage cut to skipped_records under source stage.
func CountCuts(ctx context.Context, ex store.Execer, stage string, cut map[string]int64) error {
	for _, k := range slices.Sorted(maps.Keys(cut)) {
		if cut[k] == 0 {
			continue
		}
		if _, err := ex.ExecContext(ctx, `INSERT INTO skipped_records(source, record_type, count) VALUES (?,?,?)
			ON CONFLICT(source, record_type) DO UPDATE SET count = skipped_records.count + excluded.count`, stage, k, cut[k]); err != nil {
			return fmt.Errorf("count %s cut by %s: %w", k, stage, err)
		}
	}
	return nil
}

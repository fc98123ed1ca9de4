package graph_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/vector"
)

// armFrames are the functions that run inside a search's goroutines.
var armFrames = []string{"graph.semanticArm", "graph.entityArm", "graph.rankKeyword", "graph.knownSpeakers", "graph.searchPending"}

// armsRunning lists the goroutines, other than the caller's, that are
// inside an arm.
func armsRunning() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for i, g := range strings.Split(string(buf), "\n\n") {
		if i == 0 {
			continue // this goroutine
		}
		for _, f := range armFrames {
			if strings.Contains(g, f+"(") {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

// TestSearchGoroutinesEndWithIt: when an arm fails, Search cancels the
// others and returns only once each has returned — the moment it returns,
// no goroutine is still inside an arm, and none is left afterwards.
func TestSearchGoroutinesEndWithIt(t *testing.T) {
	before := goleak.IgnoreCurrent()
	// Registered first, so it runs after the store is closed.
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	db := newDB(t)
	ctx := context.Background()
	sp := vector.Space{Provider: "ollama", Model: "m", Dim: 256}
	// Enough vectors that the similarity arm is still scanning when the
	// keyword arm fails.
	const n = 8000
	if _, err := db.Exec(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ?)
		INSERT INTO facts(content, digest, domain, confidence, importance, status, producer, speaker_role, session_id, recorded_at)
		SELECT 'the staging database number ' || i, 'd' || i, 'general', 0.7, 0.5, 'active', 'heuristic', 'user', 's1', ? FROM c`, n, dayN(0)); err != nil {
		t.Fatal(err)
	}
	vec := make([]float32, sp.Dim)
	for i := range vec {
		vec[i] = float32(i%7) + 1
	}
	b, err := vector.Encode(vec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO embeddings(fact_id, provider, model, dim, vector, created_at) SELECT id, ?, ?, ?, ?, ? FROM facts`,
		sp.Provider, sp.Model, sp.Dim, b, dayN(0)); err != nil {
		t.Fatal(err)
	}
	// The keyword arm fails at once: its index is gone.
	if _, err := db.Exec(`DROP TABLE facts_fts`); err != nil {
		t.Fatal(err)
	}
	r := graph.NewReader(db)
	defer r.Close()
	for i := range 3 {
		_, err := r.Search(ctx, graph.Query{Text: fmt.Sprintf("staging database %d", i), Vector: vec, Space: sp})
		if err == nil || !strings.Contains(err.Error(), "facts_fts") {
			t.Fatalf("search on a store without its keyword index: err = %v", err)
		}
		if left := armsRunning(); len(left) > 0 {
			t.Fatalf("Search returned with %d goroutines still inside an arm:\n%s", len(left), strings.Join(left, "\n\n"))
		}
	}
}

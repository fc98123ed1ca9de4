package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
)

// VectorDim is the dimension of the synthetic vectors the search bench
// stores beside its facts: nomic-embed-text's, Ollama's usual embedding
// model.
const VectorDim = 768

// benchSpace is the space the synthetic vectors live in.
var benchSpace = graph.Space{Provider: "bench", Model: "synthetic", Dim: VectorDim}

// vectorTopics is how many centres the synthetic vectors cluster around:
// real embeddings gather by topic, they are not noise.
const vectorTopics = 500

// addVectors gives every fact of the store a synthetic vector (a topic
// centre plus noise) through integrate.StoreVector, as consolidate would,
// so each comes with its sign code. Vectors are generated as they are
// written, never all held at once.
func addVectors(ctx context.Context, db *store.DB, n int) error {
	rng := rand.New(rand.NewPCG(11, 12))
	centres := make([][]float32, vectorTopics)
	for i := range centres {
		centres[i] = make([]float32, VectorDim)
		for j := range centres[i] {
			centres[i][j] = float32(rng.NormFloat64())
		}
	}
	v := make([]float32, VectorDim)
	return db.Tx(ctx, func(tx *store.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id FROM facts ORDER BY id`)
		if err != nil {
			return fmt.Errorf("add vectors: %w", err)
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return fmt.Errorf("add vectors: %w", err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		if len(ids) != n {
			return fmt.Errorf("add vectors: %d facts in the store, want %d", len(ids), n)
		}
		for _, id := range ids {
			c := centres[rng.IntN(len(centres))]
			for j := range v {
				v[j] = c[j] + float32(0.6*rng.NormFloat64())
			}
			if err := integrate.StoreVector(ctx, tx, id, benchSpace, v); err != nil {
				return fmt.Errorf("add vectors: %w", err)
			}
		}
		return nil
	})
}

// queryVectors returns n query vectors, each a stored vector of a random
// fact with noise added: what an embedder answers for a question about
// that fact.
func queryVectors(ctx context.Context, db *store.DB, facts, n int) ([][]float32, error) {
	rng := rand.New(rand.NewPCG(13, 14))
	out := make([][]float32, 0, n)
	for len(out) < n {
		var blob []byte
		if err := db.QueryRowContext(ctx, `SELECT vector FROM embeddings WHERE fact_id = ? AND provider = ? AND model = ? AND dim = ?`,
			1+rng.IntN(facts), benchSpace.Provider, benchSpace.Model, benchSpace.Dim).Scan(&blob); err != nil {
			return nil, fmt.Errorf("read a query vector: %w", err)
		}
		v, err := graph.DecodeVector(blob)
		if err != nil {
			return nil, fmt.Errorf("read a query vector: %w", err)
		}
		for j := range v {
			v[j] += float32(0.4 * rng.NormFloat64())
		}
		out = append(out, v)
	}
	return out, nil
}

// timeSearchWithVector runs q as a search (limit 20) with a query
// vector, so the semantic arm runs beside the others, and returns its
// duration and arms.
func timeSearchWithVector(ctx context.Context, r *graph.Reader, q string, vec []float32) (time.Duration, []string, error) {
	t0 := time.Now()
	ans, err := r.Search(ctx, graph.Query{Text: q, Limit: 20, Vector: vec, Space: benchSpace})
	if err != nil {
		return 0, nil, fmt.Errorf("search %q with a vector: %w", q, err)
	}
	d := time.Since(t0)
	var arms []string
	for _, a := range ans.Arms {
		arms = append(arms, string(a))
	}
	return d, arms, nil
}

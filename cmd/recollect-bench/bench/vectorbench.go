package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
)

// VectorDim is the dimension of the synthetic vectors the search bench
// stores beside its facts: nomic-embed-text's, Ollama's usual embedding
// model.
const VectorDim = 768

// benchSpace is the space the synthetic vectors live in.
var benchSpace = vector.Space{Provider: "bench", Model: "synthetic", Dim: VectorDim}

// vectorTopics is how many centres the synthetic vectors cluster around:
// real embeddings gather by topic, they are not noise.
const vectorTopics = 500

// addVectors gives every fact of the store a synthetic vector (a topic
// centre plus noise) through integrate.StoreVector, as consolidate would,
// so each comes with its sign code, and then writes the space's code file
// as consolidate's embedding step does. Vectors are generated as they are
// written, never all held at once.
func addVectors(ctx context.Context, db *store.DB, n int) error {
	if err := storeVectors(ctx, db, n); err != nil {
		return err
	}
	if _, err := vector.WriteCodeFile(ctx, db, benchSpace); err != nil {
		return fmt.Errorf("add vectors: %w", err)
	}
	return nil
}

func storeVectors(ctx context.Context, db *store.DB, n int) error {
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
		v, err := vector.Decode(blob)
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

// RecallCandidates are the candidate counts the recall table reports:
// how many facts the sign codes pick for exact scoring.
var RecallCandidates = []int{8, 32, 128, 256}

// RecallK is the k of the recall table: the exact top k the candidates
// must hold.
const RecallK = 10

// candidateRecall measures the sign-code stage of the similarity arm: for
// each query vector, the share of the exact top RecallK by cosine (over
// every stored vector of the space) that is among the first c candidates
// the codes pick, averaged over the queries, for each c in
// RecallCandidates. The arm scores its candidates exactly, so this is the
// recall@RecallK of its ranking before the floors.
func candidateRecall(ctx context.Context, r *graph.Reader, vecs [][]float32) ([]float64, error) {
	exact, err := exactTop(ctx, r.Store(), vecs, RecallK)
	if err != nil {
		return nil, err
	}
	found, places := make([]int, len(RecallCandidates)), 0
	for qi, q := range vecs {
		places += len(exact[qi])
		for ci, c := range RecallCandidates {
			cands, err := r.VectorCandidates(ctx, benchSpace, q, c)
			if err != nil {
				return nil, err
			}
			for _, id := range exact[qi] {
				if slices.Contains(cands, id) {
					found[ci]++
				}
			}
		}
	}
	out := make([]float64, len(found))
	for i, f := range found {
		out[i] = float64(f) / float64(max(places, 1))
	}
	return out, nil
}

// exactTop is, for each query vector, the ids of its k nearest stored
// vectors by exact cosine (ties by id), in one pass over the space.
func exactTop(ctx context.Context, db *store.DB, vecs [][]float32, k int) ([][]int64, error) {
	type hit struct {
		id  int64
		cos float64
	}
	tops := make([][]hit, len(vecs))
	rows, err := db.QueryContext(ctx, `SELECT fact_id, vector FROM embeddings WHERE provider = ? AND model = ? AND dim = ?`,
		benchSpace.Provider, benchSpace.Model, benchSpace.Dim)
	if err != nil {
		return nil, fmt.Errorf("exact top %d: %w", k, err)
	}
	defer rows.Close()
	better := func(a, b hit) bool { return a.cos > b.cos || (a.cos == b.cos && a.id < b.id) }
	for rows.Next() {
		var id int64
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, fmt.Errorf("exact top %d: %w", k, err)
		}
		v, err := vector.Decode(blob)
		if err != nil {
			return nil, fmt.Errorf("exact top %d: fact %d: %w", k, id, err)
		}
		for qi, q := range vecs {
			c, err := vector.Cosine(benchSpace, q, benchSpace, v)
			if err != nil {
				return nil, fmt.Errorf("exact top %d: fact %d: %w", k, id, err)
			}
			h, top := hit{id, c}, tops[qi]
			if len(top) == k && !better(h, top[k-1]) {
				continue
			}
			i := len(top)
			for i > 0 && better(h, top[i-1]) {
				i--
			}
			top = slices.Insert(top, i, h)
			tops[qi] = top[:min(len(top), k)]
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("exact top %d: %w", k, err)
	}
	out := make([][]int64, len(vecs))
	for qi, top := range tops {
		for _, h := range top {
			out[qi] = append(out[qi], h.id)
		}
	}
	return out, nil
}

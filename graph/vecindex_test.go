package graph_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/store"
)

// addCodedVector stores a vector and its sign code, as integrate does.
func addCodedVector(tb testing.TB, db *store.DB, id int64, sp vector.Space, v []float32) {
	tb.Helper()
	addVector(tb, db, id, sp, v)
	if err := vector.StoreCode(context.Background(), db, id, sp, v); err != nil {
		tb.Fatal(err)
	}
}

// clustered returns n unit-free vectors of dim components around k random
// centres, the shape of real embeddings (topics) rather than pure noise.
func clustered(rng *rand.Rand, n, k, dim int, spread float64) [][]float32 {
	centres := make([][]float32, k)
	for i := range centres {
		centres[i] = make([]float32, dim)
		for j := range centres[i] {
			centres[i][j] = float32(rng.NormFloat64())
		}
	}
	out := make([][]float32, n)
	for i := range out {
		c := centres[rng.IntN(k)]
		out[i] = make([]float32, dim)
		for j := range out[i] {
			out[i][j] = c[j] + float32(spread*rng.NormFloat64())
		}
	}
	return out
}

// exactTop is the brute-force answer: the ids of the best k vectors by
// cosine with q above the arm's two floors, ties by id.
func exactTop(sp vector.Space, vecs map[int64][]float32, q []float32, k int) []int64 {
	type scored struct {
		id  int64
		cos float64
	}
	var all []scored
	for id, v := range vecs {
		c, _ := vector.Cosine(sp, q, sp, v)
		all = append(all, scored{id, c})
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.cos != b.cos {
			if a.cos > b.cos {
				return -1
			}
			return 1
		}
		return int(a.id - b.id)
	})
	floor := max(graph.MinCosine, graph.RelativeCosine*all[0].cos)
	out := make([]int64, 0, k)
	for _, s := range all[:k] {
		if s.cos >= floor {
			out = append(out, s.id)
		}
	}
	return out
}

func semanticTop(t *testing.T, r *graph.Reader, sp vector.Space, q []float32, k int) []int64 {
	t.Helper()
	ans := searchWith(t, r, graph.Query{Vector: q, Space: sp, Limit: k})
	if !slices.Contains(ans.Arms, graph.ArmSemantic) {
		t.Fatalf("semantic arm did not run: %+v", ans)
	}
	return ids(ans.Results)
}

// TestSemanticCandidatesAgreeWithExact: above ExactUpTo vectors the arm
// scores only the candidates the sign codes pick. On clustered vectors its
// top 10 must agree with the brute-force top 10, and with codes missing
// (a store from before codes) the arm scans every vector and agrees
// exactly.
func TestSemanticCandidatesAgreeWithExact(t *testing.T) {
	db := newDB(t)
	r := graph.NewReader(db)
	defer r.Close()
	sp := vector.Space{Provider: "ollama", Model: "m", Dim: 128}
	rng := rand.New(rand.NewPCG(3, 4))
	data := clustered(rng, 1500, 30, sp.Dim, 0.3)
	vecs := map[int64][]float32{}
	for i, v := range data {
		id := addFact(t, db, fact{content: fmt.Sprintf("fact %d", i)})
		vecs[id] = v
		if i%10 == 0 {
			addVector(t, db, id, sp, v) // no code yet: a store from before codes
		} else {
			addCodedVector(t, db, id, sp, v)
		}
	}
	queries := make([][]float32, 40)
	for i := range queries {
		base := data[rng.IntN(len(data))]
		queries[i] = make([]float32, sp.Dim)
		for j := range base {
			queries[i][j] = base[j] + float32(0.3*rng.NormFloat64())
		}
	}
	for i, q := range queries {
		if got, want := semanticTop(t, r, sp, q, 10), exactTop(sp, vecs, q, 10); !slices.Equal(got, want) {
			t.Fatalf("query %d with codes missing: %v, want the exact %v", i, got, want)
		}
	}
	for id, v := range vecs {
		if err := vector.StoreCode(context.Background(), db, id, sp, v); err != nil {
			t.Fatal(err)
		}
	}
	agree, places := 0, 0
	for _, q := range queries {
		got, want := semanticTop(t, r, sp, q, 10), exactTop(sp, vecs, q, 10)
		places += len(want)
		for _, id := range got {
			if slices.Contains(want, id) {
				agree++
			}
		}
	}
	if places < 5*len(queries) {
		t.Fatalf("only %d places above the floors: the data do not test the candidates", places)
	}
	if frac := float64(agree) / float64(places); frac < 0.95 {
		t.Fatalf("candidates agree with the exact top 10 on %.3f of places; want ≥ 0.95", frac)
	} else {
		t.Logf("agreement with the exact top 10: %.3f", frac)
	}
}

// TestVectorIndexFollowsTheFile: a vector added after the index was built
// is found by the next search, one deleted (with its code) is gone, and
// VACUUM changes nothing of that.
func TestVectorIndexFollowsTheFile(t *testing.T) {
	db := newDB(t)
	r := graph.NewReader(db)
	defer r.Close()
	sp := vector.Space{Provider: "ollama", Model: "m", Dim: 16}
	rng := rand.New(rand.NewPCG(5, 6))
	data := clustered(rng, 1200, 30, sp.Dim, 0.5)
	for i, v := range data {
		addCodedVector(t, db, addFact(t, db, fact{content: fmt.Sprintf("fact %d", i)}), sp, v)
	}
	target := make([]float32, sp.Dim)
	for i := range target {
		target[i] = float32(math.Pow(-1, float64(i))) * 10
	}
	if top := semanticTop(t, r, sp, target, 5); len(top) == 5 && top[0] < 0 {
		t.Fatal("unreachable")
	}
	late := addFact(t, db, fact{content: "late"})
	addCodedVector(t, db, late, sp, target)
	if top := semanticTop(t, r, sp, target, 5); len(top) == 0 || top[0] != late {
		t.Fatalf("a vector added after the index was read is not first: %v", top)
	}
	if _, err := db.Exec(`DELETE FROM embeddings WHERE fact_id = ?`, late); err != nil {
		t.Fatal(err)
	}
	var codes int
	db.QueryRow(`SELECT count(*) FROM vector_codes WHERE fact_id = ?`, late).Scan(&codes)
	if codes != 0 {
		t.Fatal("deleting a vector left its code behind")
	}
	if top := semanticTop(t, r, sp, target, 5); slices.Contains(top, late) {
		t.Fatalf("a deleted vector is still found: %v", top)
	}
	// VACUUM (prune --vacuum) after deletions must not hide what comes next.
	for _, id := range []int64{3, 4, 5} {
		if _, err := db.Exec(`DELETE FROM embeddings WHERE fact_id = ?`, id); err != nil {
			t.Fatal(err)
		}
	}
	semanticTop(t, r, sp, target, 5)
	if _, err := db.Exec(`VACUUM`); err != nil {
		t.Fatal(err)
	}
	again := addFact(t, db, fact{content: "after vacuum"})
	addCodedVector(t, db, again, sp, target)
	if top := semanticTop(t, r, sp, target, 5); len(top) == 0 || top[0] != again {
		t.Fatalf("a vector added after VACUUM is not first: %v", top)
	}
}

// TestSemanticCandidatesKeepScope: in a space large enough for the sign
// codes to pick candidates, the arm checks the scope of the best of them
// after scoring. Rejected facts nearest the query never appear, and the
// relative floor follows the best fact in scope, not the best vector.
func TestSemanticCandidatesKeepScope(t *testing.T) {
	db := newDB(t)
	r := graph.NewReader(db)
	defer r.Close()
	sp := vector.Space{Provider: "ollama", Model: "m", Dim: 64}
	rng := rand.New(rand.NewPCG(7, 8))
	for i, v := range clustered(rng, 600, 30, sp.Dim, 0.5) {
		addCodedVector(t, db, addFact(t, db, fact{content: fmt.Sprintf("fact %d", i)}), sp, v)
	}
	// target alternates in sign; along and across are orthogonal to it.
	target, along, across := make([]float32, sp.Dim), make([]float32, sp.Dim), make([]float32, sp.Dim)
	for i := range target {
		target[i] = float32(math.Pow(-1, float64(i)))
		along[i] = 1
		across[i] = float32(math.Pow(-1, float64(i/2)))
	}
	// at is a vector whose cosine with target is c.
	at := func(c float64, other []float32) []float32 {
		v := make([]float32, sp.Dim)
		for i := range v {
			v[i] = float32(c*float64(target[i]) + math.Sqrt(1-c*c)*float64(other[i]))
		}
		return v
	}
	var rejected []int64
	for i := 0; i < 5; i++ {
		id := addFact(t, db, fact{content: fmt.Sprintf("rejected %d", i), status: "rejected"})
		addCodedVector(t, db, id, sp, target)
		rejected = append(rejected, id)
	}
	best := addFact(t, db, fact{content: "best in scope"})
	addCodedVector(t, db, best, sp, at(0.95, along))
	// 0.78 is under 0.8 × the rejected facts' 1.0 but above 0.8 × 0.95.
	second := addFact(t, db, fact{content: "second in scope"})
	addCodedVector(t, db, second, sp, at(0.78, across))
	if top := semanticTop(t, r, sp, target, 10); !slices.Equal(top, []int64{best, second}) {
		t.Fatalf("top = %v, want [%d %d] (rejected %v never)", top, best, second, rejected)
	}
}

package graph

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/recollect/recollect/graph/vector"
)

// TestCosineBytes4MatchesOne: scoring four stored vectors at once gives
// each the bits cosineBytes gives it alone, zero vectors included.
func TestCosineBytes4MatchesOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dim := range []int{1, 7, 768} {
		q := make([]float32, dim)
		for i := range q {
			q[i] = float32(rng.NormFloat64())
		}
		qn := queryNorm(q)
		for range 50 {
			var four [4][]byte
			for j := range four {
				v := make([]float32, dim)
				if j != 2 {
					for i := range v {
						v[i] = float32(rng.NormFloat64() * 3)
					}
				}
				b, err := vector.Encode(v)
				if err != nil && j != 2 {
					t.Fatal(err)
				}
				if j == 2 {
					b = make([]byte, 4*dim)
				}
				four[j] = b
			}
			got := cosineBytes4(q, qn, &four)
			for j, b := range four {
				if want := cosineBytes(q, qn, b); math.Float64bits(got[j]) != math.Float64bits(want) {
					t.Fatalf("dim %d, vector %d: cosineBytes4 %v, cosineBytes %v", dim, j, got[j], want)
				}
			}
		}
	}
}

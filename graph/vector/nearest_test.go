package vector

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomCodeSet is n sign codes of dim-component vectors around k centres
// (the shape of embeddings: topics), with the vectors they summarise.
func randomCodeSet(n, k, dim int) (CodeSet, [][]float32) {
	rng := rand.New(rand.NewPCG(5, 6))
	centres := make([][]float32, k)
	for i := range centres {
		centres[i] = make([]float32, dim)
		for j := range centres[i] {
			centres[i][j] = float32(rng.NormFloat64())
		}
	}
	cs := CodeSet{CodeFile: CodeFile{Words: (dim + 63) / 64}}
	vecs := make([][]float32, n)
	for i := range vecs {
		c := centres[rng.IntN(k)]
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + float32(0.6*rng.NormFloat64())
		}
		vecs[i] = v
		cs.IDs = append(cs.IDs, int64(i+1))
		code := SignCode(v)
		for w := 0; w < cs.Words; w++ {
			var word uint64
			for b := 0; b < 8 && w*8+b < len(code); b++ {
				word |= uint64(code[w*8+b]) << (8 * b)
			}
			cs.Codes = append(cs.Codes, word)
		}
	}
	return cs, vecs
}

// nearestBySort is the plain answer nearest must give: every code's
// distance, sorted by distance then row.
func nearestBySort(cs CodeSet, q []float32, n int) []int64 {
	qc := SignCode(q)
	qw := make([]uint64, cs.Words)
	for i, b := range qc {
		qw[i/8] |= uint64(b) << (8 * (i % 8))
	}
	type row struct {
		d, i int
	}
	rows := make([]row, len(cs.IDs))
	for i := range rows {
		rows[i] = row{hamming(cs.Codes[i*cs.Words:(i+1)*cs.Words], qw), i}
	}
	slices.SortFunc(rows, func(a, b row) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return a.i - b.i
	})
	out := make([]int64, 0, n)
	for _, r := range rows[:min(n, len(rows))] {
		out = append(out, cs.IDs[r.i])
	}
	return out
}

// TestNearestMatchesSort: the bounded heap with early abandoning keeps
// exactly the n nearest codes a full sort keeps, ties by row order, in
// order — including ties at the cut (many equal codes), and with the codes
// split between a code file's and a tail read since.
// Each dimension takes another path of hammingRows: 768 bits unrolled,
// 256 four words at a time, 130 word by word.
func TestNearestMatchesSort(t *testing.T) {
	for _, dim := range []int{130, 256, 768} {
		cs, vecs := randomCodeSet(3000, 20, dim)
		// Duplicate codes make ties at every distance.
		cs.IDs = append(cs.IDs, cs.IDs[:500]...)
		cs.Codes = append(cs.Codes, cs.Codes[:500*cs.Words]...)
		for i := range cs.IDs[3000:] {
			cs.IDs[3000+i] = int64(10_000 + i)
		}
		// The same codes as a code file's and a tail read from the table
		// since: rows continue across the two.
		split := cs
		split.IDs, split.Codes = cs.IDs[:2000], cs.Codes[:2000*cs.Words]
		split.tailIDs, split.tailCodes = cs.IDs[2000:], cs.Codes[2000*cs.Words:]
		for qi, q := range vecs[:20] {
			for _, n := range []int{1, 8, 256, 1000, 3000} {
				want := nearestBySort(cs, q, n)
				if got := cs.Nearest(q, n); !slices.Equal(got, want) {
					t.Fatalf("dim %d, query %d, n %d: nearest = %v…, want %v…", dim, qi, n, got[:min(8, len(got))], want[:min(8, len(want))])
				}
				if got := split.Nearest(q, n); !slices.Equal(got, want) {
					t.Fatalf("dim %d, query %d, n %d, file and tail: nearest = %v…, want %v…", dim, qi, n, got[:min(8, len(got))], want[:min(8, len(want))])
				}
			}
		}
	}
}

// BenchmarkNearest times picking 256 candidates among 100k 768-bit codes.
func BenchmarkNearest(b *testing.B) {
	cs, vecs := randomCodeSet(100_000, 500, 768)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cs.Nearest(vecs[i%len(vecs)], 256)
	}
}

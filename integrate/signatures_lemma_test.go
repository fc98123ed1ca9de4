package integrate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSignaturesShareAWord pins the prefix-filter property the index rests
// on: any two facts whose word overlap reaches NearThreshold share a
// signature word, lie in each other's size band, and each passes the
// other's word-mask bound (mayBeNear). The facts are drawn from a small
// vocabulary so that many pairs are near duplicates.
func TestSignaturesShareAWord(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 40)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%s%d", strings.Repeat("x", i%7), i)
	}
	facts := make([]string, 600)
	for i := range facts {
		n := 2 + rng.IntN(12)
		var ws []string
		for range n {
			ws = append(ws, vocab[rng.IntN(12+i%28)])
		}
		facts[i] = strings.Join(ws, " ")
	}
	words := make([]map[string]bool, len(facts))
	sigs := make([][]int64, len(facts))
	sizes := make([]int, len(facts))
	masks := make([]int64, len(facts))
	bits := make([][]uint, len(facts))
	for i, f := range facts {
		words[i] = contentWords(f)
		sigs[i], sizes[i], masks[i] = signature(f)
		for w := range words[i] {
			bits[i] = append(bits[i], wordBit(w))
		}
	}
	near := 0
	for i, a := range facts {
		ta, na := sigs[i], sizes[i]
		for j, b := range facts[:i] {
			if jaccard(words[i], words[j]) < NearThreshold {
				continue
			}
			near++
			tb, nb := sigs[j], sizes[j]
			if !slices.ContainsFunc(ta, func(x int64) bool { return slices.Contains(tb, x) }) {
				t.Fatalf("near duplicates share no signature word:\n%q %v\n%q %v", a, pigeonholeWords(a), b, pigeonholeWords(b))
			}
			if lo, hi := sizeBand(na); nb < lo || nb > hi {
				t.Fatalf("%q (%d words) is outside the size band %d..%d of %q", b, nb, lo, hi, a)
			}
			if !mayBeNear(na, bits[i], nb, masks[j]) || !mayBeNear(nb, bits[j], na, masks[i]) {
				t.Fatalf("near duplicates fail the word-mask bound:\n%q\n%q", a, b)
			}
		}
	}
	if near < 200 {
		t.Fatalf("only %d near-duplicate pairs: the draw proves too little", near)
	}
}

// At exactly the threshold the bound keeps the fact: two four-word facts
// sharing three words overlap by NearThreshold (3 of 5), a near duplicate.
func TestMayBeNearAtTheThreshold(t *testing.T) {
	a := map[string]bool{"alpha": true, "bravo": true, "charlie": true, "delta": true}
	b := map[string]bool{"alpha": true, "bravo": true, "charlie": true, "echo": true}
	if got := jaccard(a, b); got < NearThreshold {
		t.Fatalf("overlap %v; the case needs one exactly at the threshold", got)
	}
	var bits []uint
	for w := range a {
		bits = append(bits, wordBit(w))
	}
	if !mayBeNear(len(a), bits, len(b), wordMask(b)) {
		t.Fatal("the word-mask bound passed over a near duplicate at exactly the threshold")
	}
}

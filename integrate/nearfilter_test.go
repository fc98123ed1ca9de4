package integrate

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNearPrefilter puts pairs of statements through mayReachNear and the
// overlap itself: whenever the prefilter passes a stored statement over,
// its overlap is under NearThreshold. The pairs are what the signature
// index offers (statements of the corpus sharing a signature word) and
// near copies of each statement (a word dropped, another added, case and
// plurals changed), so many pairs lie on either side of the threshold.
func TestNearPrefilter(t *testing.T) {
	var pairs, skipped, near, nearSeen int
	check := func(a, b string) {
		pairs++
		mine := contentWords(a)
		score := jaccard(mine, contentWords(b))
		if score >= NearThreshold {
			near++
		}
		if mayReachNear(mine, b) {
			if score >= NearThreshold {
				nearSeen++
			}
			return
		}
		skipped++
		if score >= NearThreshold {
			t.Errorf("passed over a near duplicate (overlap %.2f):\n%q\n%q", score, a, b)
		}
	}
	offeredPairs(t, 3, check)
	t.Logf("%d pairs, %d passed over, %d near duplicates (all %d read)", pairs, skipped, near, nearSeen)
	if skipped < pairs/2 || near < 1000 {
		t.Errorf("%d of %d pairs passed over, %d near duplicates: the comparison shows little", skipped, pairs, near)
	}
}

// TestNearMask puts the same kind of pairs through the word-mask bound:
// whenever mayBeNear passes a stored statement over (from its size and
// mask alone, as the index holds them), its overlap is under
// NearThreshold; and it passes over most of what the signature index
// offers, which is what spares a lookup the reads.
func TestNearMask(t *testing.T) {
	var pairs, skipped, near int
	check := func(a, b string) {
		pairs++
		mine, theirs := contentWords(a), contentWords(b)
		var bits []uint
		for w := range mine {
			bits = append(bits, wordBit(w))
		}
		score := jaccard(mine, theirs)
		if score >= NearThreshold {
			near++
		}
		if mayBeNear(len(mine), bits, len(theirs), wordMask(theirs)) {
			return
		}
		skipped++
		if score >= NearThreshold {
			t.Errorf("passed over a near duplicate (overlap %.2f):\n%q\n%q", score, a, b)
		}
	}
	offeredPairs(t, 5, check)
	t.Logf("%d pairs, %d passed over by the mask, %d near duplicates", pairs, skipped, near)
	if skipped < (pairs-near)*3/4 || near < 1000 {
		t.Errorf("%d of %d pairs passed over, %d near duplicates: the mask spares few reads", skipped, pairs, near)
	}
}

// offeredPairs calls check with the pairs the near-duplicate tests put
// through their filters: for each of up to 6,000 statements of the corpus
// (drawn with seed), the first 40 others that share a signature word with
// it, as the index offers them, and a near copy of it.
func offeredPairs(t *testing.T, seed uint64, check func(a, b string)) {
	_, all := statementCorpus(t)
	rng := rand.New(rand.NewPCG(seed, seed+1))
	if len(all) > 6000 {
		rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		all = all[:6000]
	}
	bySig := map[string][]int{}
	for i, s := range all {
		for _, w := range pigeonholeWords(s) {
			bySig[w] = append(bySig[w], i)
		}
	}
	for i, a := range all {
		offered := 0
		for _, w := range pigeonholeWords(a) {
			for _, j := range bySig[w] {
				if j != i && offered < 40 {
					offered++
					check(a, all[j])
				}
			}
		}
		check(a, nearCopy(rng, a))
	}
}

// nearCopy changes a statement a little: a word dropped or repeated,
// another word added, a word upper-cased or given a plural "s".
func nearCopy(rng *rand.Rand, s string) string {
	ws := strings.Fields(s)
	for range 1 + rng.IntN(2) {
		if len(ws) == 0 {
			break
		}
		i := rng.IntN(len(ws))
		switch rng.IntN(5) {
		case 0:
			ws = append(ws[:i], ws[i+1:]...)
		case 1:
			ws = append(ws, "additionally")
		case 2:
			ws[i] = strings.ToUpper(ws[i])
		case 3:
			ws[i] += "s"
		case 4:
			ws = append(ws, ws[i])
		}
	}
	return strings.Join(ws, " ")
}

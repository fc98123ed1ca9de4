package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/recollect/recollect/store"
)

// The rare words' best k (topFactText's two rankings of them) from the
// words' postings kept in memory.
//
// topFactText ranks the facts holding a rare word, twice a try: those
// that hold a common word too, scored for every word, and all of them,
// scored for the rare words alone. As FTS5 statements each ranking walks
// the common words' postings to find the facts that hold them, reads
// every phrase's positions for each fact, and seeks its length: most of
// a prompt's search at 100,000 facts. A long-lived reader (the daemon's)
// keeps each word's postings — the facts holding it, how often, and for
// a word ranked as rare, each fact's length — while the facts do not
// change (countCache, keyed on the knowledge version), and ranks from
// them: the rare words' facts are merged, each common word's are sought
// from the last one found, and every fact is scored as recollect_bm25
// scores it, with the same counts, the same idf (exactIDF) and the same
// arithmetic in the same order, so the best k are the same facts with
// the same scores, to the bit. A fact's length is read once per
// version, when a word it holds is first ranked as rare, where the
// statements read it once per fact per search.

// postingsCacheBytes bounds the postings a store's cache holds: a few
// common words of a million facts, most of the vocabulary prompts use at
// 100,000. A word whose postings would pass it is not kept; to make room
// for one that fits, the words least recently used go first.
const postingsCacheBytes = 32 << 20

// postingList is a word's postings: the facts holding it in id order,
// how many times each holds it, and, when read with them, each fact's
// length in tokens.
type postingList struct {
	ids []int64
	tfs []uint32
	// dls is nil when the lengths were not read.
	dls []uint32
	// used is the cache's tick when a search last took the list.
	used int64
}

// bytes is the memory the list holds.
func (p *postingList) bytes() int64 {
	return int64(8*cap(p.ids) + 4*cap(p.tfs) + 4*cap(p.dls))
}

// loadPostings reads word's postings from the facts' index
// (recollect_postings), with each fact's length when lengths is true.
func loadPostings(ctx context.Context, db store.Querier, word string, lengths bool) (*postingList, error) {
	with := 0
	if lengths {
		with = 1
	}
	var blob []byte
	err := db.QueryRowContext(ctx, `SELECT recollect_postings(facts_fts, ?) FROM facts_fts WHERE facts_fts MATCH ? LIMIT 1`,
		with, renderFTS5(store.TextQuery{word})).Scan(&blob)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("read the postings of %q: %w", word, err)
	}
	if len(blob)%16 != 0 {
		return nil, fmt.Errorf("read the postings of %q: %d bytes are not whole postings", word, len(blob))
	}
	m := len(blob) / 16
	p := &postingList{ids: make([]int64, m), tfs: make([]uint32, m)}
	if lengths {
		p.dls = make([]uint32, m)
	}
	for i := range m {
		r := blob[16*i:]
		p.ids[i] = int64(binary.NativeEndian.Uint64(r))
		p.tfs[i] = binary.NativeEndian.Uint32(r[8:])
		if lengths {
			p.dls[i] = binary.NativeEndian.Uint32(r[12:])
		}
	}
	return p, nil
}

// postings is word's postings, with the facts' lengths when lengths is
// true: the cache's when it holds them at the view's version, else read
// and kept.
func (cv countView) postings(ctx context.Context, db store.Querier, word string, lengths bool) (*postingList, error) {
	c := cv.c
	c.mu.Lock()
	if c.current(cv.version) {
		if p := c.posts[word]; p != nil && (!lengths || p.dls != nil) {
			c.tick++
			p.used = c.tick
			c.mu.Unlock()
			return p, nil
		}
	}
	c.mu.Unlock()
	p, err := loadPostings(ctx, db, word, lengths)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.current(cv.version) || p.bytes() > postingsCacheBytes {
		return p, nil
	}
	if old := c.posts[word]; old != nil {
		c.postBytes -= old.bytes()
		delete(c.posts, word)
	}
	for c.postBytes+p.bytes() > postingsCacheBytes {
		var lru string
		for w, q := range c.posts {
			if lru == "" || q.used < c.posts[lru].used {
				lru = w
			}
		}
		c.postBytes -= c.posts[lru].bytes()
		delete(c.posts, lru)
	}
	if c.posts == nil {
		c.posts = map[string]*postingList{}
	}
	c.tick++
	p.used = c.tick
	c.posts[word] = p
	c.postBytes += p.bytes()
	return p, nil
}

// rareBest is bestMatches for topFactText's two rankings of the rare
// words words[:j]: with both, the facts holding one of them and one of
// words[j:], scored for every word ("(rare) AND (common)"); else every
// fact holding one of them, scored for them alone. n and tokens are the
// index's facts and tokens (factTextTotals). Through a cache, the words'
// postings are ranked here (rankPostings); otherwise, or when least asks
// for FTS5's statements, FTS5 ranks them.
func (cv countView) rareBest(ctx context.Context, db store.Querier, words []topWord, j int, both bool, n, tokens int64, k int, least topTextMin) ([]scored, error) {
	if cv.c == nil || least.recount || least.scoreAll || least.inSQL {
		if both {
			return bestMatches(ctx, db, "("+wordsFTS5(words[:j])+") AND ("+wordsFTS5(words[j:])+")", words, k, least)
		}
		return bestMatches(ctx, db, wordsFTS5(words[:j]), words[:j], k, least)
	}
	phrases := words[:j]
	if both {
		phrases = words
	}
	lists := make([]*postingList, len(phrases))
	idf := make([]float64, len(phrases))
	for i, w := range phrases {
		p, err := cv.postings(ctx, db, w.word, i < j)
		if err != nil {
			return nil, err
		}
		lists[i], idf[i] = p, exactIDF(n, w.df)
	}
	return rankPostings(lists[:j], lists[j:], idf, float64(tokens)/float64(n), k), nil
}

// rankPostings is the best k, best first, ties by id, of the facts the
// lists rare hold (read with their lengths) that also hold one of
// common, unless common is empty, each scored as recollect_bm25 scores
// it for phrases rare then common, each phrase i weighing idf[i], over an
// index of average length avgdl.
func rankPostings(rare, common []*postingList, idf []float64, avgdl float64, k int) []scored {
	at := make([]int, len(rare))
	seek := make([]int, len(common))
	freq := make([]uint32, len(rare)+len(common))
	var best topHeap
	best.k = k
	for {
		id, found := int64(0), false
		for r, p := range rare {
			if at[r] < len(p.ids) && (!found || p.ids[at[r]] < id) {
				id, found = p.ids[at[r]], true
			}
		}
		if !found {
			break
		}
		clear(freq)
		var dl uint32
		for r, p := range rare {
			if at[r] < len(p.ids) && p.ids[at[r]] == id {
				freq[r], dl = p.tfs[at[r]], p.dls[at[r]]
				at[r]++
			}
		}
		held := len(common) == 0
		for c, p := range common {
			seek[c] = seekID(p.ids, seek[c], id)
			if seek[c] < len(p.ids) && p.ids[seek[c]] == id {
				freq[len(rare)+c], held = p.tfs[seek[c]], true
			}
		}
		if held {
			best.push(scored{id: id, score: bm25Score(freq, idf, float64(dl), avgdl)})
		}
	}
	return best.sorted()
}

// bm25 constants as variables, so the arithmetic on them is done as C
// does it at run time, each step rounded, never folded exactly.
var (
	bm25K1Var = float64(bm25K1)
	bm25BVar  = float64(bm25B)
)

// bm25Score is recollect_bm25's score of a fact of length dl (tokens)
// holding phrase i freq[i] times: each phrase's share in the phrases'
// order, written as the C function writes it. The explicit conversions
// keep Go from fusing a multiply and an add, which C does not. A phrase
// the fact does not hold adds an exact 0 there and is skipped here.
func bm25Score(freq []uint32, idf []float64, dl, avgdl float64) float64 {
	k1, b := bm25K1Var, bm25BVar
	norm := float64(k1 * ((1 - b) + b*dl/avgdl))
	score := 0.0
	for i, f := range freq {
		if f == 0 {
			continue
		}
		tf := float64(f)
		score += float64(idf[i] * ((tf * (k1 + 1.0)) / (tf + norm)))
	}
	return score
}

// seekID is the first index from from on whose id is at least id in
// ids (sorted), found by galloping: the facts sought come in id order.
func seekID(ids []int64, from int, id int64) int {
	n := len(ids)
	if from >= n || ids[from] >= id {
		return from
	}
	// ids[lo] < id; the answer is in (lo, hi].
	lo, step := from, 1
	hi := lo + step
	for hi < n && ids[hi] < id {
		lo, step = hi, 2*step
		hi = lo + step
	}
	hi = min(hi, n)
	return lo + 1 + sort.Search(hi-lo-1, func(m int) bool { return ids[lo+1+m] >= id })
}

// topHeap keeps the best k facts scored so far, the worst on top.
type topHeap struct {
	k int
	h []scored
}

// worse orders facts as ORDER BY score DESC, id ranks them, last first.
func worse(a, b scored) bool {
	return a.score < b.score || (a.score == b.score && a.id > b.id)
}

// push adds s when fewer than k are kept or it beats the worst of them.
func (t *topHeap) push(s scored) {
	if len(t.h) < t.k {
		t.h = append(t.h, s)
		for i := len(t.h) - 1; i > 0; {
			up := (i - 1) / 2
			if !worse(t.h[i], t.h[up]) {
				break
			}
			t.h[i], t.h[up] = t.h[up], t.h[i]
			i = up
		}
		return
	}
	if t.k == 0 || worse(s, t.h[0]) {
		return
	}
	t.h[0] = s
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(t.h) {
			break
		}
		if c+1 < len(t.h) && worse(t.h[c+1], t.h[c]) {
			c++
		}
		if !worse(t.h[c], t.h[i]) {
			break
		}
		t.h[i], t.h[c] = t.h[c], t.h[i]
		i = c
	}
}

// sorted is the facts kept, best first.
func (t *topHeap) sorted() []scored {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b scored) int {
		switch {
		case worse(b, a):
			return -1
		case worse(a, b):
			return 1
		}
		return 0
	})
	return out
}

package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/recollect/recollect/store"
)

// The keyword arm's best k from the words' postings kept in memory.
//
// topFactText ranks the facts holding a rare word, twice a try: those
// that hold a common word too, scored for every word, and all of them,
// scored for the rare words alone; a query the rare words do not settle
// is ranked whole. As FTS5 statements each ranking walks the common
// words' postings to find the facts that hold them, reads every phrase's
// positions for each fact, and seeks its length: most of a prompt's
// search at 100,000 facts. A long-lived reader (the daemon's) keeps each
// word's postings — the facts holding it and how often — while the facts
// do not change (countCache, keyed on the knowledge version), and every
// indexed fact's length (docLengths), and ranks from them: the words'
// facts are merged in id order, each common word's sought from the last
// one found, and every fact is scored as recollect_bm25 scores it, with
// the same counts, the same idf (exactIDF) and the same arithmetic in the
// same order, so the best k are the same facts with the same scores, to
// the bit.

// postingsBytesPerFact bounds the postings a store's cache holds, at 6
// bytes a posting: 40 bytes per fact of the index, at least
// postingsCacheMin and at most postingsCacheMax — at 100,000 facts 4 MB,
// the common words of a session's prompts; from 400,000 facts on, 16 MB,
// fewer of a million facts' common words. The cache's memory counts
// twice in the daemon's resident memory (Go's collector lets its heap
// grow to twice what it holds), and the daemon's at 100,000 facts is held
// under 60 MB. At a million facts a bound of 64 MB took the daemon from
// 113 to 150 MB for a prompt p50 of 30-44 against 40-51 ms (recollect-bench
// --only hooks, alternated, 2026-12-06): not worth 37 MB. A word whose
// postings would pass the bound is not kept; to make room for one that
// fits, the words least recently used go first.
const (
	postingsBytesPerFact = 40
	postingsCacheMin     = 4 << 20
	postingsCacheMax     = 16 << 20
)

// postingsCacheBytes is the bound on the postings kept for an index of n
// facts.
func postingsCacheBytes(n int64) int64 {
	return min(max(postingsBytesPerFact*n, postingsCacheMin), postingsCacheMax)
}

// postingList is a word's postings: the facts holding it in id order,
// and how many times each holds it.
type postingList struct {
	ids []uint32
	tfs []uint16
	// used is the cache's tick when a search last took the list.
	used int64
}

// bytes is the memory the list holds.
func (p *postingList) bytes() int64 {
	return int64(4*cap(p.ids) + 2*cap(p.tfs))
}

// errWidePosting is a posting the list's 6 bytes cannot hold: a fact id
// past 2³², or a word held 65,536 times by one fact. The search then has
// FTS5's statements rank the words.
var errWidePosting = errors.New("a posting too wide to keep")

// loadPostings reads word's postings from the facts' index
// (recollect_postings: a count, then each posting's step from the last
// id and its count, as varints). The blob is read in place
// (sql.RawBytes), not copied again.
func loadPostings(ctx context.Context, db store.Querier, word string) (*postingList, error) {
	rows, err := db.QueryContext(ctx, `SELECT recollect_postings(facts_fts) FROM facts_fts WHERE facts_fts MATCH ? LIMIT 1`,
		renderFTS5(store.TextQuery{word}))
	if err != nil {
		return nil, fmt.Errorf("read the postings of %q: %w", word, err)
	}
	defer rows.Close()
	p := &postingList{}
	for rows.Next() {
		var blob sql.RawBytes
		if err := rows.Scan(&blob); err != nil {
			return nil, fmt.Errorf("read the postings of %q: %w", word, err)
		}
		if p, err = decodePostings(blob); err != nil {
			return nil, fmt.Errorf("read the postings of %q: %w", word, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the postings of %q: %w", word, err)
	}
	return p, nil
}

// decodePostings reads recollect_postings' blob: the number of postings
// (8 bytes, the machine's byte order), then each posting's id less the
// last one's (the first's less 0) and its count, as unsigned varints.
func decodePostings(blob []byte) (*postingList, error) {
	if len(blob) < 8 {
		return nil, fmt.Errorf("%d bytes hold no count of postings", len(blob))
	}
	m := binary.NativeEndian.Uint64(blob)
	// Each posting takes two bytes at least.
	if m > uint64(len(blob)-8)/2 {
		return nil, fmt.Errorf("%d postings claimed in %d bytes", m, len(blob))
	}
	p := &postingList{ids: make([]uint32, m), tfs: make([]uint16, m)}
	at, id := 8, uint64(0)
	for i := range p.ids {
		step, k := binary.Uvarint(blob[at:])
		if k <= 0 {
			return nil, fmt.Errorf("posting %d of %d: no id at byte %d", i, m, at)
		}
		at += k
		tf, k := binary.Uvarint(blob[at:])
		if k <= 0 {
			return nil, fmt.Errorf("posting %d of %d: no count at byte %d", i, m, at)
		}
		at += k
		if id += step; id > math.MaxUint32 || tf > math.MaxUint16 {
			return nil, errWidePosting
		}
		p.ids[i], p.tfs[i] = uint32(id), uint16(tf)
	}
	if at != len(blob) {
		return nil, fmt.Errorf("%d bytes past the %d postings", len(blob)-at, m)
	}
	return p, nil
}

// postings is word's postings: the cache's when it holds them at the
// view's version, else read and kept, in an index of n facts.
func (cv countView) postings(ctx context.Context, db store.Querier, word string, n int64) (*postingList, error) {
	c := cv.c
	c.mu.Lock()
	if c.current(cv.version) {
		if p := c.posts[word]; p != nil {
			c.tick++
			p.used = c.tick
			c.mu.Unlock()
			return p, nil
		}
	}
	c.mu.Unlock()
	p, err := loadPostings(ctx, db, word)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	bound := postingsCacheBytes(n)
	if !c.current(cv.version) || p.bytes() > bound {
		return p, nil
	}
	if old := c.posts[word]; old != nil {
		c.postBytes -= old.bytes()
		delete(c.posts, word)
	}
	for c.postBytes+p.bytes() > bound {
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

// docLengths is every indexed fact's length in tokens (xColumnSize's),
// by id: 0 for an id the index did not hold when it was read. It is kept
// for the life of the store's handle, across versions, and read further
// only past the highest id it holds: a fact's indexed text never changes
// (the trigger facts_content_immutable refuses it, and the index is
// written only by the facts' triggers), and an id is never given twice
// (facts.id is AUTOINCREMENT, assigned under the write lock in commit
// order), so a length read stays the length of that id for as long as
// the fact is indexed; a fact deleted since is in no posting read after
// its delete, so its stale length is never asked for. Four bytes a fact:
// 400 kB at 100,000 facts.
type docLengths struct {
	mu sync.Mutex
	// dl[id] is fact id's length; entries past len(dl) were not read.
	// The slice only grows by append, so a search keeps using the one it
	// took while another extends it.
	dl []uint32
}

// cover is the lengths, read up to at least id.
func (d *docLengths) cover(ctx context.Context, db store.Querier, id int64) ([]uint32, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if id < int64(len(d.dl)) {
		return d.dl, nil
	}
	// The blob is read in place: 12 bytes a fact, megabytes at a
	// million facts that a copy would leave as garbage.
	rows, err := db.QueryContext(ctx, `SELECT recollect_lengths(id, sz) FROM facts_fts_docsize WHERE id >= ?`, len(d.dl))
	if err != nil {
		return nil, fmt.Errorf("read the facts' lengths: %w", err)
	}
	defer rows.Close()
	dl := d.dl
	for rows.Next() {
		var blob sql.RawBytes
		if err := rows.Scan(&blob); err != nil {
			return nil, fmt.Errorf("read the facts' lengths: %w", err)
		}
		if len(blob)%12 != 0 {
			return nil, fmt.Errorf("read the facts' lengths: %d bytes are not whole rows", len(blob))
		}
		for at := 0; at < len(blob); at += 12 {
			row, tok := int64(binary.NativeEndian.Uint64(blob[at:])), binary.NativeEndian.Uint32(blob[at+8:])
			if row < int64(len(dl)) {
				continue
			}
			for int64(len(dl)) < row {
				dl = append(dl, 0)
			}
			dl = append(dl, tok)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the facts' lengths: %w", err)
	}
	d.dl = dl
	return dl, nil
}

// rareBest is bestMatches for topFactText's two rankings of the rare
// words words[:j]: with both, the facts holding one of them and one of
// words[j:], scored for every word ("(rare) AND (common)"); else every
// fact holding one of them, scored for them alone. n and tokens are the
// index's facts and tokens (factTextTotals). Through a cache, the words'
// postings are ranked here (rankPostings); otherwise, or when least asks
// for FTS5's statements, FTS5 ranks them.
func (cv countView) rareBest(ctx context.Context, db store.Querier, words []topWord, j int, both bool, n, tokens int64, k int, least topTextMin) ([]scored, error) {
	inSQL := func() ([]scored, error) {
		if both {
			return bestMatches(ctx, db, "("+wordsFTS5(words[:j])+") AND ("+wordsFTS5(words[j:])+")", words, k, least)
		}
		return bestMatches(ctx, db, wordsFTS5(words[:j]), words[:j], k, least)
	}
	if cv.c == nil || least.recount || least.scoreAll || least.inSQL {
		return inSQL()
	}
	phrases := words[:j]
	if both {
		phrases = words
	}
	lists, idf, dl, err := cv.phrasePostings(ctx, db, phrases, n)
	if errors.Is(err, errWidePosting) {
		return inSQL()
	}
	if err != nil {
		return nil, err
	}
	best, ok := rankPostings(lists[:j], lists[j:], idf, dl, float64(tokens)/float64(n), k)
	if !ok {
		return inSQL()
	}
	return best, nil
}

// phrasePostings is each word's postings, its idf in an index of n facts
// (exactIDF), and the facts' lengths covering every fact the postings
// hold.
func (cv countView) phrasePostings(ctx context.Context, db store.Querier, words []topWord, n int64) ([]*postingList, []float64, []uint32, error) {
	lists := make([]*postingList, len(words))
	idf := make([]float64, len(words))
	var top uint32
	for i, w := range words {
		p, err := cv.postings(ctx, db, w.word, n)
		if err != nil {
			return nil, nil, nil, err
		}
		lists[i], idf[i] = p, exactIDF(n, w.df)
		if len(p.ids) > 0 {
			top = max(top, p.ids[len(p.ids)-1])
		}
	}
	dl, err := cv.c.lengths.cover(ctx, db, int64(top))
	if err != nil {
		return nil, nil, nil, err
	}
	return lists, idf, dl, nil
}

// wholeBest is the whole query's best k, as topText's statement of
// FTS5's ranking with the words' counts gives them (recollect_bm25 of
// every word of q, in q's order), ranked from the words' postings the
// cache keeps; ok is false when there is no cache, or least asks for
// FTS5's statements, or the query's words cannot be counted (queryWords).
func (cv countView) wholeBest(ctx context.Context, db store.Querier, q store.TextQuery, k int, least topTextMin) (top string, ok bool, err error) {
	if cv.c == nil || least.recount || least.scoreAll || least.inSQL || k <= 0 {
		return "", false, nil
	}
	words, ok := queryWords(q)
	if !ok {
		return "", false, nil
	}
	n, tokens, err := cv.factTotals(ctx, db)
	if err != nil || n <= 0 {
		return "", false, err
	}
	if err := cv.wordCounts(ctx, db, words, n); err != nil {
		if errors.Is(err, errWidePosting) {
			return "", false, nil
		}
		return "", false, err
	}
	lists, idf, dl, err := cv.phrasePostings(ctx, db, words, n)
	if errors.Is(err, errWidePosting) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	best, ok := rankPostings(lists, nil, idf, dl, float64(tokens)/float64(n), k)
	if !ok {
		return "", false, nil
	}
	return scoredJSON(best), true, nil
}

// rankPostings is the best k, best first, ties by id, of the facts the
// lists rare hold that also hold one of common, unless common is empty,
// each scored as recollect_bm25 scores it for phrases rare then common,
// each phrase i weighing idf[i], a fact's length dl[id], over an index
// of average length avgdl. ok is false when dl lacks a fact's length.
func rankPostings(rare, common []*postingList, idf []float64, dl []uint32, avgdl float64, k int) ([]scored, bool) {
	at := make([]int, len(rare))
	seek := make([]int, len(common))
	freq := make([]uint16, len(rare)+len(common))
	best := topHeap{k: k}
	for {
		id, found := uint32(0), false
		for r, p := range rare {
			if at[r] < len(p.ids) && (!found || p.ids[at[r]] < id) {
				id, found = p.ids[at[r]], true
			}
		}
		if !found {
			break
		}
		if int(id) >= len(dl) || dl[id] == 0 {
			return nil, false
		}
		clear(freq)
		for r, p := range rare {
			if at[r] < len(p.ids) && p.ids[at[r]] == id {
				freq[r] = p.tfs[at[r]]
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
			best.push(scored{id: int64(id), score: bm25Score(freq, idf, float64(dl[id]), avgdl)})
		}
	}
	return best.sorted(), true
}

// bm25 constants as variables, so the arithmetic on them is done as C
// does it at run time, each step rounded, never folded exactly.
var (
	bm25K1Var = float64(bm25K1)
	bm25BVar  = float64(bm25B)
)

// bm25Score is recollect_bm25's score of a fact of length dl (tokens)
// holding phrase i freq[i] times: each phrase's share (bm25Term) added in
// the phrases' order, as the C function adds them. A phrase the fact
// does not hold adds an exact 0 there and is skipped here.
func bm25Score(freq []uint16, idf []float64, dl, avgdl float64) float64 {
	score := 0.0
	for i, f := range freq {
		if f != 0 {
			score += bm25Term(f, idf[i], dl, avgdl)
		}
	}
	return score
}

// bm25Term is what a phrase of weight idf held f times adds to the score
// of a fact of length dl, written as the C function writes it. The
// explicit conversions keep Go from fusing a multiply and an add, which C
// does not.
func bm25Term(f uint16, idf, dl, avgdl float64) float64 {
	k1, b := bm25K1Var, bm25BVar
	tf := float64(f)
	return float64(idf * ((tf * (k1 + 1.0)) / (tf + float64(k1*((1-b)+b*dl/avgdl)))))
}

// seekID is the first index from from on whose id is at least id in
// ids (sorted), found by galloping: the facts sought come in id order.
func seekID(ids []uint32, from int, id uint32) int {
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

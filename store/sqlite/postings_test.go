package sqlite

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store"
)

// heldPostings is how many words' postings the cache holds.
func (c *countCache) heldPostings() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.posts)
}

// postingsStore is the store the postings tests rank in:
// RECOLLECT_TOPK_STORE, a data directory (such as the one the search
// benchmark keeps), or else a generated one of n facts.
func postingsStore(t *testing.T, n int) *store.DB {
	t.Helper()
	dir := os.Getenv("RECOLLECT_TOPK_STORE")
	if dir == "" {
		return topkStore(t, n)
	}
	db, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// cutQueries cuts n queries from the store's facts, spread over its ids:
// a run of 3 to 12 of a fact's words, as the keyword arm asks for them.
func cutQueries(tb testing.TB, db *store.DB, n int) []store.TextQuery {
	tb.Helper()
	rows, err := db.QueryContext(context.Background(), `SELECT content FROM facts WHERE id % (SELECT max(1, count(*) / ?) FROM facts) = 0 ORDER BY id LIMIT ?`, n, n)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	rng := rand.New(rand.NewPCG(5, 6))
	var out []store.TextQuery
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			tb.Fatal(err)
		}
		w := strings.Fields(c)
		size := 3 + rng.IntN(10)
		start := rng.IntN(max(1, len(w)-size+1))
		if q := text.Analyze(strings.Join(w[start:min(len(w), start+size)], " ")).KeywordQuery(); len(q) > 0 {
			out = append(out, q)
		}
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Fatal("no query could be cut from the store's facts")
	}
	return out
}

// TestPostingsRankAsFTS5: ranked from the postings the store's cache
// keeps, the rare words' best k are the bytes FTS5's statements give
// (topFactText without a cache), and topText's source ranks the same
// facts with the same scores (the whole query too, where the rare words
// do not settle it), for 200 queries cut from the store's facts, at two
// depths, on the search that reads the postings and on the one the
// cache serves. Most queries must be ranked from the postings, or the
// test would compare FTS5 with itself.
func TestPostingsRankAsFTS5(t *testing.T) {
	ctx := context.Background()
	db := postingsStore(t, 5000)
	eng := db.Engine().(sqliteEngine)
	cache := eng.counts
	least := topTextMin{}
	if os.Getenv("RECOLLECT_TOPK_STORE") != "" {
		least = topTextMin{facts: topTextMinFacts, rows: topTextMinRows}
	}
	settled, whole := 0, 0
	queries := cutQueries(t, db, 200)
	for round := range 2 {
		for _, q := range queries {
			for _, k := range []int{10, 200} {
				top, ok, counts, err := topFactText(ctx, db, nil, q, k, least)
				if err != nil {
					t.Fatal(err)
				}
				want := fmt.Sprintf("ok %v counts %q top %s", ok, counts, top)
				top, ok, counts, err = topFactText(ctx, db, cache, q, k, least)
				if err != nil {
					t.Fatal(err)
				}
				if got := fmt.Sprintf("ok %v counts %q top %s", ok, counts, top); got != want {
					t.Fatalf("round %d, %q, k %d: from the postings %s\nFTS5's statements %s", round, q, k, got, want)
				}
				if ok && round == 0 {
					settled++
				}
				src, args, err := (sqliteEngine{}).topText(ctx, db, store.FactText, q, k, least)
				if err != nil {
					t.Fatal(err)
				}
				want2 := rankedRows(t, db, src, args...)
				src, args, err = eng.topText(ctx, db, store.FactText, q, k, least)
				if err != nil {
					t.Fatal(err)
				}
				if got2 := rankedRows(t, db, src, args...); !slices.Equal(got2, want2) {
					t.Fatalf("round %d, %q, k %d: topText from the postings ranks %v\nFTS5's statements %v", round, q, k, got2, want2)
				}
				if !ok && strings.Contains(src, "json_each") && round == 0 {
					whole++
				}
			}
		}
	}
	if settled < len(queries)/2 {
		t.Fatalf("the rare words settled %d of %d rankings; the test compares too few", settled, 2*len(queries))
	}
	if cache.heldPostings() == 0 {
		t.Fatal("the cache holds no postings: the rankings were not made from them")
	}
	t.Logf("of %d rankings, the rare words settled %d, the whole query was ranked from the postings %d times", 2*len(queries), settled, whole)
}

// TestPostingsKeyedOnKnowledge: the postings are kept while the facts do
// not change — a transcript line copied leaves them — and a fact stored
// by another handle (as another process would) empties them, so the
// search after it ranks the new fact as FTS5 does, its length read into
// the lengths kept.
func TestPostingsKeyedOnKnowledge(t *testing.T) {
	ctx := context.Background()
	db := topkStore(t, 3000)
	other, err := Open(ctx, db.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	cache := db.Engine().(sqliteEngine).counts
	q := store.TextQuery{"zebra3", "note", "project"}
	search := func(what string) string {
		t.Helper()
		want := topOf(t, ctx, db, nil, q, 20)
		if !strings.HasPrefix(want, "ok true") {
			t.Fatalf("%s: the rare word did not settle %q: %s", what, q, want)
		}
		if got := topOf(t, ctx, db, cache, q, 20); got != want {
			t.Errorf("%s: from the postings %s\nFTS5's statements %s", what, got, want)
		}
		return want
	}
	before := search("before")
	held := cache.heldPostings()
	if held == 0 {
		t.Fatal("the search keeps no postings")
	}
	copyLine(t, other, "s-postings", "a transcript line")
	if got := cache.heldPostings(); got != held {
		t.Fatalf("a copied transcript line left %d words' postings of %d", got, held)
	}
	search("after the copy")
	if got := cache.heldPostings(); got != held {
		t.Errorf("after a copy the search kept %d words' postings; want the %d held", got, held)
	}
	c := "zebra3 zebra3 note project"
	if _, err := other.ExecContext(ctx, `INSERT INTO facts(content, digest, producer, recorded_at) VALUES (?, ?, 'cli', ?)`,
		c, store.Digest(c), store.Now()); err != nil {
		t.Fatal(err)
	}
	if after := search("after a fact stored"); after == before {
		t.Error("the stored fact did not change the answer; the test cannot tell stale postings")
	}
	var newest int64
	if err := db.QueryRowContext(ctx, `SELECT max(id) FROM facts`).Scan(&newest); err != nil {
		t.Fatal(err)
	}
	cache.lengths.mu.Lock()
	dl := cache.lengths.dl
	cache.lengths.mu.Unlock()
	if newest >= int64(len(dl)) || dl[newest] != 4 {
		t.Errorf("the kept lengths do not hold the stored fact %d's length of 4 (%d held)", newest, len(dl))
	}
}

// TestSeekID: the galloping search finds the first id at least the one
// sought from where it starts, past the end when none is.
func TestSeekID(t *testing.T) {
	ids := []uint32{2, 3, 5, 8, 13, 21, 34, 55, 89, 144}
	for _, c := range []struct {
		from int
		id   uint32
		want int
	}{
		{0, 1, 0}, {0, 2, 0}, {0, 4, 2}, {0, 144, 9}, {0, 145, 10},
		{3, 8, 3}, {3, 9, 4}, {3, 100, 9}, {9, 144, 9}, {10, 1, 10}, {5, 2, 5},
	} {
		if got := seekID(ids, c.from, c.id); got != c.want {
			t.Errorf("seekID(from %d, %d) = %d, want %d", c.from, c.id, got, c.want)
		}
	}
}

// TestTopHeap: the heap keeps the best k as ORDER BY score DESC, id does,
// ties going to the lower id, whatever order the facts come in.
func TestTopHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 50 {
		all := make([]scored, 300)
		for i := range all {
			all[i] = scored{id: int64(i + 1), score: float64(rng.IntN(40))}
		}
		rng.Shuffle(len(all), func(a, b int) { all[a], all[b] = all[b], all[a] })
		k := 1 + rng.IntN(60)
		h := topHeap{k: k}
		for _, s := range all {
			h.push(s)
		}
		want := slices.Clone(all)
		slices.SortFunc(want, func(a, b scored) int {
			if a.score != b.score {
				if a.score > b.score {
					return -1
				}
				return 1
			}
			return int(a.id - b.id)
		})
		if got := h.sorted(); !slices.Equal(got, want[:k]) {
			t.Fatalf("round %d, k %d: kept %v, want %v", round, k, got, want[:k])
		}
	}
}

// TestDecodePostings: recollect_postings' blob (a count, then each
// posting's step from the last id and its count, as varints) reads back
// as the postings; a blob that is short, truncated, claims more postings
// than it holds or holds bytes past them is an error that says so, and a
// posting the list's 6 bytes cannot hold is errWidePosting.
func TestDecodePostings(t *testing.T) {
	blob := func(count uint64, varints ...uint64) []byte {
		b := binary.NativeEndian.AppendUint64(nil, count)
		for _, v := range varints {
			b = binary.AppendUvarint(b, v)
		}
		return b
	}
	for _, c := range []struct {
		name      string
		blob      []byte
		ids       []uint32
		tfs       []uint16
		err, wide bool
	}{
		{name: "none", blob: blob(0)},
		{name: "steps from 0", blob: blob(3, 5, 1, 1, 2, 300, 9), ids: []uint32{5, 6, 306}, tfs: []uint16{1, 2, 9}},
		{name: "largest", blob: blob(2, math.MaxUint32-1, 1, 1, math.MaxUint16), ids: []uint32{math.MaxUint32 - 1, math.MaxUint32}, tfs: []uint16{1, math.MaxUint16}},
		{name: "id past 2^32", blob: blob(2, math.MaxUint32, 1, 1, 1), wide: true},
		{name: "count past 2^16", blob: blob(1, 7, math.MaxUint16+1), wide: true},
		{name: "short", blob: []byte{1, 0, 0}, err: true},
		{name: "more claimed than held", blob: blob(3, 1, 1, 1, 1), err: true},
		{name: "truncated varint", blob: append(blob(1, 1), 0x80), err: true},
		{name: "bytes past the postings", blob: append(blob(1, 1, 1), 1, 1), err: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := decodePostings(c.blob)
			switch {
			case c.wide:
				if !errors.Is(err, errWidePosting) {
					t.Fatalf("err %v, want errWidePosting", err)
				}
			case c.err:
				if err == nil || errors.Is(err, errWidePosting) {
					t.Fatalf("err %v, want a malformed blob's", err)
				}
			case err != nil:
				t.Fatal(err)
			case !slices.Equal(p.ids, c.ids) || !slices.Equal(p.tfs, c.tfs):
				t.Fatalf("ids %v tfs %v, want %v %v", p.ids, p.tfs, c.ids, c.tfs)
			}
		})
	}
}

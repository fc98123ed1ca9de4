package sqlite

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/store"
)

// topkStore fills a SQLite store with facts of 4 to 30 words: two words
// most facts hold ("note", "project"), a few that a tenth hold, and rare
// ones ("zebra0" … "zebra9") held by about 2% each, some twice.
func topkStore(tb testing.TB, n int) *store.DB {
	tb.Helper()
	ctx := context.Background()
	db, err := Open(ctx, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	rng := rand.New(rand.NewPCG(1, 2))
	filler := strings.Fields("alpha beta gamma delta epsilon zeta theta iota kappa lambda omicron sigma tau upsilon omega")
	err = db.Tx(ctx, func(tx *store.Tx) error {
		for i := range n {
			var w []string
			for range 4 + rng.IntN(27) {
				w = append(w, filler[rng.IntN(len(filler))])
			}
			if rng.IntN(10) < 7 {
				w = append(w, "note")
			}
			if rng.IntN(10) < 4 {
				w = append(w, "project")
			}
			if rng.IntN(10) == 0 {
				w = append(w, "release")
			}
			if rng.IntN(5) == 0 {
				z := fmt.Sprintf("zebra%d", rng.IntN(10))
				w = append(w, z)
				if rng.IntN(4) == 0 {
					w = append(w, z)
				}
			}
			rng.Shuffle(len(w), func(a, b int) { w[a], w[b] = w[b], w[a] })
			c := strings.Join(w, " ")
			if _, err := tx.ExecContext(ctx, `INSERT INTO facts(content, digest, producer, recorded_at) VALUES (?, ?, 'cli', ?)`,
				c, store.Digest(c), store.Now()); err != nil {
				return fmt.Errorf("fact %d: %w", i, err)
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return db
}

type rankedRow struct {
	id    int64
	score float64
}

func rankedRows(tb testing.TB, db *store.DB, source string, args ...any) []rankedRow {
	tb.Helper()
	rows, err := db.QueryContext(context.Background(), `SELECT id, score FROM `+source+` r ORDER BY score DESC, id`, args...)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []rankedRow
	for rows.Next() {
		var r rankedRow
		if err := rows.Scan(&r.id, &r.score); err != nil {
			tb.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestTopFactTextRanksAsFTS5: a query of a rare word and common ones is
// ranked from the rare word's facts alone, and its best k are FTS5's best
// k for the whole query, with FTS5's scores.
func TestTopFactTextRanksAsFTS5(t *testing.T) {
	ctx := context.Background()
	db := topkStore(t, 4000)
	eng := sqliteEngine{}
	for _, q := range []store.TextQuery{
		{"zebra3", "note"},
		{"note", "project", "zebra7"},
		{"zebra1", "zebra2", "release", "note"},
		{"project", "zebra5", "note", "release"},
		// A phrase and a word FTS5 folds are counted from their postings.
		{"zebra3 note", "zebra3", "project"},
		{"note", "zébra3", "project"},
		{"zebra6 zebra6", "zebra4", "note"},
	} {
		t.Run(strings.Join(q, "_"), func(t *testing.T) {
			const k = 40
			top, ok, _, err := topFactText(ctx, db, nil, q, k, topTextMin{})
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Fatalf("%q was ranked whole: want the rare words to settle the best %d", q, k)
			}
			got := rankedRows(t, db, `(SELECT CAST(value->>0 AS INTEGER) AS id, value->>1 AS score FROM json_each(?))`, top)
			want := rankedRows(t, db, `(SELECT id, score FROM `+eng.TextMatches(store.FactText)+` m ORDER BY score DESC, id LIMIT ?)`, renderFTS5(q), k)
			if len(got) != len(want) {
				t.Fatalf("%d facts, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i].id != want[i].id || math.Abs(got[i].score-want[i].score) > 1e-9 {
					t.Fatalf("rank %d: fact %d scoring %v, FTS5 ranks fact %d scoring %v", i+1, got[i].id, got[i].score, want[i].id, want[i].score)
				}
			}
		})
	}
}

// TestTopFactTextRanksWhole: queries the rare words cannot settle are left
// to FTS5's whole ranking.
func TestTopFactTextRanksWhole(t *testing.T) {
	ctx := context.Background()
	db := topkStore(t, 2000)
	for _, c := range []struct {
		name  string
		q     store.TextQuery
		least topTextMin
	}{
		{"common words only", store.TextQuery{"note", "project"}, topTextMin{}},
		{"rare words hold fewer than k", store.TextQuery{"zebra3", "zebra4", "quokka"}, topTextMin{}},
		{"one word", store.TextQuery{"note"}, topTextMin{}},
		{"one phrase", store.TextQuery{"zebra3 note"}, topTextMin{}},
		{"an element with no word in it", store.TextQuery{"zebra3", "—", "note"}, topTextMin{}},
		{"one term twice", store.TextQuery{"zebra3", "notes", "note"}, topTextMin{}},
		{"a store too small to save anything", store.TextQuery{"zebra3", "note"}, topTextMin{facts: 2001}},
		{"matches too few to save anything", store.TextQuery{"zebra3", "note"}, topTextMin{rows: 1_000_000}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, ok, _, err := topFactText(ctx, db, nil, c.q, 40, c.least); err != nil || ok {
				t.Errorf("%q: ok = %v, err = %v; want the whole query ranked", c.q, ok, err)
			}
		})
	}
}

// TestTopTextSource: the source TopText hands the keyword arm holds the
// same facts in the same order, with the same scores, as FTS5's whole
// ranking by bm25(), on the fast path, off it once the words' counts are
// read (ranked whole by recollect_bm25), and off it before; with the
// counts read from the index each time, and with them kept by the store's
// engine (read on the first search, held on the second).
func TestTopTextSource(t *testing.T) {
	ctx := context.Background()
	db := topkStore(t, 3000)
	for _, eng := range []sqliteEngine{{}, db.Engine().(sqliteEngine), db.Engine().(sqliteEngine)} {
		testTopTextSource(t, ctx, db, eng)
	}
	if n := db.Engine().(sqliteEngine).counts.cachedWords(); n == 0 {
		t.Errorf("the store's engine holds no word's counts after its searches")
	}
}

func testTopTextSource(t *testing.T, ctx context.Context, db *store.DB, eng sqliteEngine) {
	t.Helper()
	for _, c := range []struct {
		q     store.TextQuery
		least topTextMin
		// form is the source's ranking without a cache, kept with the
		// store's (which ranks the words' postings it keeps).
		form, kept string
	}{
		{store.TextQuery{"zebra2", "note", "project"}, topTextMin{}, "json_each", "json_each"},
		{store.TextQuery{"note", "project"}, topTextMin{}, "recollect_bm25", "json_each"},
		{store.TextQuery{"project", "note"}, topTextMin{}, "recollect_bm25", "json_each"},
		{store.TextQuery{"note", "quokka", "project"}, topTextMin{}, "recollect_bm25", "json_each"},
		{store.TextQuery{"note", "project", "alpha", "omega"}, topTextMin{}, "json_each", "json_each"},
		{store.TextQuery{"note", "project"}, topTextMin{inSQL: true}, "recollect_bm25", "recollect_bm25"},
		// One word, phrases, and words FTS5 folds are counted, and ranked
		// from the postings where they are kept.
		{store.TextQuery{"note"}, topTextMin{}, "recollect_bm25", "json_each"},
		{store.TextQuery{"note project"}, topTextMin{}, "recollect_bm25", "json_each"},
		{store.TextQuery{"zebra2 note", "zebra2", "project"}, topTextMin{}, "json_each", "json_each"},
		{store.TextQuery{"note project", "note", "project"}, topTextMin{}, "json_each", "json_each"},
		{store.TextQuery{"zébra2", "note", "project"}, topTextMin{}, "json_each", "json_each"},
		{store.TextQuery{"Note", "project"}, topTextMin{}, "recollect_bm25", "json_each"},
		{store.TextQuery{"note", "project"}, topTextMin{recount: true}, "-bm25", "-bm25"},
		{store.TextQuery{"note", "project"}, topTextMin{facts: 1_000_000}, "-bm25", "-bm25"},
	} {
		src, args, err := eng.topText(ctx, db, store.FactText, c.q, 30, c.least)
		if err != nil {
			t.Fatal(err)
		}
		form := c.form
		if eng.counts != nil {
			form = c.kept
		}
		if !strings.Contains(src, form) {
			t.Errorf("%q, %+v: the source is %s; want it ranked by %s", c.q, c.least, src, form)
		}
		got := rankedRows(t, db, src, args...)
		want := rankedRows(t, db, `(SELECT id, score FROM `+eng.TextMatches(store.FactText)+` m ORDER BY score DESC, id LIMIT ?)`, renderFTS5(c.q), 30)
		if len(got) != len(want) {
			t.Fatalf("%q: %d facts, want %d", c.q, len(got), len(want))
		}
		for i := range want {
			if got[i].id != want[i].id || got[i].score != want[i].score {
				t.Fatalf("%q rank %d: fact %d scoring %v, FTS5 ranks fact %d scoring %v", c.q, i+1, got[i].id, got[i].score, want[i].id, want[i].score)
			}
		}
	}
}

func TestVarint(t *testing.T) {
	for _, c := range []struct {
		b    []byte
		v    uint64
		size int
	}{
		{[]byte{0x05}, 5, 1},
		{[]byte{0x86, 0x8D, 0x20, 0x81}, 100000, 3},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, math.MaxUint64, 9},
		{[]byte{0x80}, 0, 0},
	} {
		if v, size := varint(c.b); v != c.v || size != c.size {
			t.Errorf("varint(% x) = %d, %d; want %d, %d", c.b, v, size, c.v, c.size)
		}
	}
}

// TestRecollectBM25IsBM25: recollect_bm25, given each phrase's count of
// matching rows from facts_fts_vocab (a plain word's) or from its
// postings (a phrase's, or a word FTS5 folds), scores every match of a
// query as FTS5's bm25() does, to the bit.
func TestRecollectBM25IsBM25(t *testing.T) {
	ctx := context.Background()
	db := topkStore(t, 3000)
	for _, q := range []store.TextQuery{
		{"zebra3"},
		{"zebra3", "note"},
		{"note", "project", "release", "alpha", "omega"},
		{"zebra1", "zebra2", "release", "note", "zebra1"},
		{"zebra3 note", "project"},
		{"note note", "zébra3", "release"},
	} {
		words := make([]topWord, len(q))
		for i, w := range q {
			one, ok := queryWords(store.TextQuery{w})
			if !ok {
				t.Fatalf("%q cannot be counted", w)
			}
			words[i] = one[0]
		}
		if err := wordCounts(ctx, db, words, func(w string) (*postingList, error) { return loadPostings(ctx, db, w) }); err != nil {
			t.Fatal(err)
		}
		counts := ""
		for i, w := range words {
			counts += fmt.Sprint(w.df)
			if i < len(words)-1 {
				counts += " "
			}
		}
		rows, err := db.QueryContext(ctx, `SELECT rowid, bm25(facts_fts), recollect_bm25(facts_fts, ?) FROM facts_fts WHERE facts_fts MATCH ?`, counts, renderFTS5(q))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var id int64
			var want, got float64
			if err := rows.Scan(&id, &want, &got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%q, fact %d: recollect_bm25 %v, bm25 %v", q, id, got, want)
			}
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if n == 0 {
			t.Errorf("%q matches nothing: the test compares no scores", q)
		}
	}
}

// TestRecollectBM25BestK: recollect_bm25 told that the statement keeps
// the best k passes over rows (NULL) and still gives the same best k —
// the same facts in the same order with the same scores, to the bit — as
// scoring every match, and as FTS5's bm25(), for queries of rare and
// common words, common words only (whole rankings of thousands of
// matches), and k from 1 to past the matches; and it does pass over rows.
func TestRecollectBM25BestK(t *testing.T) {
	ctx := context.Background()
	db := topkStore(t, 4000)
	passed := 0
	for _, q := range []store.TextQuery{
		{"zebra3", "note"},
		{"note", "project"},
		{"note", "project", "release", "alpha", "omega"},
		{"zebra1", "zebra2", "release", "note"},
		{"project", "zebra5", "note", "release", "alpha", "theta"},
		{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "iota"},
	} {
		words, _ := queryWords(q)
		if err := wordCounts(ctx, db, words, func(w string) (*postingList, error) { return loadPostings(ctx, db, w) }); err != nil {
			t.Fatal(err)
		}
		counts, match := countList(words), renderFTS5(q)
		for _, k := range []int{1, 10, 40, 200, 1000, 10_000} {
			best := func(rank string, args ...any) []rankedRow {
				return rankedRows(t, db, `(SELECT id, score FROM (SELECT rowid AS id, `+rank+` AS score FROM facts_fts WHERE facts_fts MATCH ?)
					WHERE score IS NOT NULL ORDER BY score DESC, id LIMIT ?)`, append(args, match, k)...)
			}
			got := best(`-recollect_bm25(facts_fts, ?, ?)`, counts, k)
			all := best(`-recollect_bm25(facts_fts, ?)`, counts)
			fts5 := best(`-bm25(facts_fts)`)
			if len(got) == 0 || !slices.Equal(got, all) || !slices.Equal(got, fts5) {
				t.Errorf("%q, k %d: passing over rows ranks %v\nscoring every match %v\nbm25() %v", q, k, got, all, fts5)
			}
			var nulls int
			if err := db.QueryRowContext(ctx, `SELECT count(*) FROM facts_fts WHERE facts_fts MATCH ? AND recollect_bm25(facts_fts, ?, ?) IS NULL`,
				match, counts, k).Scan(&nulls); err != nil {
				t.Fatal(err)
			}
			passed += nulls
		}
	}
	if passed == 0 {
		t.Error("recollect_bm25 scored every match: the test compares no row passed over")
	}
}

// TestRecollectBM25Counts: a count list that does not fit the query's
// phrases is an error that says so, not a score.
func TestRecollectBM25Counts(t *testing.T) {
	ctx := context.Background()
	db := topkStore(t, 200)
	for _, c := range []struct{ counts, want string }{
		{"12", "fewer counts than the query has phrases"},
		{"12 13 14", "more counts than the query has phrases"},
		{"twelve 13", "fewer counts than the query has phrases"},
	} {
		var score float64
		err := db.QueryRowContext(ctx, `SELECT recollect_bm25(facts_fts, ?) FROM facts_fts WHERE facts_fts MATCH '"note" OR "project"' LIMIT 1`, c.counts).Scan(&score)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("counts %q: err = %v, want %q", c.counts, err, c.want)
		}
	}
}

// TestTopFactTextEitherRanker: the best k are the same facts, in the same
// order, with the same scores, whether recollect_bm25 or FTS5's bm25()
// scores the matches.
func TestTopFactTextEitherRanker(t *testing.T) {
	ctx := context.Background()
	db := topkStore(t, 4000)
	for _, q := range []store.TextQuery{
		{"zebra3", "note"},
		{"note", "project", "zebra7"},
		{"zebra1", "zebra2", "release", "note"},
		{"project", "zebra5", "note", "release", "alpha", "theta"},
	} {
		for _, k := range []int{10, 40} {
			got, ok, _, err := topFactText(ctx, db, nil, q, k, topTextMin{})
			if err != nil || !ok {
				t.Fatalf("%q, k %d: ok %v, err %v; want the rare words to settle the best k", q, k, ok, err)
			}
			want, _, _, err := topFactText(ctx, db, nil, q, k, topTextMin{recount: true})
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%q, k %d: recollect_bm25 ranks %s, bm25() %s", q, k, got, want)
			}
		}
	}
}

// BenchmarkTopFactText times the keyword arm's best 200 (topText's source,
// read) scored by recollect_bm25 and by FTS5's own bm25()
// (topTextMin.recount), the two taking turns going first, over queries of
// a rare word and common ones and one of common words only (ranked
// whole), and reports the first's total over the second's as
// new-old-ratio. The store is a
// generated one of RECOLLECT_TOPK_FACTS facts (100,000 unless set).
func BenchmarkTopFactText(b *testing.B) {
	ctx := context.Background()
	db := topkStore(b, topkFacts(b))
	queries := []store.TextQuery{
		{"zebra3", "note"},
		{"note", "project", "zebra7"},
		{"zebra1", "zebra2", "release", "note"},
		{"project", "zebra5", "note", "release", "alpha", "theta"},
		{"zebra8", "omega", "sigma", "project"},
		{"note", "project", "alpha"},
	}
	var spent [2]time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := queries[i%len(queries)]
		for _, recount := range []bool{i%2 == 1, i%2 == 0} {
			t0 := time.Now()
			src, args, err := (sqliteEngine{}).topText(ctx, db, store.FactText, q, 200, topTextMin{recount: recount})
			if err != nil {
				b.Fatal(err)
			}
			rankedRows(b, db, src, args...)
			if recount {
				spent[1] += time.Since(t0)
			} else {
				spent[0] += time.Since(t0)
			}
		}
	}
	b.ReportMetric(float64(spent[0])/float64(spent[1]), "new-old-ratio")
	b.ReportMetric(float64(spent[0].Microseconds())/1000/float64(b.N), "new-ms/op")
	b.ReportMetric(float64(spent[1].Microseconds())/1000/float64(b.N), "old-ms/op")
}

// BenchmarkTopFactTextBestK times the keyword arm's best 200 (topText's
// source, read, with the sizes TopText uses) with recollect_bm25 passing
// over the matches that cannot reach them and with it scoring every match
// (topTextMin.scoreAll), the two taking turns going first, and reports
// the first's total over the second's as new-old-ratio; it fails if the
// two rank differently. The queries are runs of 3 to 12 words cut from
// 200 of the store's facts. The store is RECOLLECT_TOPK_STORE, a data
// directory (such as one the search benchmark keeps, see
// cmd/recollect-bench/README.md), or else a generated one of
// RECOLLECT_TOPK_FACTS facts (100,000 unless set).
func BenchmarkTopFactTextBestK(b *testing.B) {
	ctx := context.Background()
	var db *store.DB
	if dir := os.Getenv("RECOLLECT_TOPK_STORE"); dir != "" {
		var err error
		if db, err = Open(ctx, dir); err != nil {
			b.Fatal(err)
		}
		defer db.Close()
	} else {
		db = topkStore(b, topkFacts(b))
	}
	queries := cutQueries(b, db, 200)
	eng := db.Engine().(sqliteEngine)
	var spent [2]time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := queries[i%len(queries)]
		var got [2][]rankedRow
		for _, all := range []bool{i%2 == 1, i%2 == 0} {
			w := 0
			if all {
				w = 1
			}
			t0 := time.Now()
			src, args, err := eng.topText(ctx, db, store.FactText, q, 200, topTextMin{facts: topTextMinFacts, rows: topTextMinRows, scoreAll: all})
			if err != nil {
				b.Fatal(err)
			}
			got[w] = rankedRows(b, db, src, args...)
			spent[w] += time.Since(t0)
		}
		if !slices.Equal(got[0], got[1]) {
			b.Fatalf("%q: passing over rows ranks %v\nscoring every match %v", q, got[0], got[1])
		}
	}
	b.ReportMetric(float64(spent[0])/float64(spent[1]), "new-old-ratio")
	b.ReportMetric(float64(spent[0].Microseconds())/1000/float64(b.N), "new-ms/op")
	b.ReportMetric(float64(spent[1].Microseconds())/1000/float64(b.N), "old-ms/op")
}

// topkFacts is the size of the generated store the keyword benchmarks
// run on: RECOLLECT_TOPK_FACTS facts, 100,000 unless set.
func topkFacts(b *testing.B) int {
	env := os.Getenv("RECOLLECT_TOPK_FACTS")
	if env == "" {
		return 100_000
	}
	n, err := strconv.Atoi(env)
	if err != nil || n <= 0 {
		b.Fatalf("RECOLLECT_TOPK_FACTS=%q: want a positive number of facts", env)
	}
	return n
}

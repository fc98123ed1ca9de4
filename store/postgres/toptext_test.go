package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/postgres/pgtest"
)

// zipfText writes sentences of words drawn from a vocabulary of n
// words, word i about 1/(i+1) as often as the first, as prose's words
// are: a few words in most sentences, most words in few. Some words share
// a stem (deploy, deployed), and a few carry a hyphen, which the text
// search configuration reads as several lexemes.
type zipfText struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	words []string
}

func newZipfText(seed uint64, n int) *zipfText {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	words := make([]string, n)
	for i := range words {
		switch {
		case i%97 == 5:
			words[i] = fmt.Sprintf("deploy%sed", strconv.Itoa(i/97))
		case i%89 == 7:
			words[i] = fmt.Sprintf("project-w%d", i)
		default:
			words[i] = fmt.Sprintf("w%dx", i)
		}
	}
	return &zipfText{rng: rng, zipf: rand.NewZipf(rng, 1.1, 2, uint64(n-1)), words: words}
}

// sentence is one sentence of between lo and hi words.
func (z *zipfText) sentence(lo, hi int) string {
	n := lo + z.rng.IntN(hi-lo+1)
	w := make([]string, n)
	for i := range w {
		w[i] = z.words[z.zipf.Uint64()]
	}
	return strings.Join(w, " ")
}

// zipfStore is a store of n facts of zipfText's sentences, written in one
// statement, with its tables analysed.
func zipfStore(tb testing.TB, n int) *store.DB {
	tb.Helper()
	ctx := context.Background()
	url, schema := pgtest.Schema(tb)
	db, err := OpenStoreURL(ctx, tb.TempDir(), url, schema)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	z := newZipfText(29, 3000)
	facts := make([]string, n)
	for i := range facts {
		facts[i] = z.sentence(1, 30)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO facts(content, digest, producer, recorded_at)
		SELECT c, c || ' ' || o, 'heuristic', 'now' FROM unnest(CAST($1 AS text[])) WITH ORDINALITY AS x(c, o)`, facts); err != nil {
		tb.Fatal(err)
	}
	if err := db.Engine().Settle(ctx, db); err != nil {
		tb.Fatal(err)
	}
	return db
}

// topText reads a best-k statement's rows as "id:score" words.
func topText(tb testing.TB, db *store.DB, sql string, terms []string, k int) string {
	tb.Helper()
	rows, err := db.QueryContext(context.Background(), `SELECT id, score FROM `+sql+` x`, renderTerms(terms), k)
	if err != nil {
		tb.Fatalf("%q: %v", terms, err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id int64
		var score float64
		if err := rows.Scan(&id, &score); err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(&b, "%d:%v ", id, score)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

// settledFirst is topFactText's statement cut to whether its first pass
// settled the best k.
func settledFirst(m int) string {
	s := topFactText(m, "")
	return s[:strings.LastIndex(s, "SELECT * FROM (SELECT * FROM s1")] + `SELECT ok AS id, 0 AS score FROM ok)`
}

// TestTopFactTextAnswersAsTheWholeRanking: ranking the rarer terms'
// matches first gives the whole ranking's facts, scores and order, for
// whole sentences of many words (common ones among them) at a prompt's k
// and the keyword pool's, whether the first pass settles the answer or a
// second pass is needed, and for a query matching fewer facts than k.
func TestTopFactTextAnswersAsTheWholeRanking(t *testing.T) {
	db := zipfStore(t, 4000)
	z := newZipfText(31, 3000)
	queries := [][]string{{"w0x", "w1x"}, {"nothingmatches", "w2999x"}, {"w5x w6x", "w0x", "w1x", "w2x"}, {"project-w7", "w0x"}}
	for range 120 {
		queries = append(queries, strings.Fields(z.sentence(3, 16)))
	}
	settled := map[bool]int{}
	for _, k := range []int{10, 200} {
		for _, q := range queries {
			want := topText(t, db, topFactTextWhole(len(q), ""), q, k)
			got := topText(t, db, topFactText(len(q), ""), q, k)
			if got != want {
				t.Errorf("k=%d %q:\nin two passes %s\nwhole         %s", k, q, got, want)
			}
			var ok bool
			if err := db.QueryRowContext(context.Background(), `SELECT id FROM `+settledFirst(len(q))+` x`, renderTerms(q), k).Scan(&ok); err != nil {
				t.Fatal(err)
			}
			settled[ok]++
		}
	}
	if settled[true] == 0 || settled[false] == 0 {
		t.Errorf("the first pass settled %d queries and left %d: the test needs both", settled[true], settled[false])
	}
}

// BenchmarkTopFactText times the keyword pool's ranking (the best 200) of
// whole sentences over a store of RECOLLECT_TOPTEXT_FACTS facts (100k
// when unset) in two passes (topFactText) and whole (topFactTextWhole),
// taking turns going first, and reports the first's total over the
// second's as two-pass-ratio, with each one's mean.
func BenchmarkTopFactText(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("RECOLLECT_TOPTEXT_FACTS")); err == nil && v > 0 {
		n = v
	}
	db := zipfStore(b, n)
	z := newZipfText(31, 3000)
	queries := make([][]string, 200)
	for i := range queries {
		queries[i] = strings.Fields(z.sentence(6, 16))
	}
	var spent [2]time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := queries[i%len(queries)]
		var answers [2]string
		for _, w := range []int{i % 2, 1 - i%2} {
			sql := topFactText(len(q), "")
			if w == 1 {
				sql = topFactTextWhole(len(q), "")
			}
			t0 := time.Now()
			answers[w] = topText(b, db, sql, q, 200)
			spent[w] += time.Since(t0)
		}
		if answers[0] != answers[1] {
			b.Fatalf("%q: in two passes %s\nwhole %s", q, answers[0], answers[1])
		}
	}
	b.ReportMetric(float64(spent[0])/float64(spent[1]), "two-pass-ratio")
	b.ReportMetric(float64(spent[0].Microseconds())/1000/float64(b.N), "two-pass-ms/op")
	b.ReportMetric(float64(spent[1].Microseconds())/1000/float64(b.N), "whole-ms/op")
}

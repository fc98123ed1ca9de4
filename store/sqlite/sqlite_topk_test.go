package sqlite

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

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
	} {
		t.Run(strings.Join(q, "_"), func(t *testing.T) {
			const k = 40
			top, ok, err := topFactText(ctx, db, q, k, topTextMin{})
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
		{"a phrase", store.TextQuery{"zebra3 note", "project"}, topTextMin{}},
		{"a word FTS5 would fold", store.TextQuery{"zébra3", "note"}, topTextMin{}},
		{"a store too small to save anything", store.TextQuery{"zebra3", "note"}, topTextMin{facts: 2001}},
		{"matches too few to save anything", store.TextQuery{"zebra3", "note"}, topTextMin{rows: 1_000_000}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, ok, err := topFactText(ctx, db, c.q, 40, c.least); err != nil || ok {
				t.Errorf("%q: ok = %v, err = %v; want the whole query ranked", c.q, ok, err)
			}
		})
	}
}

// TestTopTextSource: the source TopText hands the keyword arm holds the
// same facts in the same order as the whole ranking, on the fast path and
// off it.
func TestTopTextSource(t *testing.T) {
	ctx := context.Background()
	db := topkStore(t, 3000)
	eng := sqliteEngine{}
	for i, q := range []store.TextQuery{{"zebra2", "note", "project"}, {"note", "project"}} {
		src, args, err := eng.topText(ctx, db, store.FactText, q, 30, topTextMin{})
		if err != nil {
			t.Fatal(err)
		}
		if fast := strings.Contains(src, "json_each"); fast != (i == 0) {
			t.Errorf("%q: ranked from the rare words = %v, want %v", q, fast, i == 0)
		}
		got := rankedRows(t, db, src, args...)
		want := rankedRows(t, db, `(SELECT id, score FROM `+eng.TextMatches(store.FactText)+` m ORDER BY score DESC, id LIMIT ?)`, renderFTS5(q), 30)
		if len(got) != len(want) {
			t.Fatalf("%q: %d facts, want %d", q, len(got), len(want))
		}
		for i := range want {
			if got[i].id != want[i].id {
				t.Fatalf("%q rank %d: fact %d, want %d", q, i+1, got[i].id, want[i].id)
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

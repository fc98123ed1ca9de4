package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The best k facts for a query of several words, without scoring every
// fact that holds one of them.
//
// FTS5's bm25() costs about a microsecond for every matching row at a
// million facts, and a query of a few words is an OR of them: a common
// word matches a fifth of the store, and scoring those rows is most of a
// search. A fact's BM25 score is a sum over the query's words, and a word
// many facts hold adds little: its idf, log((n − df + ½)/(df + ½)), is a
// fraction of a rare word's. So the words are taken rarest first (document
// counts from facts_fts_vocab), and the facts holding a rare word are
// ranked by their score for the whole query; the facts holding only common
// words are left out once the k-th best of the others outscores a fact
// that holds every common word as often as facts holding it usually do
// (rounded up) and is half the average length. This is MaxScore (Turtle
// and Flood, 1995) over FTS5's index, with that short fact's score as the
// bound in place of the worst case (a fact of one word that repeats a
// common word), which would keep the common words' facts in nearly every
// query: what it can miss is a fact shorter than half the average that
// holds only common words. The scores are FTS5's own bm25() for the whole
// query, computed for fewer rows. When the rare words do not settle the
// best k this way, or the query's words hold too few facts for the saving
// to matter, the whole query is ranked as before.

// bm25() constants: a word held tf times in a fact of len words adds
// idf·tf·(k1+1)/(tf + k1·(1 − b + b·len/avglen)) to its score.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// topTextTries is how many sets of rare words are tried before the whole
// query is ranked: each try ranks more facts than the one before.
const topTextTries = 2

// topTextMinRows is the least number of facts (counted once per word that
// they hold) the query's words must hold for ranking the rare words apart
// to be tried: below it, FTS5 scores every match in a few milliseconds,
// and finding the words' counts would cost more than it saves.
const topTextMinRows = 10_000

// topWord is a query word with its stem and its counts.
type topWord struct {
	word, stem string
	// df counts the facts holding the word, cnt its occurrences in them.
	df, cnt int64
	// bound is the score a short fact holding only this word gets from it
	// (see topFactText).
	bound float64
}

// topFactText finds the k best facts for q, as JSON [[id, score], …] best
// first, with the scores FTS5's bm25() gives them for the whole query. ok
// is false when the rare words cannot settle the best k, the query's
// words hold fewer than minRows facts, or the query is not made of plain
// words: the caller ranks the whole query instead.
func topFactText(ctx context.Context, db Querier, q TextQuery, k int, minRows int64) (top string, ok bool, err error) {
	words, ok := plainWords(q)
	if !ok || len(words) < 2 {
		return "", false, nil
	}
	n, err := factTextStats(ctx, db, words)
	if err != nil || n <= 0 {
		return "", false, err
	}
	// A word no fact holds adds nothing and is left out.
	words = slices.DeleteFunc(words, func(w topWord) bool { return w.df == 0 })
	var total int64
	for _, w := range words {
		total += w.df
	}
	if len(words) < 2 || total < minRows {
		return "", false, nil
	}
	slices.SortFunc(words, func(a, b topWord) int {
		return cmp.Or(cmp.Compare(a.df, b.df), cmp.Compare(a.stem, b.stem))
	})
	for i, w := range words {
		tf := math.Ceil(float64(w.cnt) / float64(w.df))
		words[i].bound = bm25IDF(n, w.df) * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B/2))
	}
	// rest[j] is what the short fact holding every one of words[j:] and
	// none of words[:j] scores.
	rest := make([]float64, len(words)+1)
	for j := len(words) - 1; j >= 0; j-- {
		rest[j] = rest[j+1] + words[j].bound
	}
	// The rare words must hold at least k facts between them to fill the
	// best k. Ranking them apart scores their facts twice (once with the
	// common words, once without); it is tried while that stays under half
	// of what ranking the whole query scores.
	j, held := 0, int64(0)
	for j < len(words) && held < int64(k) {
		held += words[j].df
		j++
	}
	var spent int64
	for try := 0; try < topTextTries && j < len(words); try++ {
		var rare int64
		for _, w := range words[:j] {
			rare += w.df
		}
		if spent += 2 * rare; 2*spent > total {
			break
		}
		best, err := rankRare(ctx, db, words[:j], words[j:], k)
		if err != nil {
			return "", false, err
		}
		if len(best) < k {
			j++
			continue
		}
		theta := best[k-1].score
		if rest[j] < theta {
			return scoredJSON(best), true, nil
		}
		// More rare words lower what a fact holding none of them scores;
		// take as many as the k-th score needs.
		for j < len(words) && rest[j] >= theta {
			j++
		}
	}
	return "", false, nil
}

// scored is a fact with its score.
type scored struct {
	id    int64
	score float64
}

// rankRare ranks the facts holding any of the rare words by the whole
// query's bm25(): the facts that also hold a common word by the query
// "(rare) AND (common)", whose score counts every word, and the others by
// the rare words alone, which is their whole score. A fact holding a
// common word outscores its rare-words score, so the best k of both
// lists, each fact at its higher score, are the best k of the facts
// holding a rare word.
func rankRare(ctx context.Context, db Querier, rare, common []topWord, k int) ([]scored, error) {
	r, c := wordsFTS5(rare), wordsFTS5(common)
	best := `SELECT * FROM (SELECT id, score FROM (SELECT rowid AS id, -bm25(facts_fts) AS score FROM facts_fts
		WHERE facts_fts MATCH ?) ORDER BY score DESC, id LIMIT ?)`
	rows, err := db.QueryContext(ctx, best+` UNION ALL `+best,
		r, k, "("+r+") AND ("+c+")", k)
	if err != nil {
		return nil, fmt.Errorf("rank rare words: %w", err)
	}
	defer rows.Close()
	at := map[int64]int{}
	var out []scored
	for rows.Next() {
		var s scored
		if err := rows.Scan(&s.id, &s.score); err != nil {
			return nil, fmt.Errorf("rank rare words: %w", err)
		}
		if i, seen := at[s.id]; seen {
			out[i].score = max(out[i].score, s.score)
			continue
		}
		at[s.id] = len(out)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("rank rare words: %w", err)
	}
	slices.SortFunc(out, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.id, b.id))
	})
	return out[:min(len(out), k)], nil
}

// plainWords returns q's words with their stems when every element is one
// plain lowercase ASCII word, each with its own stem: a phrase, or a word
// FTS5 would fold or split, is ranked by FTS5 whole.
func plainWords(q TextQuery) ([]topWord, bool) {
	seen := map[string]bool{}
	out := make([]topWord, 0, len(q))
	for _, w := range q {
		if w == "" || strings.IndexFunc(w, func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') }) >= 0 {
			return nil, false
		}
		s := Stem(w)
		if seen[s] {
			return nil, false
		}
		seen[s] = true
		out = append(out, topWord{word: w, stem: s})
	}
	return out, true
}

// factTextStats sets each word's document count from facts_fts_vocab and
// returns how many facts the index holds (its averages record, which
// bm25() reads too).
func factTextStats(ctx context.Context, db Querier, words []topWord) (n int64, err error) {
	in := make([]string, len(words))
	args := make([]any, len(words))
	for i, w := range words {
		in[i], args[i] = "?", w.stem
	}
	rows, err := db.QueryContext(ctx, `SELECT term, doc, cnt FROM facts_fts_vocab WHERE term IN (`+strings.Join(in, ",")+`)
		UNION ALL SELECT NULL, block, 0 FROM facts_fts_data WHERE id = 1`, args...)
	if err != nil {
		return 0, fmt.Errorf("word counts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var term sql.NullString
		var v any
		var cnt int64
		if err := rows.Scan(&term, &v, &cnt); err != nil {
			return 0, fmt.Errorf("word counts: %w", err)
		}
		switch v := v.(type) {
		case int64:
			for i := range words {
				if words[i].stem == term.String {
					words[i].df, words[i].cnt = v, cnt
				}
			}
		case []byte:
			if !term.Valid {
				rowsN, _ := varint(v)
				n = int64(rowsN)
			}
		}
	}
	return n, rows.Err()
}

// varint reads one varint in SQLite's encoding (FTS5's averages record is
// a varint of rows, then one of words per column) and how many bytes it
// took; 0, 0 when b holds none.
func varint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 9; i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// bm25IDF is bm25()'s inverse document frequency for a word n facts of
// which df hold: log((n − df + ½)/(df + ½)), at least 1e-6.
func bm25IDF(n, df int64) float64 {
	idf := math.Log((float64(n-df) + 0.5) / (float64(df) + 0.5))
	if idf <= 0 {
		return 1e-6
	}
	return idf
}

// wordsFTS5 is the words as an FTS5 OR query.
func wordsFTS5(ws []topWord) string {
	q := make(TextQuery, len(ws))
	for i, w := range ws {
		q[i] = w.word
	}
	return renderFTS5(q)
}

// scoredJSON writes the facts as [[id, score], …].
func scoredJSON(top []scored) string {
	b := []byte{'['}
	for i, s := range top {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, s.id, 10)
		b = append(b, ',')
		b = strconv.AppendFloat(b, s.score, 'g', -1, 64)
		b = append(b, ']')
	}
	return string(append(b, ']'))
}

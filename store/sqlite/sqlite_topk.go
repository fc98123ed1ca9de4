package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store"
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
// query: what it can miss is a fact holding only common words that is
// shorter than half the average or repeats them more than facts usually
// do. The scores are FTS5's own bm25() for the whole
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

// topTextMinFacts and topTextMinRows are the least sizes at which ranking the rare words apart
// is tried: a store of fewer than 50,000 facts, whose matches FTS5 scores
// in a few milliseconds (about one at 10,000 facts), is ranked whole
// without reading the words' counts, which would cost more than they
// save; so is a query whose words hold fewer than 10,000 facts between
// them (a fact counted once per word it holds).
const (
	topTextMinFacts = 50_000
	topTextMinRows  = 10_000
)

// topTextMin is the least store (facts) and the least matches (rows) at
// which topFactText ranks the rare words apart. recount has FTS5's own
// bm25() score the matches, reading every word's matches once more per
// statement, in place of recollect_bm25: the same scores, the form the
// benchmark pairs with. scoreAll has recollect_bm25 score every match
// instead of passing over those that cannot reach the best k (its
// argument k): the same best k, the form the other benchmark pairs with.
type topTextMin struct {
	facts, rows int64
	recount     bool
	scoreAll    bool
	// inSQL has FTS5's statements rank the rare words even where a cache
	// holds their postings (rareBest): the same best k, the form the
	// benchmark of the postings pairs with.
	inSQL bool
}

// topWord is a query word or phrase with its stem and its counts.
type topWord struct {
	// word is the query's element; stem is a plain word's Porter stem,
	// the term the index holds, and a phrase's own text.
	word, stem string
	// phrase is an element that is not one plain lowercase ASCII word: a
	// phrase of several words, or a word FTS5 folds. The index's
	// vocabulary does not count it; its postings do.
	phrase bool
	// df counts the facts holding the word, cnt its occurrences in them.
	df, cnt int64
	// bound is the score a short fact holding only this word gets from it
	// (see topFactText).
	bound float64
}

// topFactText finds the k best facts for q, as JSON [[id, score], …] best
// first, with the scores FTS5's bm25() gives them for the whole query. ok
// is false when the rare words cannot settle the best k (a query of one
// word or phrase among them), the store or the query's matches are
// smaller than least, or the query's words cannot be counted
// (queryWords): the caller ranks the whole query instead, and counts,
// when the words' counts were read, is recollect_bm25's argument for q.
// cache, when not nil, keeps the counts from one search to the next while
// the store does not change.
func topFactText(ctx context.Context, db store.Querier, cache *countCache, q store.TextQuery, k int, least topTextMin) (top string, ok bool, counts string, err error) {
	words, ok := queryWords(q)
	if !ok {
		return "", false, "", nil
	}
	cv := cache.view(db)
	// The index's own count of facts first: in a small store the words'
	// counts are not read.
	n, tokens, err := cv.factTotals(ctx, db)
	if err != nil || n <= 0 || n < least.facts {
		return "", false, "", err
	}
	if err := cv.wordCounts(ctx, db, words, n); err != nil {
		if errors.Is(err, errWidePosting) {
			return "", false, "", nil
		}
		return "", false, "", err
	}
	// words are q's words in q's order, each one phrase of q's FTS5 query.
	counts = countList(words)
	// A word no fact holds adds nothing and is left out.
	words = slices.DeleteFunc(words, func(w topWord) bool { return w.df == 0 })
	var total int64
	for _, w := range words {
		total += w.df
	}
	if len(words) < 2 || total < least.rows {
		return "", false, counts, nil
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
	// best k. Ranking them apart is tried while the facts the tries score
	// stay under half of those the whole query would.
	j, held := 0, int64(0)
	for j < len(words) && held < int64(k) {
		held += words[j].df
		j++
	}
	var spent float64
	for try := 0; try < topTextTries && j < len(words); try++ {
		if spent += tryCost(words, j, n); 2*spent > float64(total) {
			break
		}
		// The facts holding a rare word and a common one first: their k-th
		// score is a floor of the k-th over all the rare words' facts, so
		// when it cannot beat the common words, the rest is not ranked.
		both, err := cv.rareBest(ctx, db, words, j, true, n, tokens, k, least)
		if err != nil {
			return "", false, "", err
		}
		if len(both) < k || rest[j] < both[k-1].score {
			// The facts holding only rare words score by the rare words
			// alone; a fact holding a common word too scores more in both.
			alone, err := cv.rareBest(ctx, db, words, j, false, n, tokens, k, least)
			if err != nil {
				return "", false, "", err
			}
			best := mergeBest(both, alone, k)
			if len(best) == k && rest[j] < best[k-1].score {
				return scoredJSON(best), true, counts, nil
			}
			if len(best) < k {
				j++
				continue
			}
			both = best
		}
		// More rare words lower what a fact holding none of them scores;
		// take as many as the k-th score needs.
		for theta := both[k-1].score; j < len(words) && rest[j] >= theta; {
			j++
		}
	}
	return "", false, counts, nil
}

// tryCost estimates how many facts ranking words[:j] apart scores: each
// fact holding one of them, and again those of them that also hold one of
// words[j:] (counted as if the words fell on facts independently), of n.
func tryCost(words []topWord, j int, n int64) float64 {
	var rare float64
	for _, w := range words[:j] {
		rare += float64(w.df)
	}
	none := 1.0
	for _, w := range words[j:] {
		none *= 1 - float64(w.df)/float64(n)
	}
	return rare * (2 - none)
}

// scored is a fact with its score.
type scored struct {
	id    int64
	score float64
}

// bestMatches is FTS5's best k for match, best first, ties by id, with
// bm25()'s scores. words are match's words in the order match names them,
// with their counts: recollect_bm25 takes the counts from them instead of
// reading every word's matches again (unless least.recount), and k, to
// pass over the matches that cannot reach the best k (unless
// least.scoreAll).
func bestMatches(ctx context.Context, db store.Querier, match string, words []topWord, k int, least topTextMin) ([]scored, error) {
	rank, args := bm25Rank(countList(words), k, least)
	rows, err := db.QueryContext(ctx, `SELECT id, score FROM (SELECT rowid AS id, `+rank+` AS score FROM facts_fts
		WHERE facts_fts MATCH ?) WHERE score IS NOT NULL ORDER BY score DESC, id LIMIT ?`, append(args, match, k)...)
	if err != nil {
		return nil, fmt.Errorf("rank rare words: %w", err)
	}
	defer rows.Close()
	var out []scored
	for rows.Next() {
		var s scored
		if err := rows.Scan(&s.id, &s.score); err != nil {
			return nil, fmt.Errorf("rank rare words: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// bm25Rank is the score of a full-text match of the best k, as a
// column of a statement over facts_fts, with its arguments: FTS5's
// bm25() when least.recount, else recollect_bm25 with the phrases' counts,
// and k unless least.scoreAll. Either way the best k are the same rows
// with the same scores; recollect_bm25 given k leaves the other rows
// NULL.
func bm25Rank(counts string, k int, least topTextMin) (string, []any) {
	switch {
	case least.recount:
		return `-bm25(facts_fts)`, nil
	case least.scoreAll:
		return `-recollect_bm25(facts_fts, ?)`, []any{counts}
	}
	return `-recollect_bm25(facts_fts, ?, ?)`, []any{counts, k}
}

// countList is the words' counts of facts as recollect_bm25 takes them:
// decimal numbers separated by spaces, in the words' order.
func countList(words []topWord) string {
	b := make([]byte, 0, 8*len(words))
	for i, w := range words {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, w.df, 10)
	}
	return string(b)
}

// mergeBest is the best k of the facts holding a rare word, from both
// (the best k of those also holding a common word, scored for every
// word) and alone (the best k of all of them, scored for the rare words
// only: the whole score of a fact holding no common word, and less than
// the whole score of one that holds one). Each fact takes its higher
// score. A fact holding a common word that is not among both's k scores
// less than each of them, so it never displaces one.
func mergeBest(both, alone []scored, k int) []scored {
	at := map[int64]int{}
	out := make([]scored, 0, len(both)+len(alone))
	for _, s := range append(both[:len(both):len(both)], alone...) {
		if i, seen := at[s.id]; seen {
			out[i].score = max(out[i].score, s.score)
			continue
		}
		at[s.id] = len(out)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.id, b.id))
	})
	return out[:min(len(out), k)]
}

// queryWords returns q's words with their stems: a plain lowercase
// ASCII word is counted by its stem, the term the index holds, and any
// other element (a phrase, a word FTS5 folds or splits) as a phrase,
// counted from its postings. ok is false when an element holds no letter
// or digit (FTS5 would find no word in it) or two elements count the same
// term: the whole query is ranked by FTS5.
func queryWords(q store.TextQuery) ([]topWord, bool) {
	seen := map[string]bool{}
	out := make([]topWord, 0, len(q))
	for _, w := range q {
		if w == "" {
			return nil, false
		}
		tw := topWord{word: w, stem: w}
		if strings.IndexFunc(w, func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') }) >= 0 {
			if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) < 0 {
				return nil, false
			}
			tw.phrase = true
		} else {
			tw.stem = text.Stem(w)
		}
		if seen[tw.stem] {
			return nil, false
		}
		seen[tw.stem] = true
		out = append(out, tw)
	}
	return out, true
}

// factTextTotals reads how many facts the facts' index holds and how many
// tokens they hold between them from its averages record, as bm25() does
// (a varint of rows, then one of tokens per column).
func factTextTotals(ctx context.Context, db store.Querier) (rows, tokens int64, err error) {
	var rec []byte
	err = db.QueryRowContext(ctx, `SELECT block FROM facts_fts_data WHERE id = 1`).Scan(&rec)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("count indexed facts: %w", err)
	}
	n, at := varint(rec)
	for at > 0 && at < len(rec) {
		t, m := varint(rec[at:])
		if m == 0 {
			break
		}
		tokens += int64(t)
		at += m
	}
	return int64(n), tokens, nil
}

// wordCounts sets each plain word's counts from facts_fts_vocab (0 for
// a word the index does not hold), and each phrase's from its postings
// (post): the facts holding it, and its instances in them, as bm25()
// counts them (xQueryPhrase).
func wordCounts(ctx context.Context, db store.Querier, words []topWord, post func(string) (*postingList, error)) error {
	in := make([]string, 0, len(words))
	args := make([]any, 0, len(words))
	for i, w := range words {
		if !w.phrase {
			in, args = append(in, "?"), append(args, w.stem)
			continue
		}
		p, err := post(w.word)
		if err != nil {
			return err
		}
		words[i].df, words[i].cnt = int64(len(p.ids)), 0
		for _, tf := range p.tfs {
			words[i].cnt += int64(tf)
		}
	}
	if len(in) == 0 {
		return nil
	}
	rows, err := db.QueryContext(ctx, `SELECT term, doc, cnt FROM facts_fts_vocab WHERE term IN (`+strings.Join(in, ",")+`)`, args...)
	if err != nil {
		return fmt.Errorf("word counts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var term string
		var df, cnt int64
		if err := rows.Scan(&term, &df, &cnt); err != nil {
			return fmt.Errorf("word counts: %w", err)
		}
		for i := range words {
			if words[i].stem == term {
				words[i].df, words[i].cnt = df, cnt
			}
		}
	}
	return rows.Err()
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
	q := make(store.TextQuery, len(ws))
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

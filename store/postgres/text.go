package postgres

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/recollect/recollect/store"
)

// Text indexes, in the order of store's TextIndex constants: the table
// whose content_tsv column is indexed, the column that keys its rows and
// the text search configuration its words were indexed with (bench_plain,
// store.PlainFactText, is built by IndexPlainFacts without stemming).
//
// rows is the table's row count, the N of the score's inverse document
// frequency: for facts the sum of the counts the schema keeps by status
// (fact_counts, v20), where counting the rows cost a sixth of a search at
// 10k facts; the other tables are counted.
var textTables = [...]struct{ table, key, config, rows string }{
	{"facts", "id", "recollect", `SELECT CAST(COALESCE(sum(c.n), 0) AS float8) AS n FROM fact_counts c`},
	{"session_facts", "id", "recollect", `SELECT CAST(count(*) AS float8) AS n FROM session_facts`},
	{"session_events", "seq", "recollect", `SELECT CAST(count(*) AS float8) AS n FROM session_events`},
	{"bench_plain", "id", "simple", `SELECT CAST(count(*) AS float8) AS n FROM bench_plain`},
}

// textMatches is a row source (id, score) of the rows of textTables[ix]
// matching its one argument, a JSON array of tsquery terms made by
// renderTerms. A row matches when it holds any term.
//
// The score is BM25-shaped, as FTS5's bm25() is, so that the keyword arm
// orders hits as it does on SQLite: per matching term, its inverse
// document frequency (a rare word counts for more than a common one) times
// ts_rank's term weight, which grows with the term's occurrences and
// saturates, normalised by the row's length (flag 1: divided by 1 + log
// of the length). ts_rank alone has no IDF: every term would count the
// same, and a hit on "the" would rank with a hit on "Kubernetes".
//
// One pass over the GIN index per term finds the term's rows and ranks
// each once; the term's document frequency is the count of those same rows
// (a window over them), not a second count on the index, which cost as
// much again as the plain ts_rank query. The terms, in order, drive the
// join, so its rows come term by term and the window sorts nothing. The
// OFFSET 0 fences keep the planner from pulling the tsquery, made once per
// term, or ts_rank up into the aggregate, where it ran again for every
// matching row; the arithmetic is float8 (numeric's ln per row cost more
// than the ranking).
func textMatches(ix int) string {
	t := textTables[ix]
	return `(SELECT j.id, sum(ln(1 + (n.n - j.df + 0.5) / (j.df + 0.5)) * j.r) AS score
	FROM (SELECT j.id, j.r, CAST(count(*) OVER (PARTITION BY j.i) AS float8) AS df
		FROM (SELECT d.` + t.key + ` AS id, q.i, ts_rank(d.content_tsv, q.q, 1) AS r
			FROM (SELECT x.i, x.q FROM (SELECT i, to_tsquery('` + t.config + `', e) AS q
					FROM jsonb_array_elements_text(CAST(? AS jsonb)) WITH ORDINALITY AS x(e, i)) x
				WHERE numnode(x.q) > 0 ORDER BY x.i OFFSET 0) q
			JOIN ` + t.table + ` d ON d.content_tsv @@ q.q ORDER BY q.i OFFSET 0) j) j,
		(` + t.rows + `) n
	GROUP BY j.id)`
}

// topFactText is topFactTextWhole's rows, the same facts with the same
// scores in the same order, found by ranking the matches of the query's
// rarer terms first and the whole of the matches only when those cannot
// settle the best k (MaxScore's cut). Its arguments are the same.
//
// The bound: in ts_rank (flag 1) a one-lexeme query's rank over a fact
// of L words holding the lexeme t times is 0.1·H(t)/(π²/6)/log2(L+1),
// with H(t) = Σ 1/j² for j up to t (0.1 is the weight of every position
// of a to_tsvector, class D). As t ≤ L and H(L)/log2(L+1) falls as L
// grows, it is at most 0.1·H(s)/(π²/6)/log2(s+1) for a fact holding s
// distinct lexemes of the query (L ≥ s). So a fact that holds only
// lexemes of a set P scores less than B(P): the most over s of the s
// heaviest lexemes' weights (the weights of the terms of one lexeme
// summed) times that, or 0 if more (a lexeme of negative weight, more
// common than the facts are many, only lowers a score).
// A term of more than one node (a phrase) is never in P.
//
// The lexemes are ordered lightest first (the commonest words). The first
// pass ranks the facts holding a term outside the longest prefix P1 with
// B(P1) under what one fact holding only the rarest word could score. Its k-th score θ is at most
// the whole ranking's k-th, so a fact holding only lexemes of a prefix P2
// with B(P2) < θ (a margin allowing for ts_rank's float4) cannot be in the
// best k. When P2 holds P1 the first pass's best k are the answer;
// otherwise a second pass ranks the facts holding a term outside P2 that
// the first did not rank (every other match when the first pass found
// fewer than k), and the answer is the best k of both passes. Each pass
// scores a fact with the whole query, by topFactTextWhole's expression.
func topFactText(m int, carry string) string {
	t := textTables[store.FactText]
	score, terms := scoreTerms(m)
	rank := func(cond string) string {
		return `SELECT f.id, ` + strings.Join(score, `
		+ `) + ` AS score` + carry + `
	FROM t CROSS JOIN ` + t.table + ` f WHERE ` + cond + ` ORDER BY score DESC, f.id LIMIT (SELECT k FROM kk)`
	}
	// outside is the query's terms outside the lexemes numbered up to p, ORed.
	outside := func(p string) string {
		return `(SELECT to_tsquery('` + t.config + `', string_agg('(' || a.e || ')', ' | ' ORDER BY a.i)) FROM aw a LEFT JOIN g ON g.qt = a.qt AND a.nn = 1
		WHERE g.g IS NULL OR g.g > ` + p + `)`
	}
	return `(WITH a AS MATERIALIZED (SELECT x.i, x.e, x.q, numnode(x.q) AS nn, CAST(x.q AS text) AS qt,
			CASE WHEN numnode(x.q) = 1 AND length(x.v) = 1 AND x.v @@ x.q
				THEN (SELECT CAST(COALESCE(sum(w.n), 0) AS float8) FROM fact_words w WHERE w.word = (tsvector_to_array(x.v))[1])
				ELSE (SELECT CAST(count(*) AS float8) FROM ` + t.table + ` d WHERE d.content_tsv @@ x.q) END AS df
		FROM (SELECT e, i, to_tsquery('` + t.config + `', e) AS q, to_tsvector('` + t.config + `', e) AS v
			FROM jsonb_array_elements_text(CAST(? AS jsonb)) WITH ORDINALITY AS x(e, i)) x
		WHERE numnode(x.q) > 0),
	kk AS MATERIALIZED (SELECT CAST(? AS bigint) AS k),
	aw AS MATERIALIZED (SELECT a.i, a.e, a.q, a.nn, a.qt, ln(1 + (n.n - a.df + 0.5) / (a.df + 0.5)) AS w FROM a, (` + t.rows + `) n),
	t AS MATERIALIZED (SELECT ` + strings.Join(terms, ", ") + ` FROM (SELECT array_agg(a.q ORDER BY a.i) AS qs, array_agg(a.w ORDER BY a.i) AS ws FROM aw a) u),
	g AS MATERIALIZED (SELECT row_number() OVER (ORDER BY x.gw, x.qt) AS g, x.qt, x.gw,
			sum(x.gw) OVER (ORDER BY x.gw, x.qt ROWS UNBOUNDED PRECEDING) AS c
		FROM (SELECT qt, sum(w) AS gw FROM aw WHERE nn = 1 GROUP BY qt) x),
	gb AS MATERIALIZED (SELECT p.g, GREATEST(max((p.c - q.c + q.gw) * 0.1 / 1.64493406685
			* (SELECT CAST(sum(1.0 / (j * j)) AS float8) FROM generate_series(1, p.g - q.g + 1) j) / (ln(p.g - q.g + 2) / ln(2))), 0) AS b
		FROM g p JOIN g q ON q.g <= p.g GROUP BY p.g),
	p1 AS MATERIALIZED (SELECT COALESCE((SELECT min(gb.g) FROM gb WHERE gb.b >= 0.1 / 1.64493406685 * (SELECT max(g.gw) FROM g)), 1) - 1 AS p),
	r1 AS MATERIALIZED (SELECT ` + outside(`(SELECT p FROM p1)`) + ` AS r),
	s1 AS MATERIALIZED (` + rank(`f.content_tsv @@ (SELECT r FROM r1)`) + `),
	th AS MATERIALIZED (SELECT CASE WHEN count(*) = (SELECT k FROM kk) THEN min(score) END AS th FROM s1),
	p2 AS MATERIALIZED (SELECT COALESCE((SELECT min(gb.g) FROM gb, th WHERE th.th IS NULL OR gb.b * (1 + 1e-6) >= th.th),
		(SELECT count(*) FROM g) + 1) - 1 AS p),
	ok AS MATERIALIZED (SELECT (SELECT p FROM p2) >= (SELECT p FROM p1) AS ok),
	s2 AS MATERIALIZED (` + rank(`NOT (SELECT ok FROM ok) AND f.content_tsv @@ `+outside(`(SELECT p FROM p2)`)+` AND NOT f.content_tsv @@ (SELECT r FROM r1)`) + `)
	SELECT * FROM (SELECT * FROM s1 UNION ALL SELECT * FROM s2) s ORDER BY score DESC, id LIMIT (SELECT k FROM kk))`
}

// scoreTerms is the parts of a fact's score over a query of up to m
// terms: each term's weighted ts_rank where the fact holds it (a sum's
// terms), and the select list naming each term's query and weight (qK,
// wK) from the arrays u.qs and u.ws.
func scoreTerms(m int) (score, terms []string) {
	score = make([]string, 0, max(m, 1))
	terms = make([]string, 0, m)
	for k := 1; k <= m; k++ {
		score = append(score, fmt.Sprintf(`CASE WHEN f.content_tsv @@ t.q%d THEN t.w%d * ts_rank(f.content_tsv, t.q%d, 1) ELSE 0 END`, k, k, k))
		terms = append(terms, fmt.Sprintf(`u.qs[%d] AS q%d, u.ws[%d] AS w%d`, k, k, k, k))
	}
	if m == 0 {
		score = append(score, "0")
	}
	return score, terms
}

// topFactTextWhole is the facts' best k by the score textMatches gives, for a
// query of up to m terms, found in one pass over the terms' OR: the row
// source (id, score), best first, of TopText. Its arguments are
// textMatches' (the JSON terms), then k.
//
// Each term's document frequency is read before the pass instead of
// counted over its matches: a term of one word from fact_words (v22), a
// sum over a row or two by index, when the word's one lexeme is the
// term's one node; any other term (a phrase, or a word the configuration
// splits in several, each a node of its tsquery) is counted on the index
// as it matches. With the frequencies known each matching
// fact is scored where it is read, once, by the terms it holds (the @@
// test before ts_rank skips a term the fact does not hold), so there is no
// row per fact and term, no window counting each term's rows and no
// grouping by fact: at 10k facts these cost as much as the raw ts_rank
// query did. The score is textMatches' to the last bit but for the order
// of the terms' sum. A term the configuration drops (a stop word) has no
// entry in the arrays, so its place in the score reads NULL and adds 0.
//
// carry is more of the select list (", f.col …"): columns of the facts'
// rows each row carries along (topFactsCarrying). topFactText gives
// the same rows reading fewer of the matches.
func topFactTextWhole(m int, carry string) string {
	t := textTables[store.FactText]
	score, terms := scoreTerms(m)
	return `(WITH a AS MATERIALIZED (SELECT x.i, x.e, x.q,
			CASE WHEN numnode(x.q) = 1 AND length(x.v) = 1 AND x.v @@ x.q
				THEN (SELECT CAST(COALESCE(sum(w.n), 0) AS float8) FROM fact_words w WHERE w.word = (tsvector_to_array(x.v))[1])
				ELSE (SELECT CAST(count(*) AS float8) FROM ` + t.table + ` d WHERE d.content_tsv @@ x.q) END AS df
		FROM (SELECT e, i, to_tsquery('` + t.config + `', e) AS q, to_tsvector('` + t.config + `', e) AS v
			FROM jsonb_array_elements_text(CAST(? AS jsonb)) WITH ORDINALITY AS x(e, i)) x
		WHERE numnode(x.q) > 0),
	t AS MATERIALIZED (SELECT ` + strings.Join(append(terms, "u.q"), ", ") + ` FROM (SELECT array_agg(a.q ORDER BY a.i) AS qs,
			array_agg(ln(1 + (n.n - a.df + 0.5) / (a.df + 0.5)) ORDER BY a.i) AS ws,
			to_tsquery('` + t.config + `', string_agg('(' || a.e || ')', ' | ' ORDER BY a.i)) AS q
		FROM a, (` + t.rows + `) n) u)
	SELECT f.id, ` + strings.Join(score, `
		+ `) + ` AS score` + carry + `
	FROM t CROSS JOIN ` + t.table + ` f WHERE f.content_tsv @@ t.q ORDER BY score DESC, f.id LIMIT ?)`
}

// textHits is a row source (id) of the rows of textTables[ix] matching
// its one argument (as textMatches reads it): the terms ORed into one
// tsquery, so the GIN index finds the rows and nothing is scored.
func textHits(ix int) string {
	t := textTables[ix]
	return `(SELECT d.` + t.key + ` AS id FROM ` + t.table + ` d
	WHERE d.content_tsv @@ to_tsquery('` + t.config + `', (SELECT string_agg('(' || e || ')', ' | ') FROM jsonb_array_elements_text(CAST(? AS jsonb)) e)))`
}

// renderTerms writes a text query as textMatches reads it: a JSON array
// with one tsquery per word or phrase, each word quoted so that nothing in
// it is read as an operator (a phrase's words joined by <->). The words
// are stemmed by the store's text search configuration, as the index is.
// It returns "" when q holds no word.
func renderTerms(q []string) string {
	var terms []string
	for _, term := range q {
		var words []string
		for _, w := range strings.Fields(term) {
			w = strings.ReplaceAll(strings.ReplaceAll(w, `\`, `\\`), `'`, `''`)
			words = append(words, `'`+w+`'`)
		}
		if len(words) > 0 {
			terms = append(terms, strings.Join(words, " <-> "))
		}
	}
	if len(terms) == 0 {
		return ""
	}
	b, _ := json.Marshal(terms)
	return string(b)
}

// rawTextTop is PostgreSQL's own plain best-k full-text query over
// textTables[ix] (one tsquery argument, OR of the terms; then k): the
// baseline search is benchmarked against.
func rawTextTop(ix int) string {
	t := textTables[ix]
	return `SELECT ` + t.key + ` FROM ` + t.table + `, to_tsquery('recollect', ?) q
	WHERE content_tsv @@ q ORDER BY ts_rank(content_tsv, q) DESC LIMIT ?`
}

// renderTSQuery writes q as one tsquery, its terms ORed.
func renderTSQuery(q []string) string {
	var terms []string
	if err := json.Unmarshal([]byte(renderTerms(q)), &terms); err != nil {
		return ""
	}
	for i, t := range terms {
		terms[i] = "(" + t + ")"
	}
	return strings.Join(terms, " | ")
}

package postgres

import (
	"encoding/json"
	"strings"
)

// Text indexes, in the order of store's TextIndex constants: the table
// whose content_tsv column is indexed, the column that keys its rows and
// the text search configuration its words were indexed with (bench_plain,
// store.PlainFactText, is built by IndexPlainFacts without stemming).
var textTables = [...]struct{ table, key, config string }{
	{"facts", "id", "recollect"},
	{"session_facts", "id", "recollect"},
	{"session_events", "seq", "recollect"},
	{"bench_plain", "id", "simple"},
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
// same, and a hit on "the" would rank with a hit on "Kubernetes". Document
// frequencies are counted on the GIN index, one term at a time, once per
// query: OFFSET 0 keeps the planner from pulling the per-term subquery up
// into the aggregate, where it ran the count again for every matching row
// (search at 10k facts took 1.2 s).
func textMatches(ix int) string {
	t := textTables[ix]
	return `(SELECT d.` + t.key + ` AS id, sum(q.idf * ts_rank(d.content_tsv, q.q, 1)) AS score
	FROM (SELECT q.q, ln(1 + (n.n - q.df + 0.5) / (q.df + 0.5)) AS idf
		FROM (SELECT q, (SELECT count(*) FROM ` + t.table + ` WHERE content_tsv @@ q) AS df
			FROM (SELECT to_tsquery('` + t.config + `', e) AS q FROM jsonb_array_elements_text(CAST(? AS jsonb)) e) q0
			WHERE numnode(q) > 0 OFFSET 0) q,
		(SELECT count(*) AS n FROM ` + t.table + `) n OFFSET 0) q
	JOIN ` + t.table + ` d ON d.content_tsv @@ q.q
	GROUP BY d.` + t.key + `)`
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
			w = strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(w)
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

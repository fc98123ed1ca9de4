// Package text owns how recollect cuts and reads words, for both halves of
// the full-text search: the write half, what an index holds for a row
// (IndexText, which both engines' indexes apply through the SQL function
// store.IndexTextFunc, and Stem, the FTS5 porter stemmer in Go), and the
// read half, what a search text asks for (Analyze, Sanitize, Terms,
// Words, Variant, IsStopword, the CJK pieces of QueryWords). It also
// holds how integrate cuts a statement into words (StatementWordSpans)
// and the counted nouns every report prints (Plural).
//
// It imports nothing of recollect, so that store, which indexes with it,
// may import it while it lives beside the search that reads with it.
package text

package graph

import (
	"strings"
	"unicode"
)

// Sanitize turns any user text into a safe FTS5 query: each word becomes a
// quoted term joined by OR, so quotes, operators (AND, NEAR, *) and
// punctuation are matched as words, never parsed. It returns "" when the
// text holds no searchable word.
func Sanitize(text string) string {
	terms := Terms(text)
	for i, t := range terms {
		terms[i] = `"` + t + `"`
	}
	return strings.Join(terms, " OR ")
}

// Terms splits text into lowercase word tokens (letters and digits), in
// order, without repeats.
func Terms(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

package store

import "strings"

// InList renders xs as the placeholders of an SQL IN list ("?,?,?") with
// the arguments that fill them, in order, so a value is never spliced into
// statement text. Every package that asks "is it one of these" builds its
// list here: `WHERE id IN (`+in+`)`. An empty xs gives "" and no
// arguments, which SQLite reads as an empty list that matches nothing.
func InList[T any](xs []T) (string, []any) {
	args := make([]any, len(xs))
	for i, x := range xs {
		args[i] = x
	}
	return strings.TrimSuffix(strings.Repeat("?,", len(xs)), ","), args
}

//go:build !cgo

package sqlite

import "errors"

// errNoCgo is why a binary built without cgo cannot open a store: SQLite
// is C, compiled in by the driver only when cgo is on.
var errNoCgo = errors.New("this binary was built without cgo (CGO_ENABLED=0), and SQLite needs it; build it again with cgo and a C compiler")

// pin is the connection that keeps the WAL while a handle is open; a
// binary without cgo has none (see sqlitelib.go).
type pin struct{}

func openPin(string, int) (*pin, error) { return nil, errNoCgo }

func (*pin) close() error { return nil }

func (*pin) dataVersion() (int64, error) { return 0, errNoCgo }

func (*pin) knowledgeVersion() (int64, error) { return 0, errNoCgo }

// allocationsCounted reports whether SQLite keeps allocation statistics;
// without cgo there is no SQLite.
func allocationsCounted() bool { return false }

// busy is false: without cgo no SQLite connection opens.
func busy(error) bool { return false }

// exactIDF is bm25()'s inverse document frequency (bm25IDF): without cgo
// no store opens, so no score computed in C is there to match.
func exactIDF(rows, hits int64) float64 { return bm25IDF(rows, hits) }

//go:build !cgo

package store

// allocationsCounted reports whether SQLite keeps allocation statistics;
// without cgo there is no SQLite.
func allocationsCounted() bool { return false }

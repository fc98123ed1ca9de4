//go:build !sqlite_fts5

package sqlite

// BuiltWithFTS5 is false: the binary was built without the sqlite_fts5
// tag, and its SQLite has no FTS5 (see fts_on.go).
const BuiltWithFTS5 = false

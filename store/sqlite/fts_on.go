//go:build sqlite_fts5

package sqlite

// BuiltWithFTS5 reports the sqlite_fts5 build tag, which compiles FTS5
// into the driver's SQLite, so a binary can refuse to run in one clear
// line instead of failing later with "no such module".
const BuiltWithFTS5 = true

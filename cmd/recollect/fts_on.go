//go:build sqlite_fts5

package main

// builtWithFTS5 reports the sqlite_fts5 build tag, so the binary can refuse
// to run in one clear line instead of failing later with "no such module".
const builtWithFTS5 = true

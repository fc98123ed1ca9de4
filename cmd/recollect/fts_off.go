//go:build !sqlite_fts5

package main

const builtWithFTS5 = false

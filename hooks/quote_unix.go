//go:build !windows

package hooks

// commandArg quotes a path for a hook command: a POSIX shell runs it.
func commandArg(s string) string { return shellQuote(s) }

package config

// Nearest returns the name among known within edit distance 2 of name, or
// "" when none is that close: the "did you mean" of config keys, shared by
// the CLI for commands, flags and settings keys.
func Nearest(name string, known []string) string {
	return nearest(name, append([]string(nil), known...))
}

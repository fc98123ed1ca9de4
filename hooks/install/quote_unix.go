//go:build !windows

package install

// commandArg quotes a path for a hook command: a POSIX shell runs it.
func commandArg(s string) string { return shellQuote(s) }

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '~' || r == '+' || r == '=') {
			safe = false
			break
		}
	}
	if safe && s != "" {
		return s
	}
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
		} else {
			out += string(r)
		}
	}
	return out + "'"
}

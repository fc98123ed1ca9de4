package install

import "strings"

// windowsCommandArg spells a Windows path for a hook command that Claude
// Code or Cursor on Windows may run through cmd.exe or through Git for
// Windows' bash: forward slashes, which Windows accepts and neither shell
// treats as an escape, and double quotes, which both shells read as one
// word, when the path holds anything but letters, digits and . - _ : /.
func windowsCommandArg(s string) string {
	s = strings.ReplaceAll(s, `\`, "/")
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_:/", r)) {
			return `"` + s + `"`
		}
	}
	if s == "" {
		return `""`
	}
	return s
}

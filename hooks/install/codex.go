package install

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// CodexConfigFile is Codex CLI's configuration file in its home.
const CodexConfigFile = "config.toml"

// CodexConfig is Codex's config file: $CODEX_HOME/config.toml, else
// ~/.codex/config.toml.
func CodexConfig(getenv func(string) string) (string, error) {
	if h := getenv("CODEX_HOME"); h != "" {
		return filepath.Join(h, CodexConfigFile), nil
	}
	home, err := homeDir(getenv, "set CODEX_HOME")
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".codex", CodexConfigFile), nil
}

// CodexNotifyArgv is the program Codex's notify setting runs after each
// finished turn: recollect-notify threshold (or recollect notify
// threshold), with the data directory. Codex appends the turn's JSON as
// one more argument, which both read without waiting on stdin.
func CodexNotifyArgv(binary, dataDir string) []string {
	if filepath.Base(binary) == NotifyBinaryName {
		return []string{binary, "threshold", "--data", dataDir}
	}
	return []string{binary, "notify", "threshold", "--data", dataDir}
}

// CodexNotifyLine is the top-level config.toml line that sets notify to
// argv.
func CodexNotifyLine(argv []string) string { return "notify = " + tomlArray(argv) }

// CodexMCPTable is the config.toml table that adds recollect's MCP server
// to Codex.
func CodexMCPTable(binary, dataDir string) string {
	return "[mcp_servers.recollect]\ncommand = " + tomlString(binary) + "\nargs = " + tomlArray([]string{"mcp", "--data", dataDir})
}

// tomlArray writes ss as a one-line TOML array of strings.
func tomlArray(ss []string) string {
	parts := make([]string, len(ss))
	for i, a := range ss {
		parts[i] = tomlString(a)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// tomlString writes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Codex sets notify in Codex's config file at path to run
// `recollect-notify threshold` after each turn. Only the top-level notify
// line is added or replaced; every other byte of the file stays. Run twice
// it changes nothing; an earlier recollect notify is replaced; a notify
// that runs another program is refused unless force. The original is
// copied to a timestamped backup first.
func Codex(path, binary, dataDir string, force bool, now time.Time) (Result, error) {
	res := Result{Path: path}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, fmt.Errorf("read %s: %w", path, err)
	}
	merged, action, err := MergeCodexNotify(old, CodexNotifyArgv(binary, dataDir), force)
	if err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	res.Action = action
	if action == "unchanged" {
		return res, nil
	}
	return res, replaceFile(path, old, merged, now, &res)
}

// ErrOtherNotify means Codex's notify already runs another program.
var ErrOtherNotify = errors.New("notify already runs another program")

// MergeCodexNotify returns the config.toml bytes (empty for none) with
// the top-level notify set to argv, and the action: "installed",
// "updated" or "unchanged". A notify that runs something other than
// recollect is kept and ErrOtherNotify returned, unless force.
func MergeCodexNotify(old []byte, argv []string, force bool) ([]byte, string, error) {
	if !utf8.Valid(old) {
		return nil, "", errors.New("not valid UTF-8, so not a TOML file; fix it or add the notify line by hand")
	}
	line := CodexNotifyLine(argv)
	top, err := scanTopLevel(old)
	if err != nil {
		return nil, "", err
	}
	if top.notifyStart >= 0 {
		value := string(old[top.notifyStart:top.notifyEnd])
		current := tomlStrings(value[strings.Index(value, "=")+1:])
		switch {
		case strings.Join(current, "\x00") == strings.Join(argv, "\x00"):
			return old, "unchanged", nil
		case !force && !isRecollectNotify(current):
			return nil, "", fmt.Errorf("%w (%s); Codex runs one notify program, so keep yours, or pass --force to replace it with recollect's", ErrOtherNotify, strings.TrimSpace(value))
		}
		out := append([]byte{}, old[:top.notifyStart]...)
		out = append(out, line...)
		out = append(out, old[top.notifyEnd:]...)
		return out, "updated", nil
	}
	at := top.end
	var out []byte
	out = append(out, old[:at]...)
	if at > 0 && old[at-1] != '\n' {
		out = append(out, '\n')
	}
	out = append(out, line+"\n"...)
	if at == 0 && len(old) > 0 {
		out = append(out, '\n') // set apart from the comments or table below
	}
	out = append(out, old[at:]...)
	return out, "installed", nil
}

// isRecollectNotify reports whether a notify argv runs recollect's hook.
func isRecollectNotify(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	switch filepath.Base(argv[0]) {
	case NotifyBinaryName:
		return true
	case "recollect":
		return len(argv) > 1 && argv[1] == "notify"
	}
	return false
}

// topLevel is what scanTopLevel found: the byte range of the top-level
// notify key's line(s) (-1 when absent, the end excludes the newline),
// and where the top-level section's keys end (before the first table
// header and the comments and blank lines right above it).
type topLevel struct {
	notifyStart, notifyEnd int
	end                    int
}

// scanTopLevel walks the lines of a TOML file before its first table
// header, following strings and brackets so a multi-line array or string
// is one value.
func scanTopLevel(data []byte) (topLevel, error) {
	t := topLevel{notifyStart: -1, end: len(data)}
	lastKeyEnd := 0 // end of the last line that belongs to a top-level key
	pos := 0
	for pos < len(data) {
		lineEnd := bytes.IndexByte(data[pos:], '\n')
		if lineEnd < 0 {
			lineEnd = len(data)
		} else {
			lineEnd += pos
		}
		text := strings.TrimSpace(string(data[pos:lineEnd]))
		switch {
		case text == "" || strings.HasPrefix(text, "#"):
			pos = lineEnd + 1
			continue
		case strings.HasPrefix(text, "["):
			t.end = min(lastKeyEnd, len(data))
			return t, nil
		}
		// A key: its value may run over several lines.
		end, err := valueEnd(data, pos)
		if err != nil {
			return t, err
		}
		key := strings.TrimSpace(strings.SplitN(text, "=", 2)[0])
		if key == "notify" || key == `"notify"` || key == `'notify'` {
			if t.notifyStart >= 0 {
				return t, errors.New("notify is set twice, which TOML forbids; fix the file first")
			}
			t.notifyStart, t.notifyEnd = pos, end
		}
		if end < len(data) {
			end++ // the newline
		}
		lastKeyEnd, pos = end, end
	}
	t.end = len(data)
	return t, nil
}

// valueEnd returns where the key/value line starting at pos ends: the
// newline that closes it once every bracket, brace and string is closed
// (a comment ends at its line's end).
func valueEnd(data []byte, pos int) (int, error) {
	depth := 0
	for i := pos; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '\n' && depth == 0:
			return i, nil
		case c == '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			if depth == 0 || i >= len(data) {
				return i, nil
			}
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == '"' || c == '\'':
			delim := string(c)
			if bytes.HasPrefix(data[i:], []byte(strings.Repeat(delim, 3))) {
				delim = strings.Repeat(delim, 3)
			}
			j := i + len(delim)
			for {
				if j >= len(data) {
					return 0, errors.New("a string is never closed, so this is not valid TOML; fix it or add the notify line by hand")
				}
				if c == '"' && data[j] == '\\' {
					j += 2
					continue
				}
				if len(delim) == 1 && data[j] == '\n' {
					return 0, errors.New("a string runs past its line, so this is not valid TOML; fix it or add the notify line by hand")
				}
				if bytes.HasPrefix(data[j:], []byte(delim)) {
					break
				}
				j++
			}
			i = j + len(delim) - 1
		}
	}
	if depth != 0 {
		return 0, errors.New("a bracket is never closed, so this is not valid TOML; fix it or add the notify line by hand")
	}
	return len(data), nil
}

// tomlStrings reads the strings of a TOML array value such as
// ["a", 'b'], decoding the escapes recollect writes; anything else in it
// is ignored.
func tomlStrings(v string) []string {
	var out []string
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '#':
			for i < len(v) && v[i] != '\n' {
				i++
			}
		case '\'':
			j := strings.IndexByte(v[i+1:], '\'')
			if j < 0 {
				return out
			}
			out = append(out, v[i+1:i+1+j])
			i += j + 1
		case '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(v) && v[j] != '"'; j++ {
				if v[j] == '\\' && j+1 < len(v) {
					j++
					switch v[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					case 'u':
						if j+4 < len(v) {
							var r rune
							fmt.Sscanf(v[j+1:j+5], "%04X", &r)
							b.WriteRune(r)
							j += 4
						}
					default:
						b.WriteByte(v[j])
					}
					continue
				}
				b.WriteByte(v[j])
			}
			out = append(out, b.String())
			i = j
		}
	}
	return out
}

package main

import (
	"fmt"
	"io"
	"os"
)

// controlEscaper writes what the commands print with every control
// character that could drive a terminal — ESC and the other C0 controls
// but tab, newline and carriage return, DEL, and the C1 controls (U+0080 to
// U+009F) — written out as \u001b, \u009b …: a transcript line carrying
// an escape sequence is shown, never obeyed, whichever command prints it.
// The escape is JSON's own, so a JSON answer (an MCP server's, --json)
// means the same after it: its encoder has escaped the C0 controls
// already, and DEL or a C1 control inside a string reads as itself.
type controlEscaper struct {
	w io.Writer
}

// File is the writer's file, for callers that ask whether it is a
// terminal.
func (e controlEscaper) File() *os.File {
	f, _ := e.w.(*os.File)
	return f
}

func (e controlEscaper) Write(p []byte) (int, error) {
	clean := true
	for i := range p {
		if isControl(p, i) {
			clean = false
			break
		}
	}
	if clean {
		return e.w.Write(p)
	}
	out := make([]byte, 0, len(p)+16)
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == 0xc2 && isControl(p, i):
			out = fmt.Appendf(out, `\u%04x`, p[i+1])
			i++
		case isControl(p, i):
			out = fmt.Appendf(out, `\u%04x`, p[i])
		default:
			out = append(out, p[i])
		}
	}
	if _, err := e.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// isControl reports whether p[i] starts a control character to escape.
func isControl(p []byte, i int) bool {
	b := p[i]
	switch {
	case b == '\t' || b == '\n' || b == '\r':
		return false
	case b < 0x20 || b == 0x7f:
		return true
	case b == 0xc2 && i+1 < len(p) && p[i+1] >= 0x80 && p[i+1] <= 0x9f:
		return true
	}
	return false
}

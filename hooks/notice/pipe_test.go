package notice

import (
	"strings"
	"testing"
)

// TestPipeName: every spelling of one Windows data directory names one
// pipe, and different directories name different pipes.
func TestPipeName(t *testing.T) {
	a := PipeName(`C:\Users\me\.recollect`)
	for _, same := range []string{`c:\users\ME\.recollect`, `C:\Users\me\.recollect\`} {
		if got := PipeName(same); got != a {
			t.Errorf("PipeName(%q) = %s; want %s, the pipe of the same directory", same, got, a)
		}
	}
	if b := PipeName(`C:\Users\me\proj\.recollect`); b == a {
		t.Errorf("two directories share the pipe %s", a)
	}
	if !strings.HasPrefix(a, `\\.\pipe\recollect-`) || len(a) != len(PipePrefix)+16 {
		t.Errorf("PipeName = %s; want \\\\.\\pipe\\recollect- and 16 hex digits", a)
	}
}

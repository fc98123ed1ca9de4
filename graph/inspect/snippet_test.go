package inspect

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// snippetAsWritten is snippet as it was first written: the whole text's
// words joined, its controls escaped, then cut as runes.
func snippetAsWritten(s string, n int) string {
	s = escapeControls(strings.Join(strings.Fields(s), " "))
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// TestSnippetAsWritten: snippet, which leaves a text with single spaces
// as it is and cuts it without a rune slice, gives what the first form
// gave for every line of the bundled transcripts and for texts built to
// find the edges: runs and ends of white space, controls whose escape a
// cut splits, bytes that are not UTF-8, cuts on either side of n.
func TestSnippetAsWritten(t *testing.T) {
	texts := []string{"", " ", "a", " a", "a ", "a  b", "a\tb", "a\u00a0b", "a\u2028b\u0085c", "\x1b[31mred\x1b[0m",
		"bad \xff\xfe bytes", "\xff", "é\xffé", strings.Repeat("é", 90), strings.Repeat("x ", 50), strings.Repeat("\x1b", 30),
		strings.Repeat("ab\xffcd ", 30), "tail space after a long enough run of words to be cut somewhere   "}
	for i := 70; i <= 90; i++ {
		texts = append(texts, strings.Repeat("y", i), strings.Repeat("y", i-3)+"\x1b\x07", strings.Repeat("y", i-2)+"\xff\xfe")
	}
	transcripts := os.DirFS(filepath.Join("..", "..", "fixtures", "transcripts"))
	err := fs.WalkDir(transcripts, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(transcripts, path)
		if err != nil {
			return err
		}
		texts = append(texts, strings.Split(string(b), "\n")...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) < 1000 {
		t.Fatalf("only %d texts: the fixtures were not read", len(texts))
	}
	for _, s := range texts {
		for _, n := range []int{1, 2, 20, 70, 80} {
			if got, want := snippet(s, n), snippetAsWritten(s, n); got != want {
				t.Fatalf("snippet(%q, %d) = %q, want %q", s, n, got, want)
			}
		}
	}
}

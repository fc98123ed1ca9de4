package text_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/recollect/recollect/graph/text"
)

// wordRe is the regular expression StatementWordSpans writes out, the
// reference it is held to.
var wordRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("`[^`]+`|[\\p{L}\\p{N}][\\p{L}\\p{N}'’_/+#-]*(?:\\.[\\p{L}\\p{N}][\\p{L}\\p{N}_/+#-]*)*")
})

// checkWordSpans fails when StatementWordSpans and wordRe split s differently.
func checkWordSpans(t *testing.T, s string) {
	t.Helper()
	var want [][2]int
	for _, m := range wordRe().FindAllStringIndex(s, -1) {
		want = append(want, [2]int{m[0], m[1]})
	}
	if got := text.StatementWordSpans(s); !slices.Equal(got, want) {
		t.Errorf("%q: StatementWordSpans %v, wordRe %v", s, got, want)
	}
	if got, want := text.FirstStatementWord(s), wordRe().FindString(s); got != want {
		t.Errorf("%q: firstWord %q, wordRe %q", s, got, want)
	}
}

var wordCases = []string{"", "a", "I'm here", "v1.2.3 and node.js.", "`go test ./...` ran", "``", "`", "`a", "a`b`c",
	"rock’n’roll", "C++ and C# and F#.", "x.y.", "a..b", "3.14-beta", "é.ü", "日本語のテキスト", "٣٤ arabic digits", "Ⅻ roman",
	"a\xffb", "\xff", "foo-bar_baz/qux+1#2", "end.", ".start", "a. b", "e-mail's.com't", "`multi\nline`", "x.`y`"}

// TestStatementWordSpans splits the cases above and every line of text in
// the fixture transcripts both ways.
func TestStatementWordSpans(t *testing.T) {
	all := transcriptLines(t)
	for _, s := range append(all, wordCases...) {
		checkWordSpans(t, s)
	}
}

// transcriptLines is each line of every JSON string in the fixture
// transcripts: real text as agents and people write it.
func transcriptLines(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join("..", "..", "fixtures", "transcripts"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			tok, err := dec.Token()
			if err != nil {
				break // the end, or a line cut short: what was read is enough
			}
			if s, ok := tok.(string); ok {
				out = append(out, strings.Split(s, "\n")...)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 5000 {
		t.Fatalf("%d lines of text in the fixture transcripts, want thousands: are they there?", len(out))
	}
	return out
}

// FuzzStatementWordSpans splits any text both ways (go test -fuzz StatementWordSpans).
func FuzzStatementWordSpans(f *testing.F) {
	for _, s := range wordCases {
		f.Add(s)
	}
	f.Fuzz(checkWordSpans)
}

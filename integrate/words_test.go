package integrate

import (
	"regexp"
	"slices"
	"sync"
	"testing"
)

// wordRe is the regular expression statementWordSpans writes out, the
// reference it is held to.
var wordRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("`[^`]+`|[\\p{L}\\p{N}][\\p{L}\\p{N}'’_/+#-]*(?:\\.[\\p{L}\\p{N}][\\p{L}\\p{N}_/+#-]*)*")
})

// checkWordSpans fails when statementWordSpans and wordRe split s differently.
func checkWordSpans(t *testing.T, s string) {
	t.Helper()
	var want [][2]int
	for _, m := range wordRe().FindAllStringIndex(s, -1) {
		want = append(want, [2]int{m[0], m[1]})
	}
	if got := statementWordSpans(s); !slices.Equal(got, want) {
		t.Errorf("%q: statementWordSpans %v, wordRe %v", s, got, want)
	}
	if got, want := firstStatementWord(s), wordRe().FindString(s); got != want {
		t.Errorf("%q: firstWord %q, wordRe %q", s, got, want)
	}
}

var wordCases = []string{"", "a", "I'm here", "v1.2.3 and node.js.", "`go test ./...` ran", "``", "`", "`a", "a`b`c",
	"rock’n’roll", "C++ and C# and F#.", "x.y.", "a..b", "3.14-beta", "é.ü", "日本語のテキスト", "٣٤ arabic digits", "Ⅻ roman",
	"a\xffb", "\xff", "foo-bar_baz/qux+1#2", "end.", ".start", "a. b", "e-mail's.com't", "`multi\nline`", "x.`y`"}

// TestStatementWordSpans splits the corpus and the cases above both ways.
func TestStatementWordSpans(t *testing.T) {
	_, all := statementCorpus(t)
	for _, s := range append(all, wordCases...) {
		checkWordSpans(t, s)
	}
}

// FuzzStatementWordSpans splits any text both ways (go test -fuzz StatementWordSpans).
func FuzzStatementWordSpans(f *testing.F) {
	for _, s := range wordCases {
		f.Add(s)
	}
	f.Fuzz(checkWordSpans)
}

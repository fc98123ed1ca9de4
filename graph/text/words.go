package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// StatementWordSpans finds the words of a statement the way integrate
// reads them — a `code span`, or a letter or digit followed by letters,
// digits and ' ’ _ / + # -, then any ".part"s (a dot and a letter or
// digit, then the same without quotes) — and returns their [start, end)
// byte offsets, as regexp's FindAllStringIndex would. It is that regular
// expression written out by hand, because the expression's Unicode
// classes cost most of what reading a statement costs
// (TestStatementWordSpans and FuzzStatementWordSpans hold the two to the
// same answer).
func StatementWordSpans(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		if end := wordAt(s, i); end > i {
			out = append(out, [2]int{i, end})
			i = end
			continue
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return out
}

// wordAt is the end of the word starting at i, or i when none does.
func wordAt(s string, i int) int {
	if s[i] == '`' {
		// A code span: at least one character, up to the next backtick.
		if j := strings.IndexByte(s[i+1:], '`'); j > 0 {
			return i + 1 + j + 1
		}
		return i
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	if !letterOrDigit(r) {
		return i
	}
	end := runWhile(s, i+w, func(r rune) bool { return letterOrDigit(r) || strings.ContainsRune("'’_/+#-", r) })
	for end < len(s) && s[end] == '.' {
		r, w := utf8.DecodeRuneInString(s[end+1:])
		if end+1 >= len(s) || !letterOrDigit(r) {
			break
		}
		end = runWhile(s, end+1+w, func(r rune) bool { return letterOrDigit(r) || strings.ContainsRune("_/+#-", r) })
	}
	return end
}

// runWhile is the end of the run of runes from i that ok accepts.
func runWhile(s string, i int, ok func(rune) bool) int {
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !ok(r) {
			break
		}
		i += w
	}
	return i
}

// letterOrDigit is the expression's [\p{L}\p{N}]. An invalid byte is U+FFFD, a
// symbol, as it is to the regexp package.
func letterOrDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// StatementWords are the words of s (StatementWordSpans' text).
func StatementWords(s string) []string {
	spans := StatementWordSpans(s)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = s[sp[0]:sp[1]]
	}
	return out
}

// FirstStatementWord is the first word of s as StatementWordSpans cuts
// it, "" when it has none.
func FirstStatementWord(s string) string {
	for i := 0; i < len(s); {
		if end := wordAt(s, i); end > i {
			return s[i:end]
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return ""
}

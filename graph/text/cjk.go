package text

import "strings"

// IsCJK reports whether r is written without spaces between words: Han
// ideographs (with 々 〆 〇), Japanese kana and Hangul syllables. The
// ranges are listed one by one, not taken from a Unicode table, so that
// PostgreSQL's recollect_index_text (store/postgres/schema.go) matches the
// very same characters.
func IsCJK(r rune) bool {
	switch {
	case r < 0x3005:
		return false
	case r <= 0x3007, // 々 〆 〇
		0x3041 <= r && r <= 0x3096,   // hiragana
		0x309D <= r && r <= 0x309F,   // ゝ ゞ ゟ
		0x30A1 <= r && r <= 0x30FA,   // katakana
		0x30FC <= r && r <= 0x30FF,   // ー ヽ ヾ ヿ
		0x31F0 <= r && r <= 0x31FF,   // small katakana for Ainu
		0x3400 <= r && r <= 0x4DBF,   // CJK extension A
		0x4E00 <= r && r <= 0x9FFF,   // CJK unified ideographs
		0xAC00 <= r && r <= 0xD7A3,   // Hangul syllables
		0xF900 <= r && r <= 0xFAFF,   // CJK compatibility ideographs
		0xFF66 <= r && r <= 0xFF9F,   // halfwidth katakana
		0x20000 <= r && r <= 0x3134F: // CJK extensions B to G
		return true
	}
	return false
}

// IndexText is content as the full-text indexes read it. SQLite's
// unicode61 tokenizer and PostgreSQL's parser both take a run of letters
// as one word, and Chinese and Japanese put no spaces between words, so
// a whole sentence would be one word that no query word equals. Each run
// of CJK characters (IsCJK) is therefore written, between spaces, as its
// overlapping two-character pieces followed by its single characters:
// "我喜欢猫" becomes " 我喜 喜欢 欢猫 我 喜 欢 猫 ". A query word is
// searched by the same pieces (QueryWords), so "喜欢" inside the sentence
// is found, and a one-character word such as "猫" as well. Text without
// such characters is returned as it is, so its index is what it was.
func IndexText(s string) string {
	if !strings.ContainsFunc(s, IsCJK) {
		return s
	}
	var b strings.Builder
	b.Grow(4 * len(s))
	var run []rune
	flush := func() {
		if len(run) == 0 {
			return
		}
		b.WriteByte(' ')
		for i := 0; i+1 < len(run); i++ {
			b.WriteString(string(run[i : i+2]))
			b.WriteByte(' ')
		}
		for _, r := range run {
			b.WriteRune(r)
			b.WriteByte(' ')
		}
		run = run[:0]
	}
	for _, r := range s {
		if IsCJK(r) {
			run = append(run, r)
			continue
		}
		flush()
		b.WriteRune(r)
	}
	flush()
	return b.String()
}

// QueryWords splits one word of a query (a run of letters and digits, as
// the tokenizers cut it) the way IndexText cut the indexed text: its
// parts outside CJK runs as they are, and each CJK run as its overlapping
// two-character pieces, or as itself when it is one character. A word
// without CJK characters is the one word returned.
func QueryWords(word string) []string {
	if !strings.ContainsFunc(word, IsCJK) {
		return []string{word}
	}
	var out []string
	rs := []rune(word)
	for i := 0; i < len(rs); {
		j := i
		cjk := IsCJK(rs[i])
		for j < len(rs) && IsCJK(rs[j]) == cjk {
			j++
		}
		switch {
		case !cjk:
			out = append(out, string(rs[i:j]))
		case j-i == 1:
			out = append(out, string(rs[i]))
		default:
			for k := i; k+1 < j; k++ {
				out = append(out, string(rs[k:k+2]))
			}
		}
		i = j
	}
	return out
}

package graph

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recollect/recollect/graph/text"
)

// PassageChars bounds the passage an episode shows of the event a search
// hit: the part of a long message (a compaction summary, an agent's
// report) that holds the query's words.
const PassageChars = 700

// queryStems are the stems a passage is matched on: the query's content
// words' stems, and their variants'.
func queryStems(query string) map[string]bool {
	return stemsOf(text.Analyze(query))
}

// stemsOf is queryStems of an analysed query.
func stemsOf(a text.Analysis) map[string]bool {
	out := map[string]bool{}
	for i, s := range a.Stems {
		if text.IsStopword(a.Terms[i]) {
			continue
		}
		out[s] = true
		if v := text.Variant(a.Terms[i]); v != "" {
			out[text.Stem(v)] = true
		}
	}
	return out
}

// wordSpan is a word of a text: its byte range and stem.
type wordSpan struct {
	start, end int
	stem       string
}

// wordSpans are s's words in order, cut as a query's are (text.Tokens): a run
// of Chinese or Japanese characters is its overlapping pairs, or the one
// character.
func wordSpans(s string) []wordSpan {
	var out []wordSpan
	add := func(start, end int) {
		if !strings.ContainsFunc(s[start:end], text.IsCJK) {
			out = append(out, wordSpan{start, end, text.Stem(strings.ToLower(s[start:end]))})
			return
		}
		// offs are the byte offsets of the word's runes, and its end.
		var offs []int
		for i := range s[start:end] {
			offs = append(offs, start+i)
		}
		offs = append(offs, end)
		for k := 0; k+1 < len(offs); {
			j := k
			cjk := text.IsCJK(rune0(s[offs[k]:]))
			for j+1 < len(offs) && text.IsCJK(rune0(s[offs[j]:])) == cjk {
				j++
			}
			switch {
			case !cjk:
				out = append(out, wordSpan{offs[k], offs[j], text.Stem(strings.ToLower(s[offs[k]:offs[j]]))})
			case j-k == 1:
				out = append(out, wordSpan{offs[k], offs[j], s[offs[k]:offs[j]]})
			default:
				for m := k; m+1 < j; m++ {
					out = append(out, wordSpan{offs[m], offs[m+2], s[offs[m]:offs[m+2]]})
				}
			}
			k = j
		}
	}
	start := -1
	for i, r := range s {
		word := unicode.IsLetter(r) || unicode.IsNumber(r)
		if word && start < 0 {
			start = i
		}
		if !word && start >= 0 {
			add(start, i)
			start = -1
		}
	}
	if start >= 0 {
		add(start, len(s))
	}
	return out
}

// rune0 is the first rune of s.
func rune0(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// Passage returns the part of text, at most max bytes, that holds the most
// distinct query stems (the earliest such part on a tie), widened to start
// at a line or sentence where one is near, with "…" where it was cut.
// With opening set, the text is a message that may say up front what it
// is about, and its opening is the passage while that holds at least half
// as many.
// Text within max bytes is returned whole; cut reports whether it was not.
func Passage(text string, stems map[string]bool, max int, opening bool) (passage string, cut bool) {
	if len(text) <= max {
		return text, false
	}
	words := wordSpans(text)
	bestStart, bestN := 0, -1
	for i := range words {
		if !stems[words[i].stem] {
			continue
		}
		// The window opens a little before its first match, for context.
		from := max0(words[i].start - max/5)
		seen := map[string]bool{}
		for j := i; j < len(words) && words[j].end <= from+max; j++ {
			if stems[words[j].stem] {
				seen[words[j].stem] = true
			}
		}
		if len(seen) > bestN {
			bestStart, bestN = from, len(seen)
		}
	}
	// A report says up front what it is about: its opening is the passage
	// while it holds at least half as many of the query's words as the best
	// part. A part further down that holds more of them is often the
	// question quoted back.
	if bestN <= 0 || (opening && 2*openingWords(words, stems, max) >= bestN) {
		return cutUTF8(text, max) + " …", true
	}
	// Start at a line or a sentence when one begins in the lead.
	lead := text[bestStart:]
	limit := min(len(lead), max/5)
	if k := strings.LastIndexAny(lead[:limit], "\n"); k >= 0 {
		bestStart += k + 1
	} else if k := strings.Index(lead[:limit], ". "); k >= 0 {
		bestStart += k + 2
	} else {
		for bestStart < len(text) && !utf8.RuneStart(text[bestStart]) {
			bestStart++
		}
	}
	end := min(len(text), bestStart+max)
	for end < len(text) && end > bestStart && !utf8.RuneStart(text[end]) {
		end--
	}
	out := strings.TrimSpace(text[bestStart:end])
	if bestStart > 0 {
		out = "… " + out
	}
	if end < len(text) {
		out += " …"
	}
	return out, true
}

// openingWords is how many distinct query stems the first max bytes of
// a text hold.
func openingWords(words []wordSpan, stems map[string]bool, max int) int {
	seen := map[string]bool{}
	for _, w := range words {
		if w.end > max {
			break
		}
		if stems[w.stem] {
			seen[w.stem] = true
		}
	}
	return len(seen)
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}

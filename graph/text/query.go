package text

import (
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Analysis is what query analysis finds in a search text. Every arm reads
// the same analysis, so the keyword, entity and time arms agree on what the
// user asked.
type Analysis struct {
	// Terms are the content words, lowercase, in order, one per stem, with
	// stopwords dropped — unless the text holds nothing but stopwords, in
	// which case they are kept so "who am I" still searches.
	Terms []string
	// Stems are the FTS5 porter stems of Terms, index for index.
	Stems []string
	// Phrases are the texts the user put in double quotes, as lowercase
	// word sequences; they must match in that order.
	Phrases []string
	// Names are capitalised words and runs ("Caroline", "New York",
	// "LGBTQ") that are not merely sentence-initial function words: people,
	// places, projects to look up as entities and speakers.
	Names []string
	// Years and Months are the calendar words the text names ("2023",
	// "may"), for matching said-at and valid-from dates.
	Years  []int
	Months []int
	// Self are the query's first-person words (i, me, my, myself), in
	// order: a question in the first person asks about the person asking,
	// so the keyword arm also searches them (KeywordQuery), and what that
	// person said of themselves ranks above text that only shares the
	// topic. Only the keyword arm reads them.
	Self []string
	// AsksYou is true when the text addresses someone ("what did you
	// recommend to me?"): it asks what they said, not only what the asker
	// said of themselves.
	AsksYou bool
	// Dropped counts content words past MaxTerms that were not searched.
	Dropped int
	// AsksWhen is true for a question about time ("when did…", "what
	// year…", "how long ago…"): facts that carry a time expression answer it.
	AsksWhen bool
}

// MaxTerms caps the words a query searches: a pasted 10 kB log stays a
// fast query. The rest are counted in Analysis.Dropped.
const MaxTerms = 64

// Analyze reads a search text.
func Analyze(text string) Analysis {
	var a Analysis
	rest := text
	for {
		i := strings.IndexByte(rest, '"')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i+1:], '"')
		if j < 0 {
			break
		}
		if words := Tokens(rest[i+1 : i+1+j]); len(words) > 1 {
			a.Phrases = append(a.Phrases, strings.Join(words, " "))
		}
		rest = rest[i+1+j+1:]
	}
	words := Tokens(text)
	a.Terms, a.Stems = contentTerms(words)
	if len(a.Terms) > MaxTerms {
		a.Dropped = len(a.Terms) - MaxTerms
		a.Terms, a.Stems = a.Terms[:MaxTerms], a.Stems[:MaxTerms]
	}
	if len(a.Phrases) > MaxTerms {
		a.Phrases = a.Phrases[:MaxTerms]
	}
	a.Names = names(text)
	for _, w := range words {
		if firstPerson()[w] && !slices.Contains(a.Self, w) {
			a.Self = append(a.Self, w)
		}
		if secondPerson()[w] {
			a.AsksYou = true
		}
	}
	for _, w := range words {
		if m := monthNumber(w); m > 0 {
			a.Months = append(a.Months, m)
		}
		if y := yearNumber(w); y > 0 {
			a.Years = append(a.Years, y)
		}
	}
	a.AsksWhen = asksWhen(words)
	return a
}

// Sanitize turns any user text into a full-text query: each content word
// a term and each quoted phrase a phrase, any of which a match holds. It
// is a store.TextQuery in all but name (this package imports nothing of
// recollect, so that store can index with it): the store's engine renders
// it (store.Engine.TextQuery) so that quotes, operators (AND, NEAR, *)
// and punctuation are matched as words, never parsed. Stopwords are left
// out unless nothing else remains. It is empty when the text holds no
// searchable word.
func Sanitize(text string) []string {
	return Analyze(text).Query()
}

// Query is the analysis as a full-text query in no engine's syntax (see
// Sanitize): its phrases, its terms and, for each term, its variant when
// that word stems elsewhere (see Variant).
func (a Analysis) Query() []string {
	q := make([]string, 0, len(a.Phrases)+2*len(a.Terms))
	q = append(q, a.Phrases...)
	seen := map[string]bool{}
	for _, t := range a.Terms {
		q = append(q, t)
		seen[Stem(t)] = true
	}
	for _, t := range a.Terms {
		if v := Variant(t); v != "" && !seen[Stem(v)] {
			seen[Stem(v)] = true
			q = append(q, v)
		}
	}
	return q
}

// KeywordQuery is Query with the first-person words (Self) added: the
// keyword arm's query. They are common words, so BM25 weighs them little;
// they only tip the balance toward what the asker said about themselves.
func (a Analysis) KeywordQuery() []string {
	q := a.Query()
	for _, w := range a.Self {
		if !slices.Contains(q, w) {
			q = append(q, w)
		}
	}
	return q
}

// WithoutNames is the analysis with the words of the given names dropped
// from its terms, or the analysis unchanged when nothing would remain. The
// keyword arm drops the speakers it boosts: the speaker boost already
// stands for them, and as words they would match every turn that greets
// that person.
func (a Analysis) WithoutNames(names map[string]bool) Analysis {
	if len(names) == 0 {
		return a
	}
	drop := map[string]bool{}
	for n := range names {
		for _, w := range Tokens(n) {
			drop[Stem(w)] = true
		}
	}
	var out Analysis = a
	out.Terms, out.Stems = nil, nil
	for i, t := range a.Terms {
		if !drop[a.Stems[i]] {
			out.Terms = append(out.Terms, t)
			out.Stems = append(out.Stems, a.Stems[i])
		}
	}
	if len(out.Terms) == 0 && len(out.Phrases) == 0 {
		return a
	}
	return out
}

// IsFirstPerson reports whether w (lowercase) is a word by which a person
// speaks of themselves: i, me, my, myself.
func IsFirstPerson(w string) bool { return firstPerson()[w] }

// IsSecondPerson reports whether w (lowercase) is a word by which a person
// addresses another: you, your, yours, yourself.
func IsSecondPerson(w string) bool { return secondPerson()[w] }

// firstPerson is the words by which a person speaks of themselves.
var firstPerson = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"i": true, "me": true, "my": true, "myself": true}
})

// secondPerson is the words by which a person addresses another.
var secondPerson = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"you": true, "your": true, "yours": true, "yourself": true}
})

// Variant is the second word a query term is searched by, or "". Porter
// turns a final "y" into "i" before it strips "-ment", "-er" or "-able",
// so "deployment" stems to "deploy" while "deploy", "deploys" and
// "deployed" are indexed as "deploi" (likewise "employer", "enjoyable").
// For a term whose stem ends in that "y", the variant is the stem read as
// a word: searching "deploy" as well finds them. FTS5's porter tokenizer
// stems query and index exactly as Stem does; this only bridges the gap
// Porter itself leaves between a word and its derivations.
func Variant(term string) string {
	s := Stem(term)
	if s == term || !strings.HasSuffix(s, "y") || Stem(s) != s[:len(s)-1]+"i" {
		return ""
	}
	return s
}

// Terms splits text into its content words: lowercase tokens of letters
// and digits, in order, one per porter stem, stopwords dropped unless the
// text holds nothing else.
func Terms(text string) []string {
	t, _ := contentTerms(Tokens(text))
	return t
}

// Tokens splits text the way FTS5's unicode61 tokenizer does: runs of
// letters and numbers, lowercased; a run of Chinese or Japanese
// characters in one is cut into the pieces the index holds for it
// (QueryWords).
func Tokens(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
	if !strings.ContainsFunc(text, IsCJK) {
		return words
	}
	out := make([]string, 0, 2*len(words))
	for _, w := range words {
		out = append(out, QueryWords(w)...)
	}
	return out
}

// Words is text's words as its full-text index holds them: lowercase runs
// of letters and digits, and each run of Chinese or Japanese characters
// as its pairs and single characters (IndexText). A query term is in
// text when its stem is the stem of one of them.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(IndexText(text)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}

func contentTerms(words []string) (terms, stems []string) {
	pick := func(keepStop bool) {
		seen := map[string]bool{}
		terms, stems = nil, nil
		for _, w := range words {
			if !keepStop && IsStopword(w) {
				continue
			}
			s := Stem(w)
			if seen[s] {
				continue
			}
			seen[s] = true
			terms = append(terms, w)
			stems = append(stems, s)
		}
	}
	pick(false)
	if len(terms) == 0 {
		pick(true)
	}
	return terms, stems
}

// names finds capitalised words and runs of them. A capitalised stopword
// ("When", "The") is never a name; a run breaks at punctuation.
func names(text string) []string {
	var out, run []string
	seen := map[string]bool{}
	flush := func() {
		if len(run) > 0 {
			n := strings.Join(run, " ")
			if !seen[strings.ToLower(n)] {
				seen[strings.ToLower(n)] = true
				out = append(out, n)
			}
			run = nil
		}
	}
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return unicode.IsSpace(r) || r == '"' }) {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		first := []rune(w + " ")[0]
		if w == "" || !unicode.IsUpper(first) || IsStopword(strings.ToLower(w)) || monthNumber(strings.ToLower(w)) > 0 {
			flush()
			continue
		}
		run = append(run, w)
		if w != strings.TrimRightFunc(f, func(r rune) bool { return r == '"' }) {
			flush() // punctuation after the word ends the run
		}
	}
	flush()
	return out
}

var months = sync.OnceValue(func() map[string]int {
	return map[string]int{
		"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
		"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
		"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
		"oct": 10, "nov": 11, "dec": 12,
	}
})

func monthNumber(w string) int { return months()[w] }

func yearNumber(w string) int {
	if len(w) != 4 || (w[0] != '1' && w[0] != '2') {
		return 0
	}
	y := 0
	for _, c := range w {
		if c < '0' || c > '9' {
			return 0
		}
		y = y*10 + int(c-'0')
	}
	if y < 1900 || y > 2199 {
		return 0
	}
	return y
}

func asksWhen(words []string) bool {
	for i, w := range words {
		switch w {
		case "when", "date", "year", "month", "day", "ago", "since":
			return true
		case "how":
			if i+1 < len(words) && (words[i+1] == "long" || words[i+1] == "recently") {
				return true
			}
		}
	}
	return false
}

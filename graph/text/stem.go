package text

import "sync"

// Stem reduces a lowercase token to the stem SQLite's FTS5 "porter"
// tokenizer stores for it, so that Go code can compare query words with
// indexed words the way the index does. It is a faithful port of
// fts5PorterCb (sqlite3 fts5_tokenize.c): tokens shorter than 3 or longer
// than 64 bytes pass through unchanged, exactly as FTS5 passes them.
//
// FTS5 folds diacritics before stemming (unicode61 remove_diacritics=1);
// Stem does not, so the two agree on every token without diacritics.
func Stem(token string) string {
	if len(token) < 3 || len(token) > 64 {
		return token
	}
	b := []byte(token)
	b = step1a(b)
	b, stripped := step1b(b)
	if stripped {
		if nb, ok := step1b2(b); ok {
			b = nb
		} else {
			c := at(b, len(b)-1)
			if !isVowel(c, false) && c != 'l' && c != 's' && c != 'z' && c == at(b, len(b)-2) {
				b = b[:len(b)-1]
			} else if mEq1(b) && oStar(b) {
				b = append(b, 'e')
			}
		}
	}
	if at(b, len(b)-1) == 'y' && hasVowel(b[:len(b)-1]) {
		b[len(b)-1] = 'i'
	}
	b = applyRules(b, step2Rules(), mGt0)
	b = applyRules(b, step3Rules(), mGt0)
	b = applyRules(b, step4Rules(), mGt1)
	if at(b, len(b)-1) == 'e' {
		s := b[:len(b)-1]
		if mGt1(s) || (mEq1(s) && !oStar(s)) {
			b = s
		}
	}
	if len(b) > 1 && b[len(b)-1] == 'l' && b[len(b)-2] == 'l' && mGt1(b[:len(b)-1]) {
		b = b[:len(b)-1]
	}
	return string(b)
}

// at reads b[i], or 0 outside b (the C code may read one byte before the
// buffer; no rule can match there, so 0 is equivalent).
func at(b []byte, i int) byte {
	if i < 0 || i >= len(b) {
		return 0
	}
	return b[i]
}

func isVowel(c byte, yIsVowel bool) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || (yIsVowel && c == 'y')
}

// gobbleVC skips one [C]*V+C group and returns the index after it, or 0.
func gobbleVC(s []byte, prevCons bool) int {
	cons := prevCons
	i := 0
	for ; i < len(s); i++ {
		cons = !isVowel(s[i], cons)
		if !cons {
			break
		}
	}
	for i++; i < len(s); i++ {
		cons = !isVowel(s[i], cons)
		if cons {
			return i + 1
		}
	}
	return 0
}

func mGt0(s []byte) bool { return gobbleVC(s, false) != 0 }

func mGt1(s []byte) bool {
	n := gobbleVC(s, false)
	return n != 0 && gobbleVC(s[n:], true) != 0
}

func mEq1(s []byte) bool {
	n := gobbleVC(s, false)
	return n != 0 && gobbleVC(s[n:], true) == 0
}

// oStar is Porter's *o: the stem ends consonant-vowel-consonant, the last
// not w, x or y.
func oStar(s []byte) bool {
	last := at(s, len(s)-1)
	if last == 'w' || last == 'x' || last == 'y' {
		return false
	}
	mask, cons := 0, false
	for _, c := range s {
		cons = !isVowel(c, cons)
		bit := 0
		if cons {
			bit = 1
		}
		mask = ((mask << 1) + bit) & 7
	}
	return mask == 5
}

func hasVowel(s []byte) bool {
	for i, c := range s {
		if isVowel(c, i > 0) {
			return true
		}
	}
	return false
}

func hasSuffix(b []byte, suf string) bool {
	return len(b) > len(suf) && string(b[len(b)-len(suf):]) == suf
}

func step1a(b []byte) []byte {
	n := len(b)
	if at(b, n-1) != 's' {
		return b
	}
	switch {
	case at(b, n-2) == 'e':
		if (n > 4 && b[n-4] == 's' && b[n-3] == 's') || (n > 3 && b[n-3] == 'i') {
			return b[:n-2]
		}
		return b[:n-1]
	case at(b, n-2) != 's':
		return b[:n-1]
	}
	return b
}

// step1b strips -eed, -ed and -ing; ok reports that -ed or -ing went.
func step1b(b []byte) ([]byte, bool) {
	n := len(b)
	switch at(b, n-2) {
	case 'e':
		if hasSuffix(b, "eed") {
			if mGt0(b[:n-3]) {
				return b[:n-1], false
			}
		} else if hasSuffix(b, "ed") && hasVowel(b[:n-2]) {
			return b[:n-2], true
		}
	case 'n':
		if hasSuffix(b, "ing") && hasVowel(b[:n-3]) {
			return b[:n-3], true
		}
	}
	return b, false
}

func step1b2(b []byte) ([]byte, bool) {
	for _, r := range [][2]string{{"at", "ate"}, {"bl", "ble"}, {"iz", "ize"}} {
		if hasSuffix(b, r[0]) {
			return append(b[:len(b)-2], r[1]...), true
		}
	}
	return b, false
}

// rule replaces suffix with out when the stem before it meets the step's
// condition. Within a step the first matching suffix decides, as in SQLite:
// when its condition fails no later suffix is tried.
type rule struct{ suffix, out string }

// Rules are grouped by the second-to-last letter, the way the generated C
// switches on aBuf[nBuf-2], so "first match" means the same thing.
var step2Rules = sync.OnceValue(func() map[byte][]rule {
	return map[byte][]rule{
		'a': {{"ational", "ate"}, {"tional", "tion"}},
		'c': {{"enci", "ence"}, {"anci", "ance"}},
		'e': {{"izer", "ize"}},
		'g': {{"logi", "log"}},
		'l': {{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"}},
		'o': {{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}},
		's': {{"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"}},
		't': {{"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"}},
	}
})

var step3Rules = sync.OnceValue(func() map[byte][]rule {
	return map[byte][]rule{
		'a': {{"ical", "ic"}},
		's': {{"ness", ""}},
		't': {{"icate", "ic"}, {"iciti", "ic"}},
		'u': {{"ful", ""}},
		'v': {{"ative", ""}},
		'z': {{"alize", "al"}},
	}
})

var step4Rules = sync.OnceValue(func() map[byte][]rule {
	return map[byte][]rule{
		'a': {{"al", ""}},
		'c': {{"ance", ""}, {"ence", ""}},
		'e': {{"er", ""}},
		'i': {{"ic", ""}},
		'l': {{"able", ""}, {"ible", ""}},
		'n': {{"ant", ""}, {"ement", ""}, {"ment", ""}, {"ent", ""}},
		'o': {{"ion", ""}, {"ou", ""}},
		's': {{"ism", ""}},
		't': {{"ate", ""}, {"iti", ""}},
		'u': {{"ous", ""}},
		'v': {{"ive", ""}},
		'z': {{"ize", ""}},
	}
})

func applyRules(b []byte, rules map[byte][]rule, cond func([]byte) bool) []byte {
	for _, r := range rules[at(b, len(b)-2)] {
		if !hasSuffix(b, r.suffix) {
			continue
		}
		stem := b[:len(b)-len(r.suffix)]
		ok := cond(stem)
		if r.suffix == "ion" {
			last := at(stem, len(stem)-1)
			ok = (last == 's' || last == 't') && mGt1(stem)
		}
		if ok {
			return append(stem[:len(stem):len(stem)], r.out...)
		}
		return b
	}
	return b
}

package text

import (
	"strconv"
	"strings"
)

// Plural is n with its noun, singular for one: "1 fact", "3 facts",
// "0 entities". Nouns ending in a consonant and y take -ies, nouns ending
// in s, x, ch or sh take -es; every other noun takes -s.
func Plural(n int, noun string) string {
	return strconv.Itoa(n) + " " + PluralNoun(n, noun)
}

// PluralNoun is noun's form for a count of n.
func PluralNoun(n int, noun string) string {
	if n == 1 || noun == "" {
		return noun
	}
	last := noun[len(noun)-1]
	switch {
	case last == 'y' && len(noun) > 1 && !pluralVowel(noun[len(noun)-2]):
		return noun[:len(noun)-1] + "ies"
	case last == 's' || last == 'x' || strings.HasSuffix(noun, "ch") || strings.HasSuffix(noun, "sh"):
		return noun + "es"
	}
	return noun + "s"
}

func pluralVowel(b byte) bool { return b == 'a' || b == 'e' || b == 'i' || b == 'o' || b == 'u' }

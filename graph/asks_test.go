package graph

import (
	"slices"
	"testing"

	"github.com/recollect/recollect/graph/text"
)

func TestAsksAbout(t *testing.T) {
	for _, tc := range []struct {
		query, text string
		want        bool
	}{
		{"books reading", "Cool! Are you reading any good books lately?", true},
		{"books reading", "[8 May 2023] Gina: Wow! What book are you reading?", true},
		{"what books has John read", "John: Have you read all of Martin's books?", true},
		// An abbreviation's point ends a sentence: the words before it
		// count as said, the side that keeps a fact's score.
		{"what books has John read", "John: Have you read all of George R. R. Martin's books?", false},
		{"books reading", "I read two books. Are you reading any?", false},
		{"books reading", "Are you reading any? I finished two books.", false},
		{"what play did I attend", "The play I attended was The Glass Menagerie, have you heard of it?", false},
		{"what age am I", "Can you recommend creams for someone my age?", false},
		{"books reading", "Are you all right?", false},
		{"books reading", "I love books", false},
		{"books reading", "", false},
		{"books reading", "Reading books", false},
		{"Caroline's books", "Caroline: What books?", true},
	} {
		got := asksAbout(tc.text, askedStems(text.Analyze(tc.query)))
		if got != tc.want {
			t.Errorf("asksAbout(%q) for %q = %v, want %v", tc.text, tc.query, got, tc.want)
		}
	}
}

// TestWordSpansOfKeepsEveryMatch: wordSpansOf leaves out only words that
// stem to none of the stems, whatever their letters.
func TestWordSpansOfKeepsEveryMatch(t *testing.T) {
	texts := []string{
		"Are you reading any good books lately? I read happily, he relates relational ties.",
		"Élodie's café in İstanbul: ÉCOLE, Straße, naïve readers?",
		"東京に行きました? We went to Tokyo, reading maps.",
		"a b c ab abc 42 4th x-ray",
	}
	queries := []string{"books reading", "relational ties happy", "Élodie café école straße", "東京 Tokyo maps", "a ab 42 x"}
	for _, s := range texts {
		for _, q := range queries {
			stems := stemsOf(text.Analyze(q))
			var want, got []wordSpan
			for _, w := range wordSpans(s) {
				if stems[w.stem] {
					want = append(want, w)
				}
			}
			for _, w := range wordSpansOf(s, stemHeads(stems)) {
				if stems[w.stem] {
					got = append(got, w)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%q in %q: wordSpansOf matched %v, wordSpans %v", q, s, got, want)
			}
		}
	}
}

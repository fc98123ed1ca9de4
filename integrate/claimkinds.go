package integrate

import (
	"regexp"
	"strings"
	"sync"
)

// A stored statement is a supersession candidate of a new fact when it
// names one of its entities or shares its distinctive words; most of
// them share no attribute with it and could never be replaced by it, yet
// reading one (readStatement: some twenty regular expressions a clause)
// is most of what a candidate costs. The rule replaces only a statement
// that gives the same kind of attribute (where someone lives, a port, the
// tool used) or that holds a value the new fact names as replaced, and
// each kind is read only from words the statement must contain: a port
// from "port" or "localhost" and a number, where someone lives from
// "live", "moved", "based"… So a candidate whose text holds none of the
// words of the new fact's kinds is passed over unread; the decision is
// the one reading it would give (TestCandidateFilter* pin this).

// kinds is a set of claim kinds: a claim's slot without its qualifier
// ("use" of "use:billing").
type kinds uint16

const (
	kindPort kinds = 1 << iota
	kindVersion
	kindResidence
	kindEmployer
	kindHost
	kindLocation
	kindOwner
	kindUse
	kindPreference
	kindIs
	// kindOther stands for a slot kind this file does not know, which no
	// filter may pass over.
	kindOther
)

// kindByName maps the slot kinds readClaims makes to their bits.
var kindByName = sync.OnceValue(func() map[string]kinds {
	return map[string]kinds{"port": kindPort, "version": kindVersion, "residence": kindResidence,
		"employer": kindEmployer, "host": kindHost, "location": kindLocation, "owner": kindOwner, "use": kindUse,
		"preference": kindPreference, "is": kindIs}
})

// kindOf is the kind of a claim's slot.
func kindOf(slot string) kinds {
	name, _, _ := strings.Cut(slot, ":")
	if k, ok := kindByName()[name]; ok {
		return k
	}
	return kindOther
}

// kinds are the kinds of a reading's claims.
func (r reading) kinds() kinds {
	var out kinds
	for _, c := range r {
		for _, cl := range c.claims {
			out |= kindOf(cl.slot)
		}
	}
	return out
}

// literal is what a text one of the rules in claims.go matches must hold:
// one of keys, lowercase, as part of a word ("liv" of "lives"), and with
// digits an ASCII digit (a port and a version are numbers); with no keys
// only the digit. A rule is tried only on a clause holding its literal:
// each is a regular expression, tried on every clause of every statement
// read, and most clauses hold none of its words.
type literal struct {
	keys   []string
	digits bool
}

// in reports whether low, a lowercased text, holds l.
func (l literal) in(low string) bool {
	if l.digits && !strings.ContainsAny(low, "0123456789") {
		return false
	}
	return len(l.keys) == 0 || containsAny(low, l.keys)
}

// keyedRe is a rule with its literal.
type keyedRe struct {
	keys literal
	re   *regexp.Regexp
}

// markerKeys and additiveKeys are the words of markerRe and additiveRe.
var (
	markerKeys   = literal{keys: []string{"longer", "instead", "any", "days", "now", "switch", "migrated", "moved", "changed", "replaced"}}
	additiveKeys = literal{keys: []string{"also", "too", "as well", "another", "addition", "second"}}
)

// rulesFor says which rules a clause holds the literals of: all of them
// when keyed is false, and when the text holds a rune the rules' (?i)
// matching takes for an ASCII letter that lowercasing does not make one.
func rulesFor(text string, keyed bool) func(literal) bool {
	if !keyed || strings.ContainsAny(text, foldsToASCII) {
		return func(literal) bool { return true }
	}
	low := strings.ToLower(text)
	return func(l literal) bool { return l.in(low) }
}

// submatchIf is re's submatch indexes in s when try is set, else nil.
func submatchIf(try bool, re *regexp.Regexp, s string) []int {
	if !try {
		return nil
	}
	return re.FindStringSubmatchIndex(s)
}

// claimKeys are the literals of the rules a claim of each kind is read
// by: frames, preferenceRe and ownsRe.
var claimKeys = sync.OnceValue(func() []struct {
	kind kinds
	keys literal
} {
	out := []struct {
		kind kinds
		keys literal
	}{{kindPreference, preferenceKeys}, {kindOwner, ownsKeys}}
	for _, f := range frames() {
		out = append(out, struct {
			kind kinds
			keys literal
		}{kindOf(f.slot), f.keys})
	}
	return out
})

// copulas start the one claim read from a verb alone ("the default
// branch is main"): the verb as a whole word followed by a space.
var copulas = []string{"is", "are", "was", "were"}

// namesReplaced: low holds the literal of one of replacedRes.
func namesReplaced(low string) bool {
	for _, r := range replacedRes() {
		if r.keys.in(low) {
			return true
		}
	}
	return false
}

// foldsToASCII are the runes outside ASCII that the rules' (?i) matching
// takes for an ASCII letter and strings.ToLower does not turn into one
// (the long s, the Kelvin sign); a text holding one is always read in full.
const foldsToASCII = "\u017f\u212a"

// possibleKinds is every kind of claim readStatement could find in text,
// whoever the speaker: a superset, read from its words alone.
func possibleKinds(low string) kinds {
	var out kinds
	for _, k := range claimKeys() {
		if out&k.kind == 0 && k.keys.in(low) {
			out |= k.kind
		}
	}
	for _, w := range copulas {
		if hasWordBeforeSpace(low, w) {
			out |= kindIs
			break
		}
	}
	return out
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// hasWordBeforeSpace: w stands in s with no ASCII letter or digit before
// it and white space after it.
func hasWordBeforeSpace(s, w string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(w)
		if (i == 0 || !isASCIIAlnum(s[i-1])) && end < len(s) && isSpace(s[end]) {
			return true
		}
		from = i + 1
	}
}

func isASCIIAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// isSpace is regexp's \s.
func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r' }

// candidateFilter passes over the stored statements a new fact's reading
// could not take part in a supersession with.
type candidateFilter struct {
	// need are the new fact's claim kinds: a candidate must be able to
	// hold one of them to share an attribute with it.
	need kinds
	// replaced are the word sets of the values the new fact names as
	// replaced: a candidate said before it that holds all of one's words
	// may be the statement it replaces.
	replaced []map[string]bool
}

func newCandidateFilter(mine reading) candidateFilter {
	f := candidateFilter{need: mine.kinds()}
	for _, c := range mine {
		for _, v := range c.replaced {
			f.replaced = append(f.replaced, v.words)
		}
	}
	return f
}

// admits reports whether the stored statement text must be read: false
// only when its reading could pass neither supersedesReading nor
// mayReplace with the new fact, in the order the two were said (later:
// the stored one was said after the new one).
func (f candidateFilter) admits(text string, later bool) bool {
	if f.need&kindOther != 0 || strings.ContainsAny(text, foldsToASCII) {
		return true
	}
	low := strings.ToLower(text)
	if possibleKinds(low)&f.need != 0 {
		return true
	}
	if later {
		// The stored statement is the newer one: it replaces the new
		// fact only by naming one of its values as replaced.
		return namesReplaced(low)
	}
	for _, words := range f.replaced {
		if len(words) > 0 && containsAll(low, words) {
			return true
		}
	}
	return false
}

func containsAll(s string, words map[string]bool) bool {
	for w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

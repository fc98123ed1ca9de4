package integrate

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/recollect/recollect/graph/text"
)

// A reading is what the supersession heuristic understands of a statement:
// per clause, who it is about and which single attributes it sets. A clause
// it cannot read (no subject it can name, a pronoun subject, no attribute it
// knows) claims nothing, and a statement that claims nothing supersedes
// nothing.
type reading []clause

// clause is one clause of a statement.
type clause struct {
	// self is "i:<speaker>" or "we:<speaker>" for a first-person subject;
	// subject holds the content words of any other subject.
	self    string
	subject map[string]bool
	claims  []claim
	// replaced are the values the clause names as replaced ("instead of Y",
	// "from Y to", "replaced Y with").
	replaced []value
	// marker is the clause's word of change, if any ("now", "instead", …).
	marker string
	// additive is true when the clause says it adds to what holds ("also",
	// "too", "as well"), so its values replace nothing.
	additive bool
	// words are all the clause's content words.
	words map[string]bool
	// speaker is who "I" is, lowercase.
	speaker string
}

// claim is one attribute a clause gives a value: where someone lives, the
// port a server runs on, the tool used for a purpose.
type claim struct {
	// slot names the attribute, with its qualifier ("use:billing",
	// "version:go", "host:spotter").
	slot string
	// single is true when the attribute holds one value at a time, so a new
	// value replaces the old one without a word of change.
	single bool
	val    value
	// negated is true when the clause says the attribute no longer holds
	// ("no longer", "not", "used to", "stopped").
	negated bool
	// scope is the purpose or environment the value holds for ("Python 3.11
	// for the API", "port 3000 in production"); two values for different
	// scopes both hold.
	scope string
	// owner, when set, overrides the clause's subject: "Alice owns the
	// billing service" is about the billing service.
	owner map[string]bool
}

// value is a phrase as written and its content words.
type value struct {
	text  string
	words map[string]bool
}

var (
	clauseSplit = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[;!?]+|[.](?:\s+|$)|,\s+(?:but|so|and|though|while)\s+|\s+but\s+`)
	})
	speakerPrefix = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:\[[^\]]{1,40}\]\s*)?([A-Z][\p{L}'-]*(?:\s+[A-Z][\p{L}'-]*){0,2}):\s+`)
	})
	datePrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[[^\]]{1,40}\]\s*`) })

	markerRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(no longer|instead|anymore|any more|these days|nowadays|from now on|switched|switching|migrated|moved|changed|replaced|now)\b`)
	})
	additiveRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(also|too|as well|another|additionally|in addition|second)\b`)
	})
	negationRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(no longer|not|never|don't|doesn't|didn't|isn't|aren't|won't|stopped|quit|used to)\b`)
	})

	// replacedRes read a value named as replaced, each only from a
	// clause holding one of its keys (see literal).
	replacedRes = sync.OnceValue(func() []keyedRe {
		return []keyedRe{
			{literal{keys: []string{"instead"}}, regexp.MustCompile(`(?i)\binstead of\s+(.+)`)},
			{literal{keys: []string{"from"}}, regexp.MustCompile(`(?i)\b(?:switched|switching|migrated|migrating|moved|moving|changed|changing|went|upgraded|downgraded|bumped)\b.*?\bfrom\s+(.+?)\s+to\b`)},
			{literal{keys: []string{"replac", "swap"}}, regexp.MustCompile(`(?i)\b(?:replaced|replacing|swapped|swapping)\s+(.+?)\s+(?:with|for|by)\b`)},
			{literal{keys: []string{"rather"}}, regexp.MustCompile(`(?i)\brather than\s+(.+)`)},
		}
	})
)

// frame finds one attribute in a clause's predicate: re's first group is
// the value, its optional second group a qualifier. It is tried only on a
// clause holding its keys: the words re starts from (see literal).
type frame struct {
	slot   string
	single bool
	keys   literal
	re     *regexp.Regexp
}

// frames are the attributes the heuristic knows. Each holds one value per
// subject (single) or several (a person likes many things; a project uses
// many tools), and then needs a word of change and, for tools, the same
// purpose.
var frames = sync.OnceValue(func() []frame {
	var (
		digits = literal{digits: true}
		words  = func(keys ...string) literal { return literal{keys: keys} }
	)
	return []frame{
		{"port", true, literal{keys: []string{"port", "localhost"}, digits: true}, regexp.MustCompile(`(?i)\bport\s+:?(\d{2,5})\b|\blocalhost:(\d{2,5})\b`)},
		{"version", true, digits, regexp.MustCompile(`(?i)\b([a-z][\w.+#-]*)\s+v?(\d+(?:\.\d+)+)\b`)},
		{"version", true, digits, regexp.MustCompile(`\b([A-Z][\w.+#-]*)\s+v?(\d{1,3})\b(?:[^.:/\d]|$)`)},
		{"version", true, literal{keys: []string{"version"}, digits: true}, regexp.MustCompile(`(?i)\bversion\s+v?(\d+(?:\.\d+)*)\b`)},
		{"residence", true, words("liv", "resid", "based", "settled"), regexp.MustCompile(`(?i)\b(?:live|lives|living|lived|reside|resides|residing|based|settled)\b(?:\s+[\p{L}'-]+){0,4}?\s+in\s+(.+)`)},
		{"residence", true, words("mov", "relocat"), regexp.MustCompile(`(?i)\b(?:moved|moving|relocated|relocating|move|relocate)\s+(?:back\s+)?to\s+(.+)`)},
		{"residence", true, words("flat", "apartment", "house", "home"), regexp.MustCompile(`(?i)\b(?:flat|apartment|house|home)\s+is\s+(?:now\s+)?in\s+(.+)`)},
		{"employer", true, words("work"), regexp.MustCompile(`(?i)\b(?:work|works|working|worked)\s+(?:at|for)\s+(.+)`)},
		{"employer", true, words("employ", "job"), regexp.MustCompile(`(?i)\b(?:employed\s+(?:at|by)|job\s+(?:at|with)|employer\s+is)\s+(.+)`)},
		{"host", true, words("deploy", "ship", "publish", "host"), regexp.MustCompile(`(?i)\b(?:deploy|deploys|deployed|deploying|ship|ships|shipped|shipping|publish|publishes|published|host|hosts|hosted|hosting)\b\s*((?:[\w.-]+\s+){0,3}?)(?:to|on|at|with)\s+(.+)`)},
		{"location", true, words("stored", "kept", "located", "saved", "backed"), regexp.MustCompile(`(?i)\b(?:stored|kept|located|saved|backed up)\s+(?:in|on|at|to)\s+(.+)`)},
		{"owner", true, words("owned", "maintained", "managed", "led"), regexp.MustCompile(`(?i)\b(?:owned|maintained|managed|led)\s+by\s+(.+)`)},
		{"use", false, words("use", "using"), regexp.MustCompile(`(?i)\b(?:use|uses|using|used)\s+(.+)`)},
		{"use", false, words("switch", "migrat", "chang", "mov"), regexp.MustCompile(`(?i)\b(?:switched|switching|migrated|migrating|changed|changing|moved|moving)\s+(?:over\s+|back\s+)?(?:from\s+.+?\s+)?to\s+(.+)`)},
	}
})

// preferenceRe reads a preference; it counts only as the clause's own verb
// ("I now prefer tea"), not as a noun or a comparison ("love and support",
// "options like coconut"), and not as a wish ("I'd love to").
var preferenceRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(?:(?:now|really|still|actually|just|totally|absolutely|truly|genuinely|definitely|always|no longer|do not|don't|does not|doesn't|never)\s+)*(?:like|likes|love|loves|prefer|prefers|enjoy|enjoys)\s+(.+)`)
})

// preferenceKeys and ownsKeys are the words preferenceRe and ownsRe
// start from.
var (
	preferenceKeys = literal{keys: []string{"like", "love", "prefer", "enjoy"}}
	ownsKeys       = literal{keys: []string{"owns", "maintains", "leads", "manages"}}
)

// ownsRe reads "Alice owns the billing service": the object is what the
// ownership is about, the subject is the value.
var ownsRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(?:owns|maintains|leads|manages)\s+(.+)`) })

// copulaRe reads "<subject> is <value>", as in "the default branch is main".
var copulaRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(?:is|are|was|were)\s+(?:now\s+|still\s+)?(.+)`)
})

var leadingSkip = sync.OnceValue(func() map[string]bool {
	return set("so", "well", "also", "and", "but", "btw", "actually", "yes", "yeah", "ok", "okay", "oh", "hey",
		"then", "anyway", "honestly", "recently", "lately", "currently", "today", "yesterday", "now", "finally",
		"nowadays", "meanwhile", "update", "fyi", "note", "since", "as", "of")
})

var (
	timeLead = sync.OnceValue(func() map[string]bool { return set("last", "this", "next", "these", "since") })
	timeNoun = sync.OnceValue(func() map[string]bool {
		return set("week", "month", "year", "spring", "summer", "autumn", "fall", "winter", "days", "weekend", "morning", "time", "sprint", "quarter")
	})
)

// calendarWords name dates, not products: "May 5" is no version.
var calendarWords = sync.OnceValue(func() map[string]bool {
	return set("january", "february", "march", "april", "may", "june", "july", "august", "september",
		"october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
		"dec", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "week", "day", "year",
		"month", "today", "tomorrow", "yesterday", "tonight", "page", "chapter", "season", "episode", "part", "room", "level", "grade", "floor", "step", "phase", "round")
})

var homeWords = sync.OnceValue(func() map[string]bool {
	return set("flat", "apartment", "house", "home", "place")
})

var firstPersonWords = sync.OnceValue(func() map[string]string {
	return map[string]string{"i": "i", "i'm": "i", "i've": "i", "i'd": "i", "i'll": "i", "me": "i",
		"we": "we", "we're": "we", "we've": "we", "we'd": "we", "we'll": "we", "us": "we", "my": "i", "our": "we"}
})

// pronouns name a subject only through context the heuristic lacks.
var pronouns = sync.OnceValue(func() map[string]bool {
	return set("it", "it's", "its", "this", "that", "these", "those", "he", "she", "they", "he's", "she's", "they're",
		"you", "you're", "there", "here", "what", "which", "who", "everyone", "someone", "something", "nobody", "people",
		// an elliptical "(It) sounds like…" has no subject
		"sounds", "looks", "seems", "feels", "smells")
})

var determiners = sync.OnceValue(func() map[string]bool {
	return set("the", "a", "an", "this", "that", "these", "those", "your", "their", "his", "her", "its", "some",
		"many", "most", "all", "every", "each", "any", "our", "my")
})

// predicateWords end a subject phrase: auxiliaries, adverbs and the verbs
// the frames read.
var predicateWords = sync.OnceValue(func() map[string]bool {
	return set("is", "are", "was", "were", "be", "been", "am", "has", "have", "had", "do", "does", "did",
		"don't", "doesn't", "didn't", "will", "would", "shall", "should", "can", "could", "may", "might", "must", "won't",
		"can't", "isn't", "aren't", "wasn't", "no", "not", "never", "now", "still", "also", "always", "usually", "often",
		"sometimes", "currently", "just", "only", "already", "finally", "recently", "really", "actually", "then",
		"live", "lives", "lived", "living", "reside", "resides", "moved", "move", "moves", "moving", "relocated",
		"work", "works", "worked", "working", "use", "uses", "used", "using", "switched", "switch", "switches",
		"migrated", "migrate", "migrates", "changed", "change", "changes", "deploy", "deploys", "deployed", "ship", "ships",
		"shipped", "host", "hosts", "hosted", "run", "runs", "ran", "running", "listen", "listens", "serve", "serves",
		"like", "likes", "liked", "love", "loves", "loved", "prefer", "prefers", "preferred", "enjoy", "enjoys", "hate",
		"hates", "want", "wants", "need", "needs", "own", "owns", "maintain", "maintains", "lead", "leads", "joined",
		"left", "started", "stopped", "quit", "got", "went", "build", "builds", "built", "replaced", "replace", "requires",
		"require", "depends", "points", "pins", "targets", "owned", "maintained", "based", "settled", "keep", "keeps",
		"stay", "stays", "publish", "publishes", "published", "pin", "target", "point", "call", "calls", "called",
		"go", "goes", "send", "sends", "write", "writes", "read", "reads", "store", "stores", "stored", "talk", "talks",
		"manage", "manages", "managed", "play", "plays", "drive", "drives", "speak", "speaks", "learn", "learns", "learning",
		"eat", "eats", "drink", "drinks", "make", "makes", "take", "takes", "sold", "bought", "upgraded", "happen", "happens",
		"listened", "expose", "exposes", "connect", "connects", "connected", "return", "returns", "handle", "handles",
		"support", "supports", "include", "includes", "contain", "contains", "load", "loads", "fetch", "fetches", "sit", "sits", "belong", "belongs")
})

// stopValue ends a value phrase.
var stopValue = sync.OnceValue(func() map[string]bool {
	return set("for", "in", "on", "at", "with", "since", "because", "and", "but", "instead", "now", "last", "this",
		"next", "from", "to", "by", "as", "so", "when", "while", "after", "before", "until", "which", "that", "where",
		"every", "each", "anymore", "again", "these", "today", "yesterday", "tomorrow", "recently", "lately", "already",
		"too", "though", "then", "rather", "than", "if", "or", "nowadays", "these", "days", "of", "over", "via")
})

// readStatement reads a statement; speaker is who "I" is when the text
// does not start with "<Name>: ".
func readStatement(text, speaker string) reading { return readStatementKeyed(text, speaker, true) }

// readStatementKeyed reads a statement, trying each rule only on a clause
// holding its keys when keyed is set; unkeyed, every rule is tried (the
// tests' reference: both read every statement alike).
func readStatementKeyed(text, speaker string, keyed bool) reading {
	if m := speakerPrefix().FindStringSubmatchIndex(text); m != nil {
		speaker, text = text[m[2]:m[3]], text[m[1]:]
	} else {
		text = datePrefix().ReplaceAllString(text, "")
	}
	speaker = strings.ToLower(strings.TrimSpace(speaker))
	var out reading
	var prev *clause
	for _, part := range clauseSplit().Split(text, -1) {
		c, ok := readClause(part, speaker, prev, keyed)
		if !ok {
			prev = nil
			continue
		}
		out = append(out, c)
		prev = &out[len(out)-1]
	}
	return out
}

// readClause reads one clause; a clause with no subject of its own ("…,
// and moved to Porto") takes the previous clause's.
func readClause(clauseText, speaker string, prev *clause, keyed bool) (clause, bool) {
	c := clause{speaker: speaker}
	toks := text.StatementWordSpans(clauseText)
	lower := func(i int) string { return strings.ToLower(clauseText[toks[i][0]:toks[i][1]]) }
	i := 0
	for i < len(toks) && leadingSkip()[lower(i)] {
		i++
	}
	// A leading time phrase: "last month", "these days".
	if i+1 < len(toks) && timeLead()[lower(i)] && timeNoun()[lower(i+1)] {
		i += 2
	}
	if i >= len(toks) {
		return c, false
	}
	var possessed []string
	start := i
	w := lower(i)
	switch fp, isFP := firstPersonWords()[w]; {
	case isFP:
		c.self = fp + ":" + speaker
		i++
		if w == "my" || w == "our" {
			for i < len(toks) && !predicateWords()[lower(i)] && len(possessed) < 4 {
				possessed = append(possessed, lower(i))
				i++
			}
			c.subject = wordSet(strings.Join(possessed, " "))
		}
	case pronouns()[w]:
		return c, false
	case predicateWords()[w] && prev != nil:
		c.self, c.subject = prev.self, prev.subject
	default:
		var subj []string
		for i < len(toks) && !predicateWords()[lower(i)] {
			t := lower(i)
			if i > start && !determiners()[lower(i-1)] && len(t) > 4 && strings.HasSuffix(t, "ed") {
				break
			}
			subj = append(subj, t)
			i++
			if len(subj) > 6 {
				return c, false
			}
		}
		if i >= len(toks) {
			return c, false
		}
		c.subject = wordSet(strings.Join(subj, " "))
		if len(c.subject) == 0 {
			return c, false
		}
		for _, s := range subj {
			if pronouns()[s] {
				return c, false
			}
		}
	}
	if i >= len(toks) {
		return c, false
	}
	from := i
	if len(possessed) > 0 {
		from = start + 1
	}
	pred := clauseText[toks[from][0]:]
	may := rulesFor(clauseText, keyed)
	c.claims = readClaims(pred, clauseText[toks[i][0]:], len(possessed) > 0, w == "i'd" || w == "we'd", may)
	// "My flat is in Berlin" says where I live.
	if len(possessed) > 0 && subset(c.subject, homeWords()) {
		c.subject = nil
	}
	for k := range c.claims {
		if c.claims[k].owner == nil {
			continue
		}
		who := c.subject
		if c.self != "" {
			who = map[string]bool{c.self: true}
		}
		c.claims[k].val = value{text: joinSorted(who), words: who}
	}
	for _, r := range replacedRes() {
		if !may(r.keys) {
			continue
		}
		if m := r.re.FindStringSubmatch(pred); m != nil {
			if v := claimValue(m[1]); len(v.words) > 0 {
				c.replaced = append(c.replaced, v)
			}
		}
	}
	// Only now the clause reads: a clause that does not costs nothing more.
	c.words = wordSet(clauseText)
	if may(markerKeys) {
		if m := markerRe().FindString(clauseText); m != "" {
			c.marker = strings.ToLower(m)
		}
	}
	c.additive = may(additiveKeys) && additiveRe().MatchString(clauseText)
	return c, true
}

// readClaims applies the frames to a clause's predicate; may says which
// rules the clause holds the keys of.
func readClaims(pred, verbPhrase string, possessed, wish bool, may func(literal) bool) []claim {
	var out []claim
	seen := map[string]bool{}
	at := 0
	add := func(cl claim) {
		if len(cl.val.words) == 0 || seen[cl.slot] {
			return
		}
		seen[cl.slot] = true
		cl.negated = negatedAt(pred, at)
		out = append(out, cl)
	}
	for _, f := range frames() {
		if !may(f.keys) {
			continue
		}
		m := f.re.FindStringSubmatchIndex(pred)
		if m == nil {
			continue
		}
		at = m[0]
		groups := submatches(pred, m)
		slot := f.slot
		var v value
		switch f.slot {
		case "port":
			v = claimValue(firstNonEmpty(groups...))
		case "version":
			if len(groups) == 2 {
				if stopValue()[strings.ToLower(groups[0])] || determiners()[strings.ToLower(groups[0])] || calendarWords()[strings.ToLower(groups[0])] {
					continue
				}
				slot += ":" + strings.ToLower(groups[0])
				v = value{text: groups[1], words: set(groups[1])}
			} else {
				v = value{text: groups[0], words: set(groups[0])}
			}
		case "host":
			if obj := wordSet(groups[0]); len(obj) > 0 {
				slot += ":" + joinSorted(obj)
			}
			v = claimValue(groups[1])
		case "use":
			if strings.HasPrefix(strings.ToLower(pred[m[0]:m[1]]), "used to") {
				continue
			}
			v = claimValue(groups[0])
			slot += ":" + purpose(groups[0])
		default:
			v = claimValue(groups[0])
		}
		cl := claim{slot: slot, single: f.single, val: v}
		if f.slot != "use" {
			// The scope follows the value: "work for X" is no purpose.
			from := m[0]
			for g := 2; g+1 < len(m); g += 2 {
				if m[g] >= 0 {
					from = m[g]
				}
			}
			cl.scope = scope(pred[from:])
		}
		add(cl)
	}
	if m := submatchIf(!wish && may(preferenceKeys), preferenceRe(), verbPhrase); m != nil {
		rest := verbPhrase[m[2]:m[3]]
		if f := strings.ToLower(firstWord(rest)); f != "to" && f != "it" && f != "that" && f != "this" {
			at = 0
			cl := claim{slot: "preference", val: claimValue(rest)}
			if len(cl.val.words) > 0 {
				cl.negated = negatedAt(verbPhrase, m[2])
				out = append(out, cl)
			}
		}
	}
	if m := submatchIf(may(ownsKeys), ownsRe(), pred); m != nil {
		if obj := claimValue(pred[m[2]:m[3]]); len(obj.words) > 0 {
			out = append(out, claim{slot: "owner", single: true, owner: obj.words, negated: negatedAt(pred, m[0]), val: value{words: map[string]bool{}}})
		}
	}
	at = 0
	if m := copulaRe().FindStringSubmatch(verbPhrase); m != nil && len(out) == 0 {
		v := claimValue(m[1])
		first := strings.ToLower(firstWord(m[1]))
		if len(v.words) > 0 && !strings.HasSuffix(first, "ing") && !strings.HasSuffix(first, "ed") {
			slot := "is"
			if nameLike(m[1], possessed) {
				add(claim{slot: slot, single: true, val: v})
			}
		}
	}
	return out
}

// claimsSomething: the reading sets an attribute or names a replaced value,
// so it could replace a stored fact.
func (r reading) claimsSomething() bool {
	for _, c := range r {
		if len(c.claims) > 0 || len(c.replaced) > 0 {
			return true
		}
	}
	return false
}

// slotWords are words a stored statement of the same attribute likely
// holds, to find it by keyword when it shares no value with the new one.
var slotWords = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"residence": {"live", "lives", "living", "moved", "based", "home"},
		"employer":  {"work", "works", "job", "employer"},
		"port":      {"port"},
		"version":   {"version"},
		"owner":     {"owns", "owned", "owner", "maintained", "maintains", "manages", "managed"},
		"host":      {"deploy", "deployed", "deploys", "hosted"},
		"location":  {"stored", "kept"},
	}
})

// negatedAt: a negation ("no longer", "don't", "used to", "stopped") stands
// within three words before the attribute at i, or "anymore" follows it.
func negatedAt(pred string, i int) bool {
	before := pred[:i]
	if locs := negationRe().FindAllStringIndex(before, -1); len(locs) > 0 {
		between := before[locs[len(locs)-1][1]:]
		if len(text.StatementWordSpans(between)) <= 3 && !strings.Contains(between, ",") {
			return true
		}
	}
	return anymoreRe().MatchString(pred[i:])
}

var anymoreRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(anymore|any more|any longer)\b`) })

// purpose is what a tool is used for ("…for billing"), "" when unsaid.
// scope is the purpose ("for the API") or environment ("in production")
// a value is stated for, "" when unsaid.
func scope(rest string) string {
	if m := envRe().FindStringSubmatch(rest); m != nil {
		return strings.ToLower(m[1])
	}
	return purpose(rest)
}

var envRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:in|on|for)\s+(?:the\s+)?(production|prod|staging|development|dev|tests?|testing|ci|local)\b`)
})

func purpose(rest string) string {
	low := strings.ToLower(rest)
	for _, sep := range []string{" for ", " as "} {
		if i := strings.Index(low, sep); i >= 0 {
			return joinSorted(valuePhrase(rest[i+len(sep):]).words)
		}
	}
	return ""
}

// valuePhrase is the phrase at the start of s, up to a clause boundary or
// a word that starts another phrase ("Porto last month" → "Porto").
func valuePhrase(s string) value {
	var kept []string
	for _, loc := range text.StatementWordSpans(s) {
		if strings.ContainsAny(s[:loc[0]], ",;:()") {
			break
		}
		t := s[loc[0]:loc[1]]
		low := strings.ToLower(t)
		if len(kept) > 0 && (stopValue()[low] || firstPersonWords()[low] != "" || pronouns()[low]) {
			break
		}
		if stopValue()[low] || determiners()[low] {
			if len(kept) == 0 {
				continue
			}
		}
		kept = append(kept, strings.Trim(t, "`"))
		if len(kept) == 4 {
			break
		}
	}
	text := strings.Join(kept, " ")
	return value{text: text, words: wordSet(text)}
}

// claimValue is the value phrase a claim gives (valuePhrase), or none when
// it opens with a personal pronoun: "it works for you" and "I work for
// them now" name someone only through context the heuristic lacks. A
// purpose keeps its pronoun ("as they can damage it"): it only tells
// claims apart.
func claimValue(s string) value {
	v := valuePhrase(s)
	if f, _, _ := strings.Cut(v.text, " "); personalPronouns()[strings.ToLower(f)] {
		return value{}
	}
	return v
}

// personalPronouns stand for a person or thing named elsewhere.
var personalPronouns = sync.OnceValue(func() map[string]bool {
	return set("i", "me", "myself", "we", "us", "ourselves", "you", "yourself", "yourselves", "he", "him", "himself",
		"she", "herself", "it", "itself", "they", "them", "themselves")
})

// nameLike is a value that names one thing: a name, a number, a code span
// or a single word — "main", "Postgres", "5" — not a description.
func nameLike(s string, lowerOK bool) bool {
	f := firstWord(s)
	if f == "" {
		return false
	}
	r := []rune(f)[0]
	if unicode.IsUpper(r) || unicode.IsDigit(r) || r == '`' {
		return true
	}
	return lowerOK && len(text.StatementWordSpans(valuePhrase(s).text)) == 1 && !determiners()[strings.ToLower(f)] &&
		!intensifiers()[strings.ToLower(f)]
}

var intensifiers = sync.OnceValue(func() map[string]bool {
	return set("so", "very", "really", "pretty", "super", "too", "quite", "not", "always", "also", "just", "still",
		"a", "an", "the", "going", "getting", "doing", "kind", "sort", "more", "less", "much", "such", "gonna", "happy", "glad", "sure")
})

func firstWord(s string) string {
	return text.FirstStatementWord(s)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func submatches(s string, m []int) []string {
	var out []string
	for i := 2; i+1 < len(m); i += 2 {
		if m[i] < 0 {
			out = append(out, "")
			continue
		}
		out = append(out, s[m[i]:m[i+1]])
	}
	return out
}

// wordSet is the lowercase content words of s, without function words; a
// plural "s" is dropped so "servers" meets "server".
func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, t := range text.StatementWords(s) {
		t = strings.ToLower(strings.Trim(t, "`"))
		if stopwords()[t] || determiners()[t] || stopValue()[t] || firstPersonWords()[t] != "" {
			continue
		}
		if len(t) > 3 && strings.HasSuffix(t, "s") && !strings.HasSuffix(t, "ss") {
			t = strings.TrimSuffix(t, "s")
		}
		out[t] = true
	}
	return out
}

func joinSorted(m map[string]bool) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, " ")
}

func set(words ...string) map[string]bool {
	out := make(map[string]bool, len(words))
	for _, w := range words {
		out[w] = true
	}
	return out
}

package model

import (
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/store"
)

// Reasons the heuristic gives for what it keeps and skips. Tests and the
// labelled corpus read them; they are the rules a user can check.
const (
	ReasonDurable     = "durable statement"
	ReasonHarness     = "agent harness envelope (command, shell output, notice)"
	ReasonCode        = "code"
	ReasonOutput      = "pasted output (log, trace, diff, listing)"
	ReasonLayout      = "heading or table row"
	ReasonInjection   = "addresses the model or the system (injected instruction)"
	ReasonQuestion    = "question"
	ReasonCutOff      = "introduces a list or block, cut mid-way"
	ReasonShort       = "too short to stand alone"
	ReasonLong        = "too long for one statement"
	ReasonSymbols     = "mostly symbols, paths or numbers"
	ReasonChatter     = "chatter, greeting or thanks"
	ReasonCommand     = "command or request to the agent"
	ReasonPlan        = "plan or next step"
	ReasonTransient   = "transient state or a one-off report"
	ReasonToAgent     = "addressed to the agent"
	ReasonNoStatement = "states no preference, fact, rule or decision"
	ReasonTentative   = "a guess or an open question, not a settled statement"
	ReasonFragment    = "a fragment: a condition or reason without its main clause"
	ReasonLanguage    = "not in English: these rules read English (a model provider reads any language)"
)

// AddressesModel reports whether text speaks to a model or the system
// ("ignore previous instructions", "SYSTEM: …", "you are now …") rather
// than about the world (graph.AddressesModel). The heuristic never keeps
// such text as a fact.
func AddressesModel(text string) bool { return graph.AddressesModel(text) }

// injectionRe is the detector AddressesModel uses, for the heuristic's
// judge.
func injectionRe() interface{ MatchString(string) bool } { return graph.InjectionPattern() }

// Words that open a command or request rather than a statement.
var imperative = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"add": true, "build": true, "change": true, "check": true, "create": true, "delete": true, "do": true,
		"explain": true, "find": true, "fix": true, "give": true, "help": true, "implement": true, "install": true,
		"let's": true, "lets": true, "list": true, "look": true, "make": true, "move": true, "open": true, "please": true,
		"refactor": true, "remove": true, "rename": true, "run": true, "show": true, "start": true, "stop": true,
		"tell": true, "test": true, "try": true, "update": true, "use": true, "write": true, "go": true, "read": true,
		"keep": true, "ensure": true, "set": true, "put": true, "push": true, "commit": true, "merge": true, "revert": true,
		"debug": true, "review": true, "append": true, "report": true, "summarize": true, "summarise": true, "describe": true,
		"document": true, "capture": true, "outline": true, "enumerate": true, "include": true, "wrap": true, "point": true,
		"target": true, "structure": true, "contrast": true, "compare": true, "analyze": true, "analyse": true, "note": true,
		"pay": true, "focus": true, "double-check": true, "verify": true, "pretend": true, "hand": true, "have": true,
		"call": true, "send": true, "spawn": true, "wait": true, "continue": true, "proceed": true, "clean": true,
		"close": true, "deploy": true, "edit": true, "mark": true, "print": true, "replace": true, "search": true,
		"copy": true, "paste": true, "bump": true, "drop": true, "skip": true, "avoid": true, "don't": true, "dont": true,
		"remember": true, "ask": true, "work": true, "tidy": true, "consider": true, "insert": true, "generate": true,
		"finish": true, "complete": true, "wire": true,
	}
})

// Words that open a subordinate clause: a sentence that starts with one
// and has no comma lacks its main clause ("If not it should.").
var subordinate = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"if": true, "unless": true, "although": true, "though": true, "whereas": true, "because": true,
		"while": true, "whether": true, "once": true, "otherwise": true,
	}
})

// Words that open a question.
var questionWord = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"what": true, "why": true, "how": true, "when": true, "where": true, "who": true, "which": true, "whose": true,
		"is": true, "are": true, "does": true, "did": true, "can": true, "could": true, "would": true, "will": true,
		"should": true, "shall": true, "may": true, "do": true, "have": true, "has": true, "was": true, "were": true,
	}
})

// Greetings, thanks, acknowledgements and interjections.
var chatter = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"hi": true, "hello": true, "hey": true, "thanks": true, "thank": true, "ok": true, "okay": true, "yes": true,
		"no": true, "sure": true, "great": true, "cool": true, "nice": true, "perfect": true, "lgtm": true, "yep": true,
		"nope": true, "good": true, "awesome": true, "wow": true, "oops": true, "hmm": true, "well": true, "alright": true,
		"right": true, "done": true, "yeah": true, "sorry": true, "ah": true, "oh": true, "lol": true, "excellent": true,
		"expected": true, "interesting": true, "got": true, "bye": true, "cheers": true, "warmup": true,
	}
})

var (
	// A plan or a next step: what someone is about to do, not how things are.
	planRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(i'll|i will|i'm going to|i am going to|i'm gonna|let me|let's|lets|we'll|we're going to|we are going to|next,? |now,? |then,? |first,? |finally,? |after that|i need to|i have to|i want to|i'd like to|i would like|we need to|i'm about to|going to|time to|starting with)\b` +
			`|\b(i'll|i will|we'll) (now|next|then|first)\b|\bnext step\b`)
	})
	// Transient state and one-off reports: true for a moment, not for good.
	transientRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(right now|at the moment|for now|just now|so far|this time|still|yet|anymore|again|today|tonight|currently (running|failing|broken)|seems?|seem to|seemed|appears? to|looks like|doesn'?t (seem|work|start)|isn'?t working|not working|is (running|failing|compiling|broken|stuck|done|ready|loading|hanging)|are (running|failing|stuck|done|ready)|in progress|stale)\b` +
			`|^(i|we)('ve| have)? (just |already )?(added|fixed|ran|created|removed|updated|changed|pushed|merged|committed|deleted|tried|checked|looked|found|got|wrote|made|finished|completed|saw|noticed)\b` +
			`|^(it|this|that) (is|was) (checked out|done|finished|fixed|broken|failing|passing)\b|\b(all|both) (\d+ )?(tests?|checks?) pass`)
	})
	// A request phrased as a question or with please.
	requestRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(can|could|would|will) (you|we)\b|^(please|pls|kindly)\b|\b(can|could|would) you\b|\bi want you to\b|\bi need you to\b|\bmake sure\b|\bgo ahead\b|\bfeel free\b`)
	})
	// Standing rules open like commands but are conventions.
	standingRuleRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^(always|never)\b`) })
	// A statement says how something is, what someone prefers or owns, what
	// holds as a rule, or what was decided and why.
	durableRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(am|is|are|was|were|be|been|has|have|had|isn't|aren't|wasn't|doesn't|don't|prefer|prefers|preferred|like|likes|love|loves|hate|hates|dislike|dislikes|use|uses|used|live|lives|lived|work|works|worked|moved|own|owns|owned|need|needs|want|wants|lead|leads|leading|started|joined|left|switched|migrated|chose|choose|decided|agreed|speak|speaks|study|studies|believe|know|called|named|born|allergic|based|run|runs|manage|manages|maintain|maintains|deploy|deploys|deployed|host|hosts|hosted|depend|depends|require|requires|required|must|should|always|never|because|since|so that|lives|target|targets|support|supports|ship|ships|pin|pins|pinned|'m|'re|'s|'ve)\b`)
	})
)

// judge decides whether a unit is a durable statement, and says why.
func judge(u unit) (keep bool, reason string) {
	switch u.Kind {
	case kindHarness:
		return false, ReasonHarness
	case kindCode:
		return false, ReasonCode
	case kindOutput:
		return false, ReasonOutput
	case kindHeading, kindTable:
		return false, ReasonLayout
	}
	raw := strings.TrimSpace(u.statement())
	if injectionRe().MatchString(raw) {
		return false, ReasonInjection
	}
	if latinShare(raw) < 0.5 {
		return false, ReasonLanguage
	}
	s := strings.TrimSpace(inlineCodeRe().ReplaceAllString(raw, "x"))
	if s == "" {
		return false, ReasonShort
	}
	if strings.Contains(s, "?") {
		return false, ReasonQuestion
	}
	if strings.HasSuffix(s, ":") || strings.HasSuffix(s, ",") || enumCutRe().MatchString(s) {
		return false, ReasonCutOff
	}
	// "Note that …", "FYI, …": a lead-in that hands the agent a fact; the
	// rules judge what follows it (the fact keeps its whole text).
	if loc := leadInRe().FindStringIndex(s); loc != nil && loc[1] < len(s) {
		s = strings.TrimSpace(s[loc[1]:])
	}
	words := strings.Fields(s)
	first := strings.ToLower(strings.Trim(words[0], ",.!;:\"'()*_"))
	if chatter()[first] || chatterRe().MatchString(s) {
		return false, ReasonChatter
	}
	if len(words) < 4 {
		return false, ReasonShort
	}
	if len(words) > 80 {
		return false, ReasonLong
	}
	if symbolShare(s) > 0.3 {
		return false, ReasonSymbols
	}
	if requestRe().MatchString(s) {
		return false, ReasonCommand
	}
	if designChangeRe().MatchString(s) {
		return true, ReasonDurable
	}
	if planRe().MatchString(s) {
		return false, ReasonPlan
	}
	if first == "you" || first == "your" {
		return false, ReasonToAgent
	}
	if questionWord()[first] && !standingRuleRe().MatchString(s) && !imperative()[first] {
		return false, ReasonQuestion
	}
	if imperative()[first] && !standingRuleRe().MatchString(s) {
		return false, ReasonCommand
	}
	if transientRe().MatchString(s) {
		return false, ReasonTransient
	}
	if tentativeRe().MatchString(s) {
		return false, ReasonTentative
	}
	if subordinate()[first] && !strings.ContainsAny(s, ",;") && !strings.Contains(strings.ToLower(s), " then ") {
		return false, ReasonFragment
	}
	if !durableRe().MatchString(s) {
		return false, ReasonNoStatement
	}
	return true, ReasonDurable
}

var (
	leadInRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(note that|please note that|remember that|keep in mind that|for the record,?|fyi,?|just so you know,?|btw,?|by the way,?)\s+`)
	})
	tentativeRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(maybe|perhaps|probably|might|i think|i guess|i suppose|not sure|wondering|i wonder|curious whether|curious if)\b`)
	})
	// "I need to know: 1." — a numbered list begun and cut off.
	enumCutRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(:|\b(are|is|include|includes|following))\s*\(?\d{1,2}[.)]?$`)
	})
	chatterRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(thank you|thanks|that'?s (great|perfect|it|all)|looks (good|great|right|fine)|sounds (good|great)|makes sense|well done|good job|nice work|no worries)\b`)
	})
)

// latinShare is the share of letters that are Latin: the rules' words
// are English, so text in another script cannot be judged by them.
func latinShare(s string) float64 {
	latin, letters := 0, 0
	for _, r := range s {
		if !unicode.IsLetter(r) {
			continue
		}
		letters++
		if unicode.Is(unicode.Latin, r) {
			latin++
		}
	}
	if letters == 0 {
		return 1
	}
	return float64(latin) / float64(letters)
}

// symbolShare is the share of non-space runes that are not letters: pasted
// paths, hashes and tables are mostly symbols.
func symbolShare(s string) float64 {
	letters, total := 0, 0
	for _, r := range s {
		if unicode.IsSpace(r) {
			continue
		}
		total++
		if unicode.IsLetter(r) || r == '\'' || r == '.' || r == ',' {
			letters++
		}
	}
	if total == 0 {
		return 1
	}
	return 1 - float64(letters)/float64(total)
}

// designChangeRe matches a user stating a change of design: "I want to
// update my spec to use events", "we need to switch the queue from Redis
// to NATS". It reads like a plan but it is a decision about the project.
var designChangeRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(i|we) (want|need|'d like|would like|have decided|decided) to (change|update|switch|move|rename|replace|drop|migrate|rewrite|restructure)\b.{3,}\b(to|from|instead of|with)\b.{3,}`)
})

var (
	userDecisionRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(decided|decide|chose|choose|went with|go with|going with|settled on|switch(ed)? (to|from)|migrated (to|from)|instead of|rather than|from now on)\b|^(i|we) (want|need|'d like|would like) to (change|update|switch|move|rename|replace|drop|migrate|rewrite|restructure)\b`)
	})
	userRuleRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(always|never)\b|\b(prefer|prefers|preferred|like|likes|love|hate|dislike|must|should|always|never|convention|don'?t use|do not use)\b`)
	})
)

// StatementKind says what kind of knowledge a durable statement is: a
// decision, a rule or preference, or a fact (store.Kinds).
func StatementKind(s string) string {
	switch {
	case userDecisionRe().MatchString(s):
		return store.KindDecision
	case userRuleRe().MatchString(s):
		return store.KindRule
	}
	return store.KindFact
}

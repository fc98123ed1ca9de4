package integrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store"
)

// Mention is an entity named by a fact.
type Mention struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	Role      string `json:"role,omitempty"`
	IsSubject bool   `json:"is_subject,omitempty"`
}

// SelfName is the display name of the entity that stands for the store's
// owner.
const SelfName = "the user"

// Canonical is an entity's canonical name: lower(trim(name)).
func Canonical(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// Fold is the comparison key that treats case, whitespace, hyphens,
// underscores and stray punctuation alike ("Acme Corp" = "acme-corp").
func Fold(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// HeuristicMentions finds the entities a fact names, for precision over
// coverage: code spans, file paths, module paths, hosts and dotted names
// ("Fly.io" stays whole), CamelCase and snake_case identifiers, names of
// packages, and runs of capitalised words that are not common English
// words, months, weekdays, placeholders or all-caps emphasis. A lone
// capitalised word that starts a sentence is taken only with a cue that it
// names someone. A type is given only on evidence — a person in a "<Name>: "
// speaker position, after a greeting or a word for a person, or before a
// verb of saying; a place after a verb of living or going; an organization
// after a word of employment or before a company suffix; a project before
// "migration", "service" and the like — else "thing". A first-person
// statement names its speaker ("I", or the "<Name>: " speaker) as subject.
func HeuristicMentions(content string) []Mention {
	type found struct {
		m   Mention
		pos int
	}
	var all []found
	seen := map[string]bool{}
	add := func(m Mention, pos int) {
		m.Name = strings.TrimSpace(m.Name)
		if m.Name == "" || len(m.Name) > 120 || seen[Fold(m.Name)] {
			return
		}
		seen[Fold(m.Name)] = true
		all = append(all, found{m, pos})
	}
	text := content
	if m := mentionDate().FindStringIndex(text); m != nil {
		text = text[m[1]:]
	}
	body := text
	if m := speakerPrefix().FindStringSubmatchIndex(text); m != nil && lineSpeaker(text) != "" {
		name := text[m[2]:m[3]]
		body = text[m[1]:]
		sp := Mention{Name: name, Type: "person", Role: "speaker"}
		if firstPerson().MatchString(leadIn().ReplaceAllString(body, "")) {
			sp.Role, sp.IsSubject = "subject", true
		}
		add(sp, -1)
	} else if firstPerson().MatchString(leadIn().ReplaceAllString(text, "")) {
		add(Mention{Name: "I", Type: "person", Role: "subject", IsSubject: true}, -1)
	}
	// Structured names first; their text is blanked so their parts are not
	// read again as capitalised words.
	work := []byte(body)
	blank := func(a, b int) {
		for i := a; i < b; i++ {
			work[i] = ' '
		}
	}
	// A redaction marker ("[REDACTED:github_token]") names what was removed,
	// not a thing the fact is about.
	for _, loc := range redactionMarker().FindAllIndex(work, -1) {
		blank(loc[0], loc[1])
	}
	for _, loc := range pathSpans(body) {
		add(Mention{Name: body[loc[0]:loc[1]], Type: "thing", Role: "mention"}, loc[0])
		blank(loc[0], loc[1])
	}
	for _, re := range structured() {
		for _, loc := range re.FindAllSubmatchIndex(work, -1) {
			a, b := loc[0], loc[1]
			for g := 2; g+1 < len(loc); g += 2 {
				if loc[g] >= 0 {
					a, b = loc[g], loc[g+1]
					break
				}
			}
			name := strings.Trim(string(work[a:b]), "`'\".,;:()[]{}")
			if strings.TrimSpace(name) != "" && !placeholder(name) && !commonWord(name) {
				add(Mention{Name: name, Type: "thing", Role: "mention"}, a)
			}
			blank(loc[0], loc[1])
		}
	}
	starts := sentenceStarts(body)
	lastPerson := ""
	for _, loc := range capRun().FindAllIndex(work, -1) {
		for _, span := range nameSpans(body, loc[0], loc[1], starts) {
			a, b := span[0], span[1]
			name := body[a:b]
			before, after := body[:a], body[b:]
			cuePerson := personCue().MatchString(before) || greetingCue().MatchString(before) || sayingNext().MatchString(after)
			if starts[a] && !strings.Contains(name, " ") && !cuePerson && !innerCapital(name) {
				continue // "Coffee is…": a lone sentence-initial word is usually not a name
			}
			typ := "thing"
			switch {
			case cuePerson:
				typ = "person"
			case orgSuffix().MatchString(after), orgName().MatchString(name):
				typ = "organization"
			case projectNext().MatchString(after):
				typ = "project"
			case orgCue().MatchString(before), atAfterPerson(before, lastPerson):
				typ = "organization"
			case placeCue().MatchString(before):
				typ = "place"
			}
			if typ == "person" {
				lastPerson = name
			}
			add(Mention{Name: name, Type: typ, Role: "mention"}, a)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].pos < all[j].pos })
	out := make([]Mention, 0, len(all))
	for i, f := range all {
		// A statement not in the first person is about the name it opens with.
		if i == 0 && f.pos == 0 {
			f.m.Role, f.m.IsSubject = "subject", true
		}
		out = append(out, f.m)
	}
	return out
}

var (
	capRun = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b[A-Z][\p{L}0-9]*(?:['’]s)?(?:[ -][A-Z][\p{L}0-9]*(?:['’]s)?)*\b`)
	})
	redactionMarker = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[REDACTED(?::[^\]\s]{0,64})?\]`) })
	mentionDate     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[[^\]]{1,40}\]\s*`) })
	leadIn          = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s*(?:(?:(?:last|this|next)\s+(?:week|month|year|spring|summer|autumn|fall|winter|weekend)|yesterday|today|recently|lately|these days|nowadays|so|well|also|actually|btw|anyway|honestly|now)[,\s]+)*`)
	})
	firstPerson = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(i|i'm|i've|i'd|i'll|my|me|we|we're|we've|our)\b`)
	})
	personCue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(colleague|friend|manager|boss|wife|husband|partner|sister|brother|mother|father|mom|mum|dad|son|daughter|teammate|coworker|co-worker|named|called|mr\.?|mrs\.?|ms\.?|dr\.?|uncle|aunt|cousin|grandma|grandpa|neighbou?r|mentor|girlfriend|boyfriend)\s+$`)
	})
	greetingCue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:^|[^\p{L}])(hey|hi|hello|thanks|thank you|dear|congrats|congratulations|bye|sorry|cheers|welcome)[,!]?\s+$`)
	})
	sayingNext = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:['’]s\s+(?:wife|husband|partner|son|daughter|kids?|children|mom|dad|mother|father|sister|brother|friend|birthday|family)\b|\s+(?:said|says|told|tells|asked|asks|thinks|thought|wrote|writes|wants|mentioned|suggested|recommended|reviewed|replied|agreed|called|texted|emailed|owns|leads|manages|maintains|reviews|approves|is responsible)\b)`)
	})
	orgName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\s(corp|corporation|inc|ltd|llc|gmbh|labs|university)$`)
	})
	orgSuffix = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s+(corp|corporation|inc|ltd|llc|gmbh|labs|university)\b`)
	})
	orgCue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(work|works|working|worked|job|employed|intern|interning|hired|employer)\s+(at|for|by)\s+$|\bjoined\s+$`)
	})
	placeCue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b((live|lives|lived|living|based|born|grew up|raised|settled|stayed|vacation|holiday|holidays)\s+in|(moved|moving|relocated|relocating|flew|flying|drove|travel(l)?ed|travel(l)?ing|trip|went|going|road trip)\s+to|visit|visited|visiting|i'm from|am from|is from|are from|come from|comes from)\s+$`)
	})
	projectNext = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s+(migration|project|service|app|team|release|launch)\b`)
	})
	atPerson = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s+at\s+$`) })
)

// structured are names with a shape of their own: code spans, module and
// file paths, URLs' hosts, dotted names, identifiers and named packages.
var structured = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile("`([^`\\n]{1,80})`"),
		regexp.MustCompile(`\bhttps?://([A-Za-z0-9.-]+)[^\s]*`),
		regexp.MustCompile(`@[\w-]+/[\w.-]+`),
		regexp.MustCompile(`\b[A-Za-z][\w-]*[A-Za-z0-9](?:\.[A-Za-z][\w-]*[A-Za-z0-9])+\b`),
		regexp.MustCompile(`\b[a-z]+(?:[A-Z][a-z0-9]*)+\b`),
		regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`),
		regexp.MustCompile(`(?i)\b(?:package|module|crate|library|gem|plugin)\s+([a-z][\w.-]*)|\b([a-z][\w.-]*)\s+(?:package|module|crate|library|gem|plugin)\b`),
	}
})

// nameSpans splits a run of capitalised words at the words that are not
// names (common words, months, placeholders, emphasis) and returns the
// spans left.
func nameSpans(s string, a, b int, starts map[int]bool) [][2]int {
	var out [][2]int
	start, end := -1, -1
	for _, w := range wordSpans(s[a:b]) {
		ws, we := a+w[0], a+w[1]
		word := strings.TrimSuffix(strings.TrimSuffix(s[ws:we], "'s"), "’s")
		we = ws + len(word)
		l := strings.ToLower(word)
		if word == "I" || text.IsStopword(l) || interjections()[l] || starts[ws] && commonWord(word) ||
			placeholder(word) || calendarWords()[l] || calendarWords()[strings.TrimSuffix(l, "s")] || emphasis(word) {
			if start >= 0 {
				out = append(out, [2]int{start, end})
			}
			start = -1
			continue
		}
		if start < 0 {
			start = ws
		}
		end = we
	}
	if start >= 0 {
		out = append(out, [2]int{start, end})
	}
	return out
}

func wordSpans(s string) [][2]int {
	var out [][2]int
	start := -1
	for i, r := range s {
		if r == ' ' || r == '-' {
			if start >= 0 {
				out = append(out, [2]int{start, i})
			}
			start = -1
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

// sentenceStarts marks the offsets where a sentence begins.
func sentenceStarts(s string) map[int]bool {
	out := map[int]bool{0: true}
	for _, m := range sentenceBreak().FindAllStringIndex(s, -1) {
		out[m[1]] = true
	}
	return out
}

var sentenceBreak = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:[.!?…:;]+["')\]]*\s+|\n\s*(?:[-*>]\s+|\d+[.)]\s+)?|^\s*(?:[-*>]\s+|\d+[.)]\s+)|\s[-–—]\s+|["“(]\s*)`)
})

// atAfterPerson reads "Robin at Acme": a name right after a person and
// "at" is where the person works.
func atAfterPerson(before, person string) bool {
	if person == "" || !atPerson().MatchString(before) {
		return false
	}
	return strings.HasSuffix(strings.TrimSuffix(strings.TrimRight(before, " "), " at"), person)
}

// innerCapital is a name with a capital or digit inside ("GitHub",
// "macOS", "S3"): a name even where a sentence starts.
func innerCapital(name string) bool {
	for i, r := range name {
		if i > 0 && (unicode.IsUpper(r) || unicode.IsDigit(r)) {
			return true
		}
	}
	return false
}

// pathSpans finds file and module paths: a word with a slash that starts
// at the root, home or here ("/etc/hosts", "~/.config", "./cmd"), has two
// slashes ("github.com/a/b") or ends in a file name ("integrate/dedupe.go");
// a trailing "/..." is left out. "and/or" is no path.
func pathSpans(s string) [][2]int {
	var out [][2]int
	for _, loc := range wordish().FindAllStringIndex(s, -1) {
		a, b := loc[0], loc[1]
		for a < b && strings.ContainsRune("`'\"([{<", rune(s[a])) {
			a++
		}
		for b > a && strings.ContainsRune("`'\")]}>.,;:!?", rune(s[b-1])) {
			b--
		}
		w := s[a:b]
		if strings.Contains(w, "://") || !strings.Contains(w, "/") {
			continue
		}
		for strings.HasSuffix(w, "/...") {
			w = strings.TrimSuffix(w, "/...")
		}
		w = strings.TrimSuffix(w, "/")
		last := w[strings.LastIndex(w, "/")+1:]
		rooted := strings.HasPrefix(w, "/") || strings.HasPrefix(w, "~/") || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../")
		if rooted || strings.Count(w, "/") >= 2 || fileName().MatchString(last) {
			if len(strings.Trim(w, "/.~")) > 1 {
				out = append(out, [2]int{a, a + len(w)})
			}
		}
	}
	return out
}

var (
	wordish  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\S+`) })
	fileName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\w.-]*\w\.[A-Za-z0-9]{1,5}$`) })
)

// commonWord is an English function word or a word that opens sentences
// and replies ("Thanks", "Wow", "Instead"); never a name on its own.
func commonWord(w string) bool {
	l := strings.ToLower(strings.Trim(w, "'’"))
	return text.IsStopword(l) || commonWords()[l]
}

// emphasis is a common word in capitals ("NOT", "NEVER", "IMPORTANT").
func emphasis(w string) bool {
	if len(w) < 2 || strings.ToUpper(w) != w {
		return false
	}
	l := strings.ToLower(w)
	return commonWords()[l] || text.IsStopword(l) || emphasisWords()[l]
}

// placeholder is a stand-in for removed text ("REDACTED", "[redacted]",
// "TODO"), not a name.
func placeholder(w string) bool {
	l := strings.ToLower(strings.Trim(w, "[]<>*_ "))
	return placeholders()[l] || strings.HasPrefix(l, "redacted")
}

var placeholders = sync.OnceValue(func() map[string]bool {
	return set("redacted", "redaction", "placeholder", "todo", "fixme", "xxx", "tbd", "n/a", "na", "null", "nil", "none", "undefined", "secret", "token", "password", "hidden", "removed", "omitted", "snip", "elided")
})

var emphasisWords = sync.OnceValue(func() map[string]bool {
	return set("important", "note", "warning", "must", "never", "always", "only", "all", "every", "yes", "no", "ok", "okay", "done", "fixed", "new", "old", "edit", "update", "nb", "ps", "fyi", "asap", "lol", "omg", "wtf", "btw", "imo", "imho", "tl;dr", "tldr", "eta", "faq", "diy", "aka", "etc", "am", "pm", "gmt", "utc")
})

// interjections are never names, wherever they stand ("Oh, Hey Mel").
var interjections = sync.OnceValue(func() map[string]bool {
	return set("thanks", "thank", "wow", "oh", "ah", "aw", "aww", "hey", "hi", "hello", "yes", "yeah", "yep", "ok", "okay",
		"sure", "lol", "haha", "omg", "congrats", "congratulations", "please", "sorry", "cheers", "bye", "instead", "here", "there")
})

// commonWords are frequent English words that start sentences and replies
// — interjections, discourse words, adverbs, imperative verbs and common
// adjectives — a general list, not one drawn from any data set.
var commonWords = sync.OnceValue(func() map[string]bool {
	return set(
		"thanks", "thank", "wow", "oh", "ah", "aw", "aww", "awww", "hey", "hi", "hello", "yes", "yeah", "yep", "yup", "nope", "ok", "okay", "sure",
		"well", "hmm", "hm", "um", "uh", "haha", "hahaha", "lol", "omg", "whoa", "ugh", "oops", "alright", "cool", "nice", "great", "awesome",
		"amazing", "wonderful", "fantastic", "lovely", "perfect", "good", "bad", "sorry", "please", "congrats", "congratulations", "cheers", "bye",
		"goodbye", "welcome", "dear", "instead", "here", "there", "also", "anyway", "anyways", "btw", "actually", "absolutely", "definitely",
		"totally", "really", "maybe", "perhaps", "probably", "certainly", "exactly", "indeed", "agreed", "right", "true", "false", "today",
		"tomorrow", "yesterday", "tonight", "now", "then", "next", "first", "second", "third", "last", "finally", "still", "already", "soon",
		"later", "recently", "lately", "currently", "usually", "sometimes", "often", "always", "never", "every", "everyone", "everything",
		"someone", "something", "anything", "nothing", "nobody", "somebody", "anybody", "everybody", "let", "let's", "lets", "check", "see",
		"look", "make", "use", "run", "add", "fix", "try", "remember", "note", "keep", "set", "get", "go", "come", "take", "give", "tell",
		"ask", "find", "show", "read", "write", "open", "close", "start", "stop", "wait", "move", "put", "call", "done", "glad", "happy",
		"sad", "sounds", "looks", "seems", "guess", "think", "hope", "wish", "love", "like", "know", "want", "need", "feel", "got", "gotta",
		"gonna", "wanna", "did", "does", "do", "is", "are", "was", "were", "will", "would", "can", "could", "should", "must", "may", "might",
		"shall", "what", "when", "where", "which", "who", "whom", "whose", "why", "how", "whoever", "whatever", "whenever", "wherever",
		"however", "although", "though", "because", "since", "unless", "while", "whereas", "if", "so", "but", "and", "or", "nor", "yet",
		"plus", "besides", "meanwhile", "otherwise", "therefore", "thus", "hence", "overall", "basically", "honestly", "seriously",
		"literally", "obviously", "clearly", "apparently", "hopefully", "luckily", "unfortunately", "fortunately", "sadly", "interestingly",
		"speaking", "talking", "regarding", "about", "after", "before", "during", "until", "with", "without", "within", "for", "from",
		"into", "onto", "over", "under", "between", "through", "across", "around", "along", "near", "by", "via", "per", "like", "unlike",
		"this", "that", "these", "those", "it", "its", "it's", "he", "she", "they", "we", "you", "your", "yours", "my", "mine", "our",
		"ours", "his", "her", "hers", "their", "theirs", "me", "him", "them", "us", "i'm", "i've", "i'd", "i'll", "you're", "you've",
		"you'll", "he's", "she's", "they're", "we're", "that's", "there's", "here's", "what's", "it'll", "isn't", "don't", "doesn't",
		"didn't", "can't", "won't", "wouldn't", "shouldn't", "couldn't", "no", "not", "none", "all", "some", "any", "many", "much", "more",
		"most", "few", "less", "least", "each", "both", "either", "neither", "other", "another", "such", "same", "own", "only", "just",
		"even", "very", "too", "quite", "rather", "pretty", "enough", "almost", "again", "ever", "once", "twice", "new", "old", "big",
		"small", "little", "long", "short", "high", "low", "best", "better", "worst", "worse", "sweet", "fun", "funny", "cute", "beautiful",
		"interesting", "important", "hard", "easy", "super", "totally", "yay", "woohoo", "hooray", "bravo", "ooh", "ahh", "mhm", "nah",
		"sir", "madam", "folks", "guys", "morning", "afternoon", "evening", "night", "mr", "mrs", "ms", "dr",
	)
})

// ResolveEntity finds or creates the entity row for (name, type). An exact
// canonical match wins; otherwise a fold match binds only when exactly one
// row of a compatible type has that fold, so two rows already stored apart
// are never joined. A fold match records the spelling as an alias.
func ResolveEntity(ctx context.Context, tx *store.Tx, name, typ string) (int64, error) {
	name, typ = strings.TrimSpace(name), entityType(typ)
	if isSelfName(name) {
		return selfEntity(ctx, tx)
	}
	id, how, err := lookupEntity(ctx, tx, name, typ)
	if err != nil {
		return 0, err
	}
	switch how {
	case matchExact:
		return id, nil
	case matchFold:
		res, err := tx.ExecContext(ctx, `INSERT INTO entity_aliases(entity_id, alias, fold) VALUES (?,?,?) ON CONFLICT DO NOTHING`, id, name, Fold(name))
		if err != nil {
			return 0, fmt.Errorf("add alias %q: %w", name, err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			if err := store.LogMutation(ctx, tx, "alias", fmt.Sprintf("entity:%d", id), "integrate/resolve",
				fmt.Sprintf("%q folds to the one stored %s of that spelling", name, typ), ""); err != nil {
				return 0, err
			}
		}
		return id, nil
	}
	id, _, err = tx.InsertID(ctx, "id", `INSERT INTO entities(type, name, canonical, fold, is_self, created_at) VALUES (?,?,?,?,0,?)`,
		typ, name, Canonical(name), Fold(name), store.Now())
	if err != nil {
		return 0, fmt.Errorf("create entity %q: %w", name, err)
	}
	return id, nil
}

type entityMatch int

const (
	matchNone entityMatch = iota
	matchExact
	matchFold
)

func entityType(typ string) string {
	typ = strings.ToLower(strings.TrimSpace(typ))
	if typ == "" {
		return "thing"
	}
	return typ
}

func isSelfName(name string) bool {
	return Canonical(name) == SelfName || strings.EqualFold(name, "user") || isFirstPerson(name)
}

// lookupEntity applies the resolution rules without writing.
func lookupEntity(ctx context.Context, q querier, name, typ string) (int64, entityMatch, error) {
	canon, fold := Canonical(name), Fold(name)
	var id int64
	err := q.QueryRowContext(ctx, `SELECT id FROM entities WHERE canonical = ? AND type = ?`, canon, typ).Scan(&id)
	if err == nil {
		return id, matchExact, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, matchNone, fmt.Errorf("resolve entity %q: %w", name, err)
	}
	if fold == "" {
		return 0, matchNone, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT id, type FROM entities WHERE fold = ? AND is_self = 0
		UNION SELECT e.id, e.type FROM entity_aliases a JOIN entities e ON e.id = a.entity_id WHERE a.fold = ? AND e.is_self = 0`, fold, fold)
	if err != nil {
		return 0, matchNone, fmt.Errorf("resolve entity %q: %w", name, err)
	}
	defer rows.Close()
	var cands []int64
	for rows.Next() {
		var cid int64
		var ctype string
		if err := rows.Scan(&cid, &ctype); err != nil {
			return 0, matchNone, fmt.Errorf("resolve entity %q: %w", name, err)
		}
		if ctype == typ || ctype == "thing" || typ == "thing" {
			cands = append(cands, cid)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, matchNone, fmt.Errorf("resolve entity %q: %w", name, err)
	}
	if len(cands) == 1 {
		return cands[0], matchFold, nil
	}
	return 0, matchNone, nil
}

// findEntity is ResolveEntity without writing: ok is false when the name
// would create a new row.
func findEntity(ctx context.Context, q querier, name, typ string) (int64, bool, error) {
	name, typ = strings.TrimSpace(name), entityType(typ)
	if isSelfName(name) {
		var id int64
		err := q.QueryRowContext(ctx, `SELECT id FROM entities WHERE is_self = 1`).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, fmt.Errorf("find self entity: %w", err)
		}
		return id, true, nil
	}
	id, how, err := lookupEntity(ctx, q, name, typ)
	return id, how != matchNone, err
}

func selfEntity(ctx context.Context, tx *store.Tx) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM entities WHERE is_self = 1`).Scan(&id)
	if err == nil {
		return id, nil
	}
	if err != sql.ErrNoRows {
		return 0, fmt.Errorf("find self entity: %w", err)
	}
	id, _, err = tx.InsertID(ctx, "id", `INSERT INTO entities(type, name, canonical, fold, is_self, created_at) VALUES ('person', ?, ?, ?, 1, ?)`,
		SelfName, Canonical(SelfName), Fold(SelfName), store.Now())
	if err != nil {
		return 0, fmt.Errorf("create self entity: %w", err)
	}
	return id, nil
}

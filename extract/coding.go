package extract

import (
	"encoding/json"
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/store"
)

// This file reads what a coding session learned from the agent's side of
// it, without a model: the compaction summary the agent's own model wrote,
// the causes and fixes the agent reports, its plan or todo list with each
// item's status, and its commits. In a coding session the user mostly asks
// ("fix the build", "check again") and the agent writes down what was
// found and done, so this is where the session's knowledge is.
//
// Every fact names its project (the last element of the session's working
// directory) so it reads right in another session's context, carries a
// kind (store.Kinds), and cites the event it came from. Narration, plans
// that were not carried out, tool output and code stay out.

// IsCompactionSummary reports whether ev is a compaction summary: the
// agent's model summarising the session when its context filled (Claude
// Code's isCompactSummary record, Codex's local compaction, Gemini's
// compression), stored as an artifact.
func IsCompactionSummary(ev store.Event) bool {
	if ev.EventType != "artifact" || ev.ContentType != "text" {
		return false
	}
	var meta struct {
		Compact bool `json:"compact_summary"`
	}
	return json.Unmarshal(ev.Metadata, &meta) == nil && meta.Compact
}

// projectLabel is the name a fact gives its project: the last element of
// the session's working directory, or "" when it is unknown.
func projectLabel(dir string) string {
	dir = strings.TrimRight(strings.ReplaceAll(dir, `\`, "/"), "/")
	if dir == "" {
		return ""
	}
	base := path.Base(dir)
	if base == "." || base == "/" {
		return ""
	}
	return base
}

// subjectPrefix opens a fact about the project: "spotter: ".
func subjectPrefix(project string) string {
	if project == "" {
		return ""
	}
	return project + ": "
}

// codingFacts reads the agent's side of one conversation group.
func codingFacts(g Group) []Candidate {
	project := projectLabel(g.Project)
	var out []Candidate
	add := func(ev store.Event, kind, content string) {
		content = strings.TrimSpace(content)
		if content == "" {
			return
		}
		// The agent's side of the session, a compaction summary included
		// (the agent's model wrote it), is the assistant's word.
		out = append(out, Candidate{Content: content, Kind: kind, Confidence: 0.6, Importance: kindImportance(kind), EventIDs: []int64{ev.Seq},
			SpeakerRole: "assistant"})
	}
	lastPlan := -1
	for i, ev := range g.Events {
		switch {
		case IsCompactionSummary(ev):
			for _, f := range summaryFacts(ev.Content, project) {
				add(ev, f.kind, f.text)
			}
		case ev.Role == "assistant" && ev.EventType == "message" && ev.ContentType == "text":
			for _, f := range reportFacts(ev.Content, project, turnEnd(g.Events, i)) {
				add(ev, f.kind, f.text)
			}
		case ev.EventType == "tool_call":
			if _, ok := planItems(ev.Content); ok {
				lastPlan = i
				continue
			}
			if f, ok := commitFact(ev.Content, project); ok {
				add(ev, store.KindDone, f)
			}
		}
	}
	if lastPlan >= 0 {
		ev := g.Events[lastPlan]
		items, _ := planItems(ev.Content)
		for _, it := range items {
			if !changeStep(it.text) {
				continue
			}
			switch it.status {
			case "completed", "done":
				add(ev, store.KindDone, subjectPrefix(project)+"done: "+it.text)
			case "pending", "in_progress", "in-progress", "todo":
				add(ev, store.KindTask, subjectPrefix(project)+"task: "+it.text)
			}
		}
	}
	return dedupeCandidates(out)
}

// kindImportance ranks what a returning developer needs first: open work,
// decisions and fixes above descriptions.
func kindImportance(kind string) float64 {
	switch kind {
	case store.KindTask, store.KindDecision, store.KindRule:
		return 0.7
	case store.KindFix:
		return 0.65
	}
	return 0.5
}

// dedupeCandidates drops a candidate whose content an earlier one has.
func dedupeCandidates(cs []Candidate) []Candidate {
	seen := map[string]bool{}
	out := cs[:0]
	for _, c := range cs {
		d := store.Digest(c.Content)
		if seen[d] {
			continue
		}
		seen[d] = true
		out = append(out, c)
	}
	return out
}

// turnEnd reports whether the assistant message at i ends its turn: the
// next message of the group is the user's, or there is none.
func turnEnd(evs []store.Event, i int) bool {
	for _, ev := range evs[i+1:] {
		if ev.EventType != "message" {
			continue
		}
		return ev.Role == "user"
	}
	return true
}

// fact is one statement found, with its kind.
type fact struct {
	kind, text string
}

var (
	// A section heading of a summary: "2. Key Technical Concepts:",
	// "## Errors and fixes".
	headingLineRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:\d{1,2}\.\s+|#{1,4}\s+)(?:\*\*)?([A-Za-z][^:*#]{2,60}?)(?:\*\*)?:?\s*$`)
	})
	bulletRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\s*)[-*•]\s+(.*)$`) })
	boldRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\*\*([^*]+)\*\*`) })
)

// sectionKind maps a summary heading to the kind of its items, or "" for
// a section that holds nothing to remember (the current step, the user's
// messages restated, the summariser's own analysis).
func sectionKind(heading string) string {
	h := strings.ToLower(heading)
	switch {
	case strings.Contains(h, "current work") || strings.Contains(h, "next step") || strings.Contains(h, "user message") ||
		strings.Contains(h, "analysis") || strings.Contains(h, "optional"):
		return ""
	case strings.Contains(h, "error") || strings.Contains(h, "fix") || strings.Contains(h, "bug") || strings.Contains(h, "issue"):
		return store.KindFix
	case strings.Contains(h, "pending") || strings.Contains(h, "todo") || strings.Contains(h, "remaining") || strings.Contains(h, "open task") ||
		strings.Contains(h, "outstanding"):
		return store.KindTask
	case strings.Contains(h, "decision"):
		return store.KindDecision
	case strings.Contains(h, "problem solving") || strings.Contains(h, "concept") || strings.Contains(h, "technical") ||
		strings.Contains(h, "architecture") || strings.Contains(h, "learn"):
		return store.KindFact
	case strings.Contains(h, "file") || strings.Contains(h, "code section"):
		return "file"
	case strings.Contains(h, "request") || strings.Contains(h, "intent") || strings.Contains(h, "goal"):
		return "goal"
	}
	return ""
}

// summaryFacts reads a compaction summary: its errors and fixes, pending
// tasks, decisions, how problems were solved, the technical concepts that
// are stated as facts, the files it names with what they hold, and the
// session's goal. The summariser's analysis before "Summary:" is skipped:
// the summary proper restates what it found.
func summaryFacts(text, project string) []fact {
	if i := strings.Index(text, "\nSummary:"); i >= 0 {
		text = text[i+len("\nSummary:"):]
	}
	text = strings.ToValidUTF8(text, "\uFFFD")
	var out []fact
	kind := ""
	inFence := false
	var item []string // the current top-level item and its sub-items
	itemIndent := 0
	flush := func() {
		if len(item) == 0 {
			return
		}
		if f, ok := summaryItem(kind, item, project); ok {
			out = append(out, f)
		}
		item = nil
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if m := headingLineRe().FindStringSubmatch(line); m != nil {
			flush()
			kind = sectionKind(m[1])
			continue
		}
		if kind == "" {
			continue
		}
		if m := bulletRe().FindStringSubmatch(line); m != nil {
			indent := len(m[1])
			if len(item) == 0 || indent <= itemIndent {
				flush()
				item, itemIndent = []string{m[2]}, indent
				continue
			}
			item = append(item, m[2])
			continue
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			flush()
			continue
		}
		if kind == "goal" || kind == store.KindFact {
			// Prose under a heading: each paragraph is an item.
			if len(item) == 0 {
				item, itemIndent = []string{trimmed}, 0
			} else {
				item[0] += " " + trimmed
			}
		}
	}
	flush()
	return out
}

// summaryItem turns one item of a summary section into a fact.
func summaryItem(kind string, item []string, project string) (fact, bool) {
	head := cleanMarkdown(item[0])
	if head == "" || noneRe().MatchString(head) {
		return fact{}, false
	}
	// A lead-in to a list ("Major changes for all 3 tasks:") says nothing
	// by itself; a fix or task item may go on in its sub-items.
	if strings.HasSuffix(head, ":") && (len(item) == 1 || kind == "goal" || kind == "file" || kind == store.KindFact) {
		return fact{}, false
	}
	switch kind {
	case "goal":
		s := firstSentences(head, 2, 320)
		if len(strings.Fields(s)) < 5 {
			return fact{}, false
		}
		return fact{store.KindFact, subjectPrefix(project) + "session goal: " + s}, true
	case "file":
		// "path — what it holds": the path and its first sentence; the
		// changes listed under it are too detailed to stand alone.
		name, desc, ok := splitNamed(head)
		if !ok || !looksLikePath(name) || len(strings.Fields(desc)) < 2 {
			return fact{}, false
		}
		return fact{store.KindFact, subjectPrefix(project) + "file " + name + ": " + firstSentences(desc, 2, 240)}, true
	case store.KindFact:
		if !statesSomething(head) {
			return fact{}, false
		}
		if len(item) > 1 && strings.HasSuffix(head, ":") {
			return fact{}, false // a lead-in to its sub-items
		}
		return fact{factKind(head), subjectPrefix(project) + capLen(head, 400)}, true
	case store.KindFix, store.KindTask, store.KindDecision:
		if kind == store.KindFix && intendedRe().MatchString(strings.Join(item, " ")) {
			return fact{}, false
		}
		text := head
		// A fix item often puts the fix in its sub-items.
		for _, sub := range item[1:] {
			if len(text) > 400 {
				break
			}
			sub = cleanMarkdown(sub)
			if sub == "" {
				continue
			}
			if strings.HasSuffix(text, ":") {
				text += " " + sub
			} else {
				text += "; " + sub
			}
		}
		if len(strings.Fields(text)) < 4 {
			return fact{}, false
		}
		prefix := subjectPrefix(project)
		if kind == store.KindTask {
			prefix += "task: "
		}
		return fact{kind, prefix + capLen(text, 480)}, true
	}
	return fact{}, false
}

// cleanMarkdown drops bold markers and surrounding space; code spans stay.
func cleanMarkdown(s string) string {
	s = boldRe().ReplaceAllString(s, "$1")
	return strings.TrimSpace(strings.ReplaceAll(s, "**", ""))
}

// splitNamed splits "name — description" or "name: description".
func splitNamed(s string) (name, desc string, ok bool) {
	for _, sep := range []string{" — ", " – ", " - ", ": "} {
		if i := strings.Index(s, sep); i > 0 {
			name = strings.Trim(strings.TrimSpace(s[:i]), "`")
			desc = strings.TrimSpace(s[i+len(sep):])
			if name != "" && desc != "" {
				return name, desc, true
			}
		}
	}
	return "", "", false
}

// looksLikePath reports whether s names a file: no spaces, and a slash or
// an extension.
func looksLikePath(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t") {
		return false
	}
	return strings.Contains(s, "/") || strings.Contains(path.Base(s), ".")
}

// looksLikeName reports whether s names a component: one word (an
// identifier, a file, a command) or a code span.
func looksLikeName(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || utf8.RuneCountInString(s) > 60 {
		return false
	}
	if strings.HasPrefix(s, "`") && strings.HasSuffix(s, "`") {
		return true
	}
	return !strings.ContainsAny(s, " \t")
}

// firstSentences returns up to n sentences of s, at most max bytes.
func firstSentences(s string, n, max int) string {
	var b strings.Builder
	for i, sent := range splitSentences(s) {
		if i == n || b.Len()+len(sent) > max {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(sent)
	}
	if b.Len() == 0 {
		return capLen(s, max)
	}
	return b.String()
}

// capLen cuts s at a word boundary to at most max bytes, marking the cut.
func capLen(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := truncateUTF8(s, max)
	if i := strings.LastIndexByte(cut, ' '); i > max/2 {
		cut = cut[:i]
	}
	return cut + " …"
}

var (
	// A statement rather than a noun phrase: it has a verb that says how
	// things are or what is done.
	statementRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(is|are|was|were|uses?|used|needs?|needed|requires?|required|must|should|prefers?|supports?|doesn'?t|don'?t|isn'?t|aren'?t|cannot|can'?t|runs?|established|means|keeps?|stores?|returns?|holds?|lives?|works?|fails?|failed|breaks?|broke|avoids?|replaces?|replaced)\b`)
	})
	decisionMarkRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(decided|decision|chose|chosen|went with|go with|opted|settled on|switched (to|from)|instead of|rather than|in favou?r of)\b`)
	})
	ruleMarkRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(always|never|must|should|required|convention|established that|pattern for)\b`)
	})
)

// statesSomething reports whether s is a statement of five words or more.
func statesSomething(s string) bool {
	return len(strings.Fields(s)) >= 5 && statementRe().MatchString(s)
}

// factKind tells a decision or a rule from a plain fact by its words.
func factKind(s string) string {
	switch {
	case decisionMarkRe().MatchString(s):
		return store.KindDecision
	case ruleMarkRe().MatchString(s):
		return store.KindRule
	}
	return store.KindFact
}

var (
	// A report of a cause or a fix: what failed and why, what was missing,
	// what the fix was.
	causeRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(fixed (it |this |that |the \w+ )?by|the fix (is|was)|(root )?cause (is|was)|caused by|fail(s|ed)? because|because of|does(n'?t| not) support|is(n'?t| not) supported|not supported (by|in|on)|turned out|(is|was|were|are) missing|resolved by|work(s|ed)? around|workaround|will fail|fails? (on|when|if|with)|can(no|')t (access|find|load|resolve|read|see)|(is|was) (not|never) (set|called|loaded|registered|configured))\b`)
	})
	// Narration, plans and acknowledgements: the agent saying what it is
	// about to do or that something went as expected.
	narrationRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(let me|let's|now|next|first|then|i'll|i will|i'm going|i am going|i need|i should|we need|we should|i'?ve|i have|i see|i can|i think|good|great|perfect|ok|okay|done|right|expected|still|all|both|looks|this|that|these|those|it|they|there|here|which|so|but|and|also|yes|no)\b`)
	})
)

// reportFacts reads an agent's message for the causes and fixes it
// reports, and — in the report that ends a turn — the components it lists
// as built ("`ReviewTokenStore` — ETS-backed GenServer for …"), under the
// heading that says what they were for.
func reportFacts(text, project string, end bool) []fact {
	text = strings.ToValidUTF8(text, "\uFFFD")
	text = fencedRe().ReplaceAllString(text, "\n\n")
	var out []fact
	heading := ""
	var para []string
	flushPara := func() {
		if len(para) == 0 {
			return
		}
		for _, s := range splitSentences(strings.Join(para, " ")) {
			if f, ok := causeSentence(s, project); ok {
				out = append(out, f)
			}
		}
		para = nil
	}
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			flushPara()
			continue
		}
		if h, ok := headingText(trimmed); ok {
			flushPara()
			heading = h
			continue
		}
		if m := bulletRe().FindStringSubmatch(line); m != nil {
			flushPara()
			item := cleanMarkdown(m[2])
			if f, ok := causeSentence(item, project); ok {
				out = append(out, f)
				continue
			}
			if !end {
				continue
			}
			name, desc, ok := splitNamed(item)
			if !ok || !looksLikeName(name) || len(strings.Fields(desc)) < 4 || !unicode.IsUpper(firstRune(desc)) {
				continue
			}
			s := subjectPrefix(project) + name + " — " + capLen(desc, 300)
			if heading != "" {
				s += " (" + heading + ")"
			}
			out = append(out, fact{store.KindFact, s})
			continue
		}
		para = append(para, trimmed)
	}
	flushPara()
	return out
}

// noneRe matches an item that says a section is empty.
var noneRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(none|n/a|nothing|no (explicit |open |outstanding |remaining |further )*(pending )?(tasks?|errors?|issues?|fixes|decisions?)\b)`)
})

// midNarrationRe finds the agent narrating inside a sentence ("…, but
// let me try python3"): a report that is still a step in progress.
var midNarrationRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(let me|let's|i'll|i will|i'm going to)\b`)
})

// intendedRe marks an error that was meant to happen (a demonstration, a
// test of error handling): no fix, nothing to remember.
var intendedRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(expected error|intentional(ly)?|as expected|on purpose|deliberately)\b`)
})

var fencedRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?s)```.*?(```|$)") })

// headingText returns a markdown heading's or a bold line's words.
func headingText(line string) (string, bool) {
	if strings.HasPrefix(line, "#") {
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		return cleanMarkdown(h), h != ""
	}
	if strings.HasPrefix(line, "**") && strings.HasSuffix(strings.TrimSuffix(line, ":"), "**") && strings.Count(line, "**") == 2 {
		return strings.TrimSuffix(cleanMarkdown(line), ":"), true
	}
	return "", false
}

// causeSentence keeps a sentence that reports a cause or a fix and names
// its subject: not narration, not a pronoun without its referent, not
// code.
func causeSentence(s, project string) (fact, bool) {
	s = strings.TrimSpace(s)
	words := strings.Fields(s)
	if len(words) < 6 || len(words) > 70 || strings.HasSuffix(s, "?") || strings.HasSuffix(s, ":") {
		return fact{}, false
	}
	if !causeRe().MatchString(s) || narrationRe().MatchString(strings.TrimLeft(s, "*_`\"' ")) || midNarrationRe().MatchString(s) {
		return fact{}, false
	}
	if model.AddressesModel(s) || symbolShareOf(s) > 0.3 {
		return fact{}, false
	}
	kind := store.KindFix
	if decisionMarkRe().MatchString(s) && !strings.Contains(strings.ToLower(s), "fix") {
		kind = store.KindDecision
	}
	return fact{kind, subjectPrefix(project) + s}, true
}

func firstRune(s string) rune {
	s = strings.TrimLeft(s, "`*_\"'(")
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// symbolShareOf is the share of non-space runes outside code spans that
// are neither letters nor ordinary punctuation.
func symbolShareOf(s string) float64 {
	letters, total := 0, 0
	inCode := false
	for _, r := range s {
		if r == '`' {
			inCode = !inCode
			continue
		}
		if inCode || unicode.IsSpace(r) {
			continue
		}
		total++
		if unicode.IsLetter(r) || strings.ContainsRune("'.,;:()-—", r) {
			letters++
		}
	}
	if total == 0 {
		return 1
	}
	return 1 - float64(letters)/float64(total)
}

// splitSentences splits prose after terminal punctuation followed by a
// space, never inside a code span.
func splitSentences(p string) []string {
	var out []string
	start := 0
	inCode := false
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '`':
			inCode = !inCode
		case '.', '!', '?':
			if inCode || i+1 >= len(p) || p[i+1] != ' ' {
				continue
			}
			// "e.g. " and "i.e. " end nothing.
			if i >= 3 && (strings.EqualFold(p[i-3:i+1], "e.g.") || strings.EqualFold(p[i-3:i+1], "i.e.")) {
				continue
			}
			if s := strings.TrimSpace(p[start : i+1]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(p[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// planItem is one step of a plan or todo list with its status.
type planItem struct {
	text, status string
}

// planItems reads a plan or todo list tool call: Claude Code's TodoWrite
// (todos: content, status) and Codex's update_plan (plan: step, status).
func planItems(content string) ([]planItem, bool) {
	var call struct {
		Name  string `json:"name"`
		Input struct {
			Todos []struct {
				Content string `json:"content"`
				Status  string `json:"status"`
			} `json:"todos"`
			Plan []struct {
				Step   string `json:"step"`
				Status string `json:"status"`
			} `json:"plan"`
		} `json:"input"`
	}
	if json.Unmarshal([]byte(content), &call) != nil {
		return nil, false
	}
	var out []planItem
	switch call.Name {
	case "TodoWrite":
		for _, t := range call.Input.Todos {
			out = append(out, planItem{strings.TrimSpace(t.Content), strings.ToLower(t.Status)})
		}
	case "update_plan":
		for _, t := range call.Input.Plan {
			out = append(out, planItem{strings.TrimSpace(t.Step), strings.ToLower(t.Status)})
		}
	default:
		return nil, false
	}
	return out, true
}

// changeStep reports whether a plan step changes the project (add, fix,
// update …) rather than looks at it (read, inspect, review …): only
// changes are work worth remembering as open or done.
func changeStep(s string) bool {
	words := strings.Fields(strings.ToLower(s))
	if len(words) < 3 {
		return false
	}
	return changeVerbs()[strings.Trim(words[0], ",.:;")]
}

var changeVerbs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"add": true, "implement": true, "fix": true, "update": true, "remove": true, "delete": true, "create": true,
		"write": true, "refactor": true, "rename": true, "move": true, "replace": true, "migrate": true, "unify": true,
		"set": true, "bump": true, "upgrade": true, "downgrade": true, "introduce": true, "extract": true, "split": true,
		"merge": true, "support": true, "enable": true, "disable": true, "wire": true, "port": true, "convert": true,
		"drop": true, "extend": true, "document": true, "deprecate": true, "harden": true, "handle": true, "switch": true,
		"change": true, "adjust": true, "configure": true, "install": true, "patch": true, "build": true, "persist": true,
	}
})

var (
	heredocRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)<<-?\s*['"]?(\w+)['"]?\s*\n(.*?)\n\s*(\w+)\s*(\n|\)|$)`)
	})
	dashMRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)(?:^|\s)-(?:[a-zA-Z]*m|-message(?:=|\s))\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')`)
	})
	trailerRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Z][A-Za-z-]+(-[A-Za-z]+)*: `)
	})
)

// shellCommand returns the command line of a shell tool call: Claude
// Code's Bash (command), Codex's shell (command as argv, often
// bash -lc "…") and exec tools (cmd).
func shellCommand(content string) string {
	var call struct {
		Input struct {
			Command json.RawMessage `json:"command"`
			Cmd     string          `json:"cmd"`
		} `json:"input"`
	}
	if json.Unmarshal([]byte(content), &call) != nil {
		return ""
	}
	if call.Input.Cmd != "" {
		return call.Input.Cmd
	}
	var s string
	if json.Unmarshal(call.Input.Command, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(call.Input.Command, &argv) == nil && len(argv) > 0 {
		return argv[len(argv)-1]
	}
	return ""
}

// commitFact reads a git commit in a shell tool call: its subject, the
// first paragraph of its body and the files it added.
func commitFact(content, project string) (string, bool) {
	cmd := shellCommand(content)
	i := strings.Index(cmd, "git commit")
	if i < 0 {
		return "", false
	}
	msg := ""
	rest := cmd[i:]
	if m := heredocRe().FindStringSubmatch(rest); m != nil && m[1] == m[3] {
		msg = m[2]
	} else {
		var parts []string
		for _, m := range dashMRe().FindAllStringSubmatch(rest, -1) {
			p := m[1]
			if p == "" {
				p = m[2]
			}
			parts = append(parts, strings.ReplaceAll(p, `\"`, `"`))
		}
		msg = strings.Join(parts, "\n\n")
	}
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	subject := strings.TrimSpace(lines[0])
	if len(strings.Fields(subject)) < 2 || strings.Contains(subject, "$(") {
		return "", false
	}
	var body []string
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		if l == "" {
			if len(body) > 0 {
				break
			}
			continue
		}
		if trailerRe().MatchString(l) {
			break
		}
		body = append(body, l)
	}
	s := subjectPrefix(project) + "commit \"" + subject + "\""
	if len(body) > 0 {
		s += ": " + capLen(strings.Join(body, " "), 360)
	}
	if files := addedFiles(cmd[:i]); len(files) > 0 {
		if len(files) > 6 {
			files = append(files[:6], "…")
		}
		s += " Files: " + strings.Join(files, ", ") + "."
	}
	return s, true
}

// addedFiles lists the paths a `git add` before the commit names.
func addedFiles(cmd string) []string {
	i := strings.LastIndex(cmd, "git add ")
	if i < 0 {
		return nil
	}
	seg := cmd[i+len("git add "):]
	if j := strings.IndexAny(seg, "&;|\n"); j >= 0 {
		seg = seg[:j]
	}
	var out []string
	for _, f := range strings.Fields(seg) {
		if strings.HasPrefix(f, "-") || f == "." || f == "*" {
			continue
		}
		out = append(out, strings.Trim(f, `"'`))
	}
	return out
}

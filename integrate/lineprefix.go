package integrate

import (
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/recollect/recollect/store"
)

// A captured fact is often a line pasted from a chat or a meeting log —
// "[8 May 2023] Alice: I moved to Porto." — and capture_fact has no
// speaker or said-at argument filled in. Such a line says both itself:
// the name before the colon is who said it, the bracketed date when. The
// integrate stage reads them from the text only when the fact carries no
// speaker or said-at of its own, so the speaker boost and time order work
// for a pasted log as they do for a transcript.

// labelWords are words that open a labelled note rather than name a
// speaker: "Decision: use Postgres" was not said by someone called
// Decision.
var labelWords = sync.OnceValue(func() map[string]bool {
	return set("decision", "decisions", "error", "errors", "warning", "warnings", "update", "updates", "todo",
		"answer", "question", "summary", "result", "results", "output", "input", "context", "goal", "goals", "status",
		"step", "steps", "example", "examples", "reason", "usage", "tip", "tips", "edit", "bug", "bugs", "plan", "fix",
		"note", "notes", "important", "issue", "issues", "problem", "solution", "conclusion", "rationale", "action",
		"actions", "outcome", "info", "debug", "failure", "success", "next", "notice", "caveat", "assumption",
		"constraint", "constraints", "requirement", "requirements", "pros", "cons", "change", "changes", "feature",
		"test", "tests", "build", "deploy", "commit", "branch", "file", "path", "command", "response", "request",
		"prompt", "source", "task", "tasks", "owner", "reminder", "fact", "facts", "preference", "convention", "rule",
		"rules", "lesson", "learned", "workaround", "cause", "symptom", "repro", "expected", "actual", "log", "logs",
		"stack", "trace", "hint", "see", "ref", "re", "subject", "topic", "agenda", "attendees", "date", "time",
		"location", "priority", "severity", "version", "release", "changelog", "breaking", "deprecated", "security",
		"performance", "docs", "documentation", "config", "configuration", "setup", "install", "installation", "env",
		"environment", "tldr", "ps", "nb", "fyi", "q", "a")
})

// lineSpeaker returns the speaker a "[date] Name: text" line names, or ""
// when it names none: the name is one to three capitalised words that are
// neither common words nor the label of a note.
func lineSpeaker(content string) string {
	m := speakerPrefix().FindStringSubmatch(content)
	if m == nil {
		return ""
	}
	name := m[1]
	for _, w := range strings.Fields(name) {
		if commonWord(w) || labelWords()[strings.ToLower(w)] || emphasis(w) || placeholder(w) {
			return ""
		}
	}
	return name
}

// lineDateLayouts are the ways people write a day in a log's brackets.
var lineDateLayouts = []string{
	"2 January 2006", "2 Jan 2006", "January 2, 2006", "Jan 2, 2006", "January 2 2006", "Jan 2 2006",
	"2006-01-02", "2006-01-02 15:04", "2006-01-02 15:04:05", time.RFC3339,
	"3:04 pm on 2 January, 2006", "3:04 pm on 2 January 2006", "Monday, 2 January 2006", "Monday, January 2, 2006",
}

var bracketed = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[([^\]]{1,40})\]`) })

// lineDate returns the day a line's leading "[date]" names, in the store's
// time format, or "" when the brackets hold no date it can read.
func lineDate(content string) string {
	m := bracketed().FindStringSubmatch(content)
	if m == nil {
		return ""
	}
	s := strings.TrimSpace(m[1])
	for _, layout := range lineDateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return store.FormatTime(t)
		}
		if t, err := time.Parse(strings.Replace(layout, "pm", "PM", 1), s); err == nil {
			return store.FormatTime(t)
		}
	}
	return ""
}

// rolePrefix reads the role a chat line opens with, after an optional
// "[date]": "[2023/05/20] user: …" or "assistant: …", the two sides of
// a conversation with a model, named as the store names its events' roles.
var rolePrefix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*(?:\[[^\]]{1,40}\]\s*)?(user|assistant):\s+`)
})

// lineRole returns the role ("user" or "assistant") a "[date] role: text"
// line names, or "" when it names none.
func lineRole(content string) string {
	m := rolePrefix().FindStringSubmatch(content)
	if m == nil {
		return ""
	}
	return strings.ToLower(m[1])
}

// fillFromLine gives a pending fact the speaker or role, and the said-at,
// its own text states, where it has none: a line that opens with a role
// ("Assistant: …") names no person.
func fillFromLine(pf *PendingFact) {
	if pf.Speaker == "" && pf.SpeakerRole == "" {
		pf.SpeakerRole = lineRole(pf.Content)
	}
	if pf.Speaker == "" && lineRole(pf.Content) == "" {
		pf.Speaker = lineSpeaker(pf.Content)
	}
	if pf.SaidAt == "" {
		pf.SaidAt = lineDate(pf.Content)
	}
}

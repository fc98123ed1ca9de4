package store

import "strings"

// The kinds of knowledge a fact can be. Extraction gives each fact one;
// search, inspect and the context hooks show and filter on it. A fact
// stored before kinds existed has none.
const (
	// KindDecision is a choice made, with its reason when one was given.
	KindDecision = "decision"
	// KindFix is a problem met and how it was solved.
	KindFix = "fix"
	// KindRule is a standing rule, convention or preference.
	KindRule = "rule"
	// KindTask is open work: a step planned or left pending.
	KindTask = "task"
	// KindDone is work completed; it supersedes the open task it closes.
	KindDone = "done"
	// KindFact is how something is: a project's setup, a component, a change.
	KindFact = "fact"
	// KindCommand is a command that does a job in a project.
	KindCommand = "command"
)

// Kinds lists every kind, in the order readers show them.
var Kinds = []string{KindTask, KindDecision, KindFix, KindRule, KindCommand, KindFact, KindDone}

// NormalKind returns kind in its stored form: one of Kinds, or "" for a
// kind that is empty or not one of them ("preference" reads as a rule,
// "todo" as a task).
func NormalKind(kind string) string {
	k := strings.ToLower(strings.TrimSpace(kind))
	switch k {
	case "preference", "convention", "rule or preference":
		return KindRule
	case "todo", "pending", "open task":
		return KindTask
	case "completed", "closed":
		return KindDone
	}
	for _, known := range Kinds {
		if k == known {
			return k
		}
	}
	return ""
}

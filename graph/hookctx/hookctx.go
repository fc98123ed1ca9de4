// Package hookctx renders the memory that agent hooks put into an agent's
// context by themselves: the session-start briefing (SessionStart) and the
// few facts relevant to a prompt (UserPromptSubmit), each within a token
// budget, byte-stable for an unchanged store, and only from active facts —
// never a superseded or forgotten one.
//
// It reads the K layer through the caller's graph.Reader (its search, and its
// handle for the few queries of its own) and writes nothing. It does
// not talk to the daemon: the caller asks the daemon about a running
// consolidation and passes what it learned in Consolidation. The hook JSON
// Claude Code reads is built by Output.
package hookctx

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/recollect/recollect/graph"
)

// Default budgets, in estimated tokens (see Tokens).
const (
	DefaultSessionBudget = 1500
	DefaultPromptBudget  = 400
)

// MinBudget is the smallest budget that holds the framing lines and a fact.
const MinBudget = 100

// FactCut bounds one fact's text in the added context, in bytes: one long
// fact must not take the whole budget.
const FactCut = 400

// Tokens estimates what text costs in a prompt: about four bytes a token,
// the estimate search's --budget uses. No tokenizer runs.
func Tokens(text string) int { return (len(text) + 3) / 4 }

// Event names of the hooks whose output Output builds.
const (
	EventSessionStart     = "SessionStart"
	EventUserPromptSubmit = "UserPromptSubmit"
)

// Output is the JSON a Claude Code hook prints to add text to the context:
// {"hookSpecificOutput":{"hookEventName":event,"additionalContext":text}},
// one line. Empty text gives nil: the hook prints nothing at all.
func Output(event, text string) []byte {
	if text == "" {
		return nil
	}
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	b, _ := json.Marshal(struct {
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}{specific{event, text}})
	return append(b, '\n')
}

// Notice is the hook JSON that shows text to the user (Claude Code prints
// a hook's systemMessage) and adds nothing to the agent's context: for a
// session whose memory is withheld, so the user learns why and what to do.
func Notice(text string) []byte {
	b, _ := json.Marshal(struct {
		SystemMessage string `json:"systemMessage"`
	}{text})
	return append(b, '\n')
}

// OutputNotice is Output with a systemMessage that shows notice to the
// user: the hook JSON for a session start that has something to tell the
// user and, perhaps, context for the agent.
func OutputNotice(event, text, notice string) []byte {
	if notice == "" {
		return Output(event, text)
	}
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	var spec *specific
	if text != "" {
		spec = &specific{event, text}
	}
	b, _ := json.Marshal(struct {
		SystemMessage      string    `json:"systemMessage"`
		HookSpecificOutput *specific `json:"hookSpecificOutput,omitempty"`
	}{notice, spec})
	return append(b, '\n')
}

// factLine is one fact as the added context shows it: its id, its day and
// its text quoted as data by graph.Quote (cut to FactCut bytes, so one long
// fact cannot take the whole budget).
func factLine(id int64, when, content string) string {
	line := fmt.Sprintf("- [fact %d]", id)
	if len(when) >= 10 {
		line += " " + when[:10]
	}
	return line + " " + graph.Quote(content, FactCut) + "\n"
}

// budgeted builds text that never exceeds a token budget: a line that does
// not fit is left out and counted.
type budgeted struct {
	b       strings.Builder
	budget  int
	omitted int
}

// fits reports whether s could be added, keeping reserve tokens free.
func (t *budgeted) fits(s string, reserve int) bool {
	return Tokens(t.b.String()+s)+reserve <= t.budget
}

// add appends s when it fits with reserve tokens to spare; otherwise it
// counts s as omitted.
func (t *budgeted) add(s string, reserve int) bool {
	if !t.fits(s, reserve) {
		t.omitted++
		return false
	}
	t.b.WriteString(s)
	return true
}

func (t *budgeted) String() string { return t.b.String() }

package extract

import (
	"strings"
	"testing"

	"github.com/recollect/recollect/store"
)

func TestCommitFact(t *testing.T) {
	for _, tc := range []struct {
		name, content, want string
	}{
		{"heredoc with body and trailer",
			`{"input":{"command":"git add lib/a.ex test/a_test.exs && git commit -m \"$(cat <<'EOF'\nfeat: add lifecycle state (app-1.4)\n\nAnnotations now have a state.\n\nCo-Authored-By: Someone <x@y>\nEOF\n)\""},"name":"Bash"}`,
			`app: commit "feat: add lifecycle state (app-1.4)": Annotations now have a state. Files: lib/a.ex, test/a_test.exs.`},
		{"codex argv with -m",
			`{"input":{"command":["bash","-lc","git commit -am 'fix: retry uploads on 503'"]},"name":"shell"}`,
			`app: commit "fix: retry uploads on 503"`},
		{"two -m paragraphs",
			`{"input":{"command":"git commit -m \"docs: explain the cache\" -m \"The cache holds vectors.\""},"name":"Bash"}`,
			`app: commit "docs: explain the cache": The cache holds vectors.`},
		{"no commit", `{"input":{"command":"git status"},"name":"Bash"}`, ""},
		{"message from a variable", `{"input":{"command":"git commit -m \"$MSG\""},"name":"Bash"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := commitFact(tc.content, "app")
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("commitFact = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}

func TestPlanFactsKeepChangesWithTheirStatus(t *testing.T) {
	g := Group{Project: "/w/tracker", Events: []eventT{
		toolCall(1, `{"input":{"plan":[{"step":"Inspect the repo layout","status":"completed"},{"step":"Update go.mod to go 1.24","status":"in_progress"}]},"name":"update_plan"}`),
		toolCall(2, `{"input":{"plan":[{"step":"Inspect the repo layout","status":"completed"},{"step":"Update go.mod to go 1.24","status":"completed"},{"step":"Add zh-TW notes to the README","status":"pending"}]},"name":"update_plan"}`),
	}}
	var got []string
	for _, c := range codingFacts(g) {
		got = append(got, c.Kind+"|"+c.Content)
	}
	want := []string{"done|tracker: done: Update go.mod to go 1.24", "task|tracker: task: Add zh-TW notes to the README"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("facts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestReportFactsKeepCausesNotNarration(t *testing.T) {
	text := "Let me check the migration first.\n\n" +
		"The auto-generated migration uses `ALTER TABLE ... modify` which SQLite doesn't support for nullability changes. I need to rewrite it.\n\n" +
		"It failed because of the cache.\n\n" +
		"**gqc.7 — Review launch**\n- `ReviewTokenStore` — ETS-backed GenServer for one-time tokens with TTL\n- 3 tests covering the paths\n"
	var got []string
	for _, f := range reportFacts(text, "spotter", true) {
		got = append(got, f.kind+"|"+f.text)
	}
	want := []string{
		"fix|spotter: The auto-generated migration uses `ALTER TABLE ... modify` which SQLite doesn't support for nullability changes.",
		"fact|spotter: ReviewTokenStore — ETS-backed GenServer for one-time tokens with TTL (gqc.7 — Review launch)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("facts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(reportFacts(text, "spotter", false)); n != 1 {
		t.Errorf("mid-turn message gave %d facts, want only the cause (a component list counts at a turn's end)", n)
	}
}

func TestSummaryFactsSkipEmptyAndLeadIns(t *testing.T) {
	text := "Analysis:\n- Errors: scratch notes\n\nSummary:\n1. Pending Tasks:\n   - No explicit pending tasks.\n\n2. Files and Code Sections:\n   - **`lib/x.ex`** — Major changes:\n     - added a field\n   - **`lib/y.ex`** — Holds the parser for invoices.\n"
	var got []string
	for _, f := range summaryFacts(text, "p") {
		got = append(got, f.kind+"|"+f.text)
	}
	want := []string{"fact|p: file lib/y.ex: Holds the parser for invoices."}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("facts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

type eventT = store.Event

func toolCall(seq int64, content string) store.Event {
	return store.Event{Seq: seq, SessionID: "s", Role: "assistant", EventType: "tool_call", ContentType: "json", Content: content}
}

package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// recallStore records three statements and consolidates them.
func recallStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, msg := range []string{"I live in Lisbon.", "My colleague Robin at Acme is leading the Atlas migration.", "I moved to Porto."} {
		if code, _, errs := run(t, "", "--data", dir, "record", "--session-id", "s", "--content", msg); code != 0 {
			t.Fatal(errs)
		}
		if code, _, errs := run(t, "", "--data", dir, "consolidate"); code != 0 {
			t.Fatal(errs)
		}
	}
	return dir
}

func TestRecallCommands(t *testing.T) {
	dir := recallStore(t)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"search follows supersession", []string{"search", "where do I live"},
			[]string{`1. [fact 3] "I moved to Porto."`, `reached through supersession: it replaced [fact 1] "I live in Lisbon."`}},
		{"search history", []string{"search", "--history", "where do I live"},
			[]string{`(SUPERSEDED by fact 3; history, not current) "I live in Lisbon."`}},
		{"search chronological", []string{"search", "--order", "chronological", "Atlas"},
			[]string{" in time order (arms: ", "digest sha256:", "[fact 2] "}},
		{"entity", []string{"entity", "Robin"}, []string{"Entity ", ": Robin (person)", "Atlas (project) — co_mention"}},
		{"entity unknown", []string{"entity", "Lisbon trams"}, []string{`No entity is named "Lisbon trams"`}},
		{"context", []string{"context", "Acme"}, []string{`Context for "Acme"`, "reached by: search: "}},
		{"briefing", []string{"briefing"}, []string{"# Memory briefing", "## Key facts", "## Open threads", "## Recent knowledge"}},
		{"profile", []string{"briefing", "--profile"}, []string{"# Profile", "I moved to Porto."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(t, "", append([]string{"--data", dir}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	_, a, _ := run(t, "", "--data", dir, "briefing")
	_, b, _ := run(t, "", "--data", dir, "briefing")
	if a != b {
		t.Errorf("briefing differs between two runs on the same store")
	}
	_, out, _ := run(t, "", "--data", dir, "search", "--json", "--budget", "30", "Porto")
	var ans struct {
		Results []struct{ ID int64 }  `json:"results"`
		Budget  *struct{ Budget int } `json:"budget"`
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil || ans.Budget == nil || ans.Budget.Budget != 30 {
		t.Errorf("--json --budget: %v\n%s", err, out)
	}
}

func TestRecallCommandsRefuseBadInput(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"search"}, "give a query"},
		{[]string{"search", "--order", "random", "x"}, `--order "random" is unknown`},
		{[]string{"search", "--as-of", "yesterday", "x"}, `--as-of "yesterday" is not a time`},
		{[]string{"search", "--limit", "0", "x"}, "--limit must be positive"},
		{[]string{"entity", "!!"}, "give a name"},
		{[]string{"context"}, "give a topic"},
		{[]string{"context", "--hops", "3", "x"}, "--hops 3 is out of range"},
	}
	for _, tc := range cases {
		code, _, errs := run(t, "", append([]string{"--data", dir}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.msg)
		}
	}
}

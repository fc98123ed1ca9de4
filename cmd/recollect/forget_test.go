package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestForgetCommand(t *testing.T) {
	dir := t.TempDir()
	diskMust(t, dir, "record", "--session-id", "s", "--content", "I am allergic to shellfish, so restaurant suggestions must avoid it.")
	diskMust(t, dir, "record", "--session-id", "s", "--content", "I prefer dark mode in every editor and terminal I use.")
	diskMust(t, dir, "consolidate")

	out := diskMust(t, dir, "forget", "--matching", "shellfish", "--dry-run")
	want := "     1  [general] I am allergic to shellfish, so restaurant suggestions must avoid it.\n" +
		"dry run: nothing deleted; to forget, run recollect forget 1\n"
	if out != want {
		t.Fatalf("dry run printed:\n%q\nwant\n%q", out, want)
	}
	out = diskMust(t, dir, "forget", "--reason", "private", "1")
	want = "forgot fact 1: 9 rows removed (events_fts 1, fact_entities 1, fact_provenance 1, facts 1, facts_fts 1, session_events 1, session_facts 1, session_facts_fts 1, summaries 1)\n" +
		"1 tombstone kept (digest only, no content): the same sentence will not be extracted again\n"
	if out != want {
		t.Fatalf("forget printed:\n%q\nwant\n%q", out, want)
	}
	if _, stderr, code := diskRun(t, dir, "why", "1"); code != 1 || !strings.Contains(stderr, "fact 1: no such fact: it was forgotten at ") {
		t.Errorf("why of a forgotten fact: exit %d, %q", code, stderr)
	}
	if out := diskMust(t, dir, "search", "shellfish"); strings.Contains(out, "allergic") {
		t.Fatalf("search still finds the forgotten fact:\n%s", out)
	}
	if out := diskMust(t, dir, "forget", "--matching", "shellfish", "--dry-run"); out != "no active fact matches \"shellfish\"; nothing would be forgotten\n" {
		t.Fatalf("dry run after forget printed %q", out)
	}

	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"forget"}, 2, "name what to forget: recollect forget FACT_ID…, or --before DATE"},
		{[]string{"forget", "--before", "March"}, 2, `--before "March": write a date (2026-03-01)`},
		{[]string{"forget", "--session", "s", "12"}, 2, "pass either fact ids or selectors"},
		{[]string{"forget", "x1"}, 2, `"x1" is not a fact id`},
		{[]string{"forget", "--", "-1"}, 2, `"-1" is not a fact id`},
		{[]string{"forget", "--matching", "dark"}, 2, "not asked on a non-terminal; pass --yes to forget it, or --dry-run to see what would go"},
		{[]string{"forget", "99"}, 1, "forget fact 99: fact not found; list candidates with recollect forget --matching QUERY --dry-run"},
	} {
		_, errOut, code := diskRun(t, dir, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: status %d, %q; want %d and %q", tc.args, code, errOut, tc.code, tc.msg)
		}
	}
}

// TestForgetSessionCommand: a selector shows what it picks with --dry-run
// and forgets it with --yes, counting rows per table.
func TestForgetSessionCommand(t *testing.T) {
	dir := t.TempDir()
	diskMust(t, dir, "record", "--session-id", "old", "--content", "We deploy the Zephyr billing service with Render every Friday.")
	diskMust(t, dir, "record", "--session-id", "new", "--content", "We moved the Atlas search service to Fly.io last week.")
	diskMust(t, dir, "consolidate")
	out := diskMust(t, dir, "forget", "--session", "old", "--dry-run")
	if !strings.HasPrefix(out, `session "old" picks 1 fact and 1 raw event`+"\n  [fact ") || !strings.Contains(out, "Zephyr") || !strings.HasSuffix(out, "dry run: nothing deleted\n") {
		t.Fatalf("dry run:\n%s", out)
	}
	if out := diskMust(t, dir, "forget", "--before", "36500d", "--dry-run"); !strings.Contains(out, " picks 0 facts and 0 raw events\n") {
		t.Errorf("--before 36500d (a century ago) picked something:\n%s", out)
	}
	diskMust(t, dir, "inspect")
	out = diskMust(t, dir, "forget", "--session", "old", "--yes", "--reason", "asked")
	if page := filepath.Join(dir, "inspect.html"); !strings.Contains(out, "removed "+page+": it showed the store as it was") {
		t.Errorf("forget did not say it removed the inspect page:\n%s", out)
	} else if _, err := os.Stat(page); !os.IsNotExist(err) {
		t.Errorf("inspect.html, which quoted the forgotten session, is still there (%v)", err)
	}
	if !strings.HasPrefix(out, `forgot session "old": 1 fact and 1 raw event`+"\n") || !strings.Contains(out, " rows removed (") || !strings.Contains(out, "session_events 1") {
		t.Fatalf("forget:\n%s", out)
	}
	if out := diskMust(t, dir, "search", "Zephyr"); strings.Contains(out, "Zephyr billing") {
		t.Errorf("search still finds the forgotten session:\n%s", out)
	}
	if out := diskMust(t, dir, "search", "Atlas"); !strings.Contains(out, "Atlas search service") {
		t.Errorf("the other session was forgotten too:\n%s", out)
	}
}

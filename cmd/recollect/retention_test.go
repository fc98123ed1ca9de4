package main

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/recollect/recollect/store/sqlite"
)

// TestRetentionWindowCommands: with retention.window set in config.json
// and nothing deleted, search and the session-start hook leave out what
// happened before the window; stats says what is past it, and prune
// --apply deletes it and says so.
func TestRetentionWindowCommands(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	diskMust(t, dir, "init", "--yes", dir)
	diskMust(t, dir, "record", "--session-id", "old", "--content", "We deploy the Zephyr billing service with Render every Friday.")
	diskMust(t, dir, "record", "--session-id", "new", "--content", "We moved the Atlas search service to Fly.io last week.")
	diskMust(t, dir, "consolidate")
	if out := diskMust(t, dir, "stats"); !strings.Contains(out, "retention    no window (retention.window is unset): nothing expires\n") {
		t.Errorf("stats without a window:\n%s", out)
	}
	// A session happened last year (the transcript's own time).
	age := func(t *testing.T, session string) {
		t.Helper()
		db, err := sqlite.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.ExecContext(ctx, `UPDATE session_events SET occurred_at = '2025-01-10T09:00:00Z' WHERE session_id = ?`, session); err != nil {
			t.Fatal(err)
		}
	}
	age(t, "old")
	when := `\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`
	set := regexp.MustCompile(`1 fact, 1 event and 0 summaries happened before ` + when + `: no read returns them from now on, and the next consolidation \(the daemon runs them by itself\) or recollect prune --apply deletes them for good; recollect settings set retention.window "" undoes this until then\n$`)
	if out := diskMust(t, dir, "settings", "set", "retention.window", "30d"); !set.MatchString(out) {
		t.Errorf("settings set retention.window:\n%s", out)
	}

	if out := diskMust(t, dir, "search", "billing service Render Friday"); strings.Contains(out, "Zephyr") {
		t.Errorf("search returns a fact from before the window:\n%s", out)
	}
	if out := diskMust(t, dir, "search", "search service Fly.io"); !strings.Contains(out, "Atlas") {
		t.Errorf("search no longer finds the fact from within the window:\n%s", out)
	}
	start := `{"hook_event_name":"SessionStart","session_id":"s9","cwd":"/tmp","source":"startup"}`
	code, out, errOut := run(t, start, "hooks", "session-start", "--data", dir)
	if text := additional(t, "SessionStart", out); code != 0 || errOut != "" || strings.Contains(text, "Zephyr") || !strings.Contains(text, "Atlas") {
		t.Errorf("session start under the window: exit %d, stderr %q, context %q", code, errOut, text)
	}
	past := regexp.MustCompile(`retention    window 30d: 1 fact, 1 event and 0 summaries happened before ` + when +
		`; no read returns them, and the next consolidation or recollect prune --apply deletes them\n`)
	if out := diskMust(t, dir, "stats"); !past.MatchString(out) {
		t.Errorf("stats under the window:\n%s", out)
	}
	deleted := regexp.MustCompile(`retention    window 30d: 1 fact, 1 event and 0 summaries happened before ` + when + ` and were deleted \(\d+ rows\)\n`)
	if out := diskMust(t, dir, "prune", "--apply"); !deleted.MatchString(out) {
		t.Errorf("prune under the window:\n%s", out)
	}
	if n := count(t, dir, `SELECT count(*) FROM facts WHERE content LIKE '%Zephyr%'`) + count(t, dir, `SELECT count(*) FROM session_events WHERE content LIKE '%Zephyr%'`); n != 0 {
		t.Errorf("%d rows still hold the text past the window after prune --apply", n)
	}
	if out := diskMust(t, dir, "stats"); !regexp.MustCompile(`retention    window 30d: nothing stored happened before ` + when + `\n`).MatchString(out) {
		t.Errorf("stats after prune:\n%s", out)
	}

	// A consolidation deletes what has passed the window since, and says so.
	diskMust(t, dir, "record", "--session-id", "older", "--content", "The Quokka codebase is indented with tabs, never spaces.")
	diskMust(t, dir, "consolidate")
	age(t, "older")
	run := regexp.MustCompile(`  retention: 1 fact, 1 event and 0 summaries from before ` + when + ` deleted \(retention.window 30d; \d+ rows\)\n`)
	if out := diskMust(t, dir, "consolidate"); !run.MatchString(out) {
		t.Errorf("consolidate under the window:\n%s", out)
	}
	if _, errOut, code := diskRun(t, dir, "settings", "set", "retention.window", "90x"); code == 0 || !strings.Contains(errOut, `"90x" is not a window; write days (90d), weeks (12w) or a duration of at least an hour (2160h)`) {
		t.Errorf("settings retention.window 90x: exit %d, %q", code, errOut)
	}
}

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/recollect/recollect/integrate"
)

// cli runs the app with --data dir and returns stdout, stderr and status.
func runCLI(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	code := Run(context.Background(), append([]string{"recollect", "--data", dir}, args...), env)
	return out.String(), errb.String(), code
}

func TestWhyExplainsSupersession(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []string{"I live in Paris", "I moved to Berlin"} {
		if _, errs, code := runCLI(t, dir, "record", "--session-id", "s1", "--content", s); code != 0 {
			t.Fatalf("record: %s", errs)
		}
	}
	out, errs, code := runCLI(t, dir, "consolidate")
	if code != 0 {
		t.Fatalf("consolidate: %s", errs)
	}
	if !strings.Contains(out, "integrate: 2 claimed, 2 new facts, 0 merged into existing, 1 superseded") {
		t.Errorf("consolidate said:\n%s", out)
	}
	out, _, _ = runCLI(t, dir, "stats")
	if !strings.Contains(out, "facts        1 active, 2 total (1 superseded)") {
		t.Errorf("stats said:\n%s", out)
	}
	out, errs, code = runCLI(t, dir, "why", "1")
	if code != 0 {
		t.Fatalf("why: %s", errs)
	}
	for _, want := range []string{
		"fact 1 [superseded] I live in Paris",
		"  superseded: the current successor is fact 2",
		"event 1 (user): I live in Paris",
		"replaced by:\n  fact 2 [active] I moved to Berlin\n    because: same subject and residence: \"Berlin\" replaces \"Paris\" (integrate/heuristic)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("why 1 lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = runCLI(t, dir, "why", "2")
	for _, want := range []string{"fact 2 [active] I moved to Berlin", "  current: nothing has superseded it", "replaces:\n  fact 1 [superseded] I live in Paris"} {
		if !strings.Contains(out, want) {
			t.Errorf("why 2 lacks %q:\n%s", want, out)
		}
	}
}

func TestWhyBadInput(t *testing.T) {
	dir := t.TempDir()
	diskMust(t, dir, "init", "--yes", dir)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"why"}, 2, "recollect: why: give one fact id, e.g. recollect why 12 (ids are shown by recollect search)\n"},
		{[]string{"why", "abc"}, 2, "recollect: why: \"abc\" is not a fact id; give the number shown by recollect search, e.g. recollect why 12\n"},
		{[]string{"why", "7"}, 1, "recollect: fact 7: no such fact; find ids with recollect search\n"},
	}
	for _, c := range cases {
		_, errs, code := runCLI(t, dir, c.args...)
		if code != c.code || errs != c.want {
			t.Errorf("%v: status %d, stderr %q; want %d, %q", c.args, code, errs, c.code, c.want)
		}
	}
}

func TestConsolidatePrintsIntegrateDetail(t *testing.T) {
	var b bytes.Buffer
	printIntegrateDetail(&b, &integrate.Report{Noop: 1, Conflicts: 2, StageFailures: map[string]int{"supersede": 3, "classify": 1},
		Embedding: &integrate.EmbedReport{Space: "ollama/nomic-embed-text/768", Embedded: 4, Missing: 1, Error: "embed with ollama at http://localhost:11434/api/embed: connection refused"}})
	want := `             1 already known (nothing new to add)
             2 conflicts: two new facts replace the same old one (open threads in the briefing)
             classify stage failed 1 time; the heuristic chose the domain (see stats)
             supersede stage failed 3 times; nothing superseded (see stats)
  embed:     4 facts embedded in ollama/nomic-embed-text/768, 1 still without a vector
             error: embed with ollama at http://localhost:11434/api/embed: connection refused
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

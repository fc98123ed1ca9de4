package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestInspectCommand(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []string{
		"I prefer dark mode in every editor and terminal I use.",
		"My colleague Robin at Acme is leading the Atlas migration to Postgres this quarter.",
		"Could you run the suite again?",
	} {
		diskMust(t, dir, "record", "--session-id", "s", "--content", s)
	}
	diskMust(t, dir, "consolidate")

	out := diskMust(t, dir, "inspect")
	page := filepath.Join(dir, "inspect.html")
	if !regexp.MustCompile(`^wrote ` + regexp.QuoteMeta(page) + ` \(\d+ of \d+ entities drawn, \d+ fact edges\); open it in a browser, it needs no network\n$`).MatchString(out) {
		t.Fatalf("inspect printed %q", out)
	}
	html, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(html), "Atlas migration") {
		t.Fatalf("page not written with the store's facts: %v", err)
	}

	out = diskMust(t, dir, "inspect", "--layer", "k", "--limit", "1")
	if !strings.HasPrefix(out, "K — knowledge (newest 1; 2 facts, 2 active)\nID  STATUS  KIND  DOMAIN") || !strings.Contains(out, "active  fact  general") || !strings.Contains(out, "Atlas migration") || strings.Contains(out, "dark mode") {
		t.Fatalf("--layer k --limit 1 printed:\n%s", out)
	}
	out = diskMust(t, dir, "inspect", "--layer", "d")
	if !strings.HasPrefix(out, "D — raw events (newest 3 of 3)\n") || strings.Index(out, "suite again") > strings.Index(out, "dark mode") {
		t.Fatalf("--layer d is not newest first:\n%s", out)
	}
	out = diskMust(t, dir, "inspect", "--layer", "all")
	for _, want := range []string{"store        ", "D — raw events", "I — extracted facts", "K — knowledge", "entities (best connected", "graph — "} {
		if !strings.Contains(out, want) {
			t.Errorf("--layer all lacks %q", want)
		}
	}
	out = diskMust(t, dir, "inspect", "--layer", "k", "--entity", "robin")
	if !strings.Contains(out, "K — knowledge mentioning robin (newest 1;") || strings.Contains(out, "dark mode") {
		t.Fatalf("--entity robin printed:\n%s", out)
	}
	var js map[string]json.RawMessage
	if err := json.Unmarshal([]byte(diskMust(t, dir, "inspect", "--layer", "graph", "--json")), &js); err != nil || js["graph"] == nil {
		t.Fatalf("--json: %v %v", err, js)
	}
	custom := filepath.Join(t.TempDir(), "page.html")
	out = diskMust(t, dir, "inspect", "--output", custom, "--all")
	if !strings.HasPrefix(out, "wrote "+custom) {
		t.Fatalf("--output printed %q", out)
	}

	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"inspect", "--layer", "x"}, `--layer "x": use health, d, i, k, entities, graph or all`},
		{[]string{"inspect", "--entity", "Nobody"}, `no entity named "Nobody"; run recollect inspect --layer entities to list them`},
		{[]string{"inspect", "--limit", "0"}, "--limit must be a positive number"},
	} {
		_, errOut, code := diskRun(t, dir, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: status %d, %q", tc.args, code, errOut)
		}
	}
}

// TestInspectLayerEitherCase: README calls the layers D, I and K; both
// cases are taken, and a wrong one is named as given.
func TestInspectLayerEitherCase(t *testing.T) {
	dir := t.TempDir()
	diskMust(t, dir, "record", "--session-id", "s", "--content", "We deploy Atlas every Friday.")
	for layer, want := range map[string]string{"K": "K — knowledge", "D": "D — raw events", "I": "I — extracted facts", "Health": "store        "} {
		if out := diskMust(t, dir, "inspect", "--layer", layer); !strings.Contains(out, want) {
			t.Errorf("--layer %s printed:\n%s", layer, out)
		}
	}
	if _, errOut, code := diskRun(t, dir, "inspect", "--layer", "X"); code != 2 || !strings.Contains(errOut, `--layer "X": use health, d, i, k, entities, graph or all`) {
		t.Errorf("--layer X: exit %d, %q", code, errOut)
	}
}

// TestTerminalOutputEscapesControls: an escape sequence stored from a
// transcript is shown as \u001b…, never sent raw to the terminal, by every
// command that prints stored text.
func TestTerminalOutputEscapesControls(t *testing.T) {
	dir := t.TempDir()
	text := "We deploy Atlas \x1b[31mevery\x1b[0m Friday \u009b2J and clear\x7f."
	diskMust(t, dir, "record", "--session-id", "s", "--content", text)
	diskMust(t, dir, "consolidate")
	for _, args := range [][]string{{"inspect", "--layer", "d"}, {"inspect", "--layer", "k"}, {"why", "1"}, {"search", "Atlas"}, {"forget", "--matching", "Atlas", "--dry-run"}} {
		out := diskMust(t, dir, args...)
		if strings.ContainsAny(out, "\x1b\x7f\u009b") {
			t.Errorf("%v printed a raw control character:\n%q", args, out)
		}
		if !strings.Contains(out, `\u001b[31mevery`) && !strings.Contains(out, `\x1b[31mevery`) {
			t.Errorf("%v does not show the escape:\n%s", args, out)
		}
	}
	var page struct {
		D []struct {
			Content string `json:"content"`
		} `json:"d"`
	}
	if err := json.Unmarshal([]byte(diskMust(t, dir, "inspect", "--layer", "d", "--json")), &page); err != nil || len(page.D) != 1 {
		t.Fatalf("--json: %v %+v", err, page)
	}
	// inspect's snippets are display text on every output, the page's JSON
	// too: the escape shows as \x1b, never as the raw byte.
	if c := page.D[0].Content; strings.ContainsAny(c, "\x1b\x7f\u009b") || !strings.Contains(c, `\x1b[31mevery`) {
		t.Errorf("--json content %q", c)
	}
}

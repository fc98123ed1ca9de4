package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/recollect/recollect/store/sqlite"
)

// TestConflictsCommand lists a conflict, refuses bad resolutions with exit
// 2 and a line that says what to do, and resolves it. The conflict row is
// written directly (a model's supersession makes them; integrate's tests
// cover that path); the facts come through record and consolidate.
func TestConflictsCommand(t *testing.T) {
	dir := t.TempDir()
	diskMust(t, dir, "init", "--yes")
	for _, s := range []string{"I use VS Code for everything.", "Neovim is my main editor now.", "Helix is my main editor now."} {
		diskMust(t, dir, "record", "--session-id", "s1", "--content", s)
	}
	diskMust(t, dir, "consolidate")
	db, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	id := func(content string) int64 {
		var n int64
		if err := db.QueryRow(`SELECT id FROM facts WHERE content = ?`, content).Scan(&n); err != nil {
			t.Fatalf("fact %q: %v", content, err)
		}
		return n
	}
	vscode, neovim, helix := id("I use VS Code for everything."), id("Neovim is my main editor now."), id("Helix is my main editor now.")
	if _, err := db.Exec(`UPDATE facts SET status = 'superseded', superseded_by = ? WHERE id = ?`, neovim, vscode); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO conflicts(fact_id, other_id, target_id, reason, created_at) VALUES (?,?,?,'new editor','2026-03-04T10:00:00Z')`, helix, neovim, vscode); err != nil {
		t.Fatal(err)
	}
	db.Close()

	want := fmt.Sprintf(`conflict 1 (2026-03-04T10:00:00Z, open): two facts both replace fact %d "I use VS Code for everything."
  fact %d [active] Neovim is my main editor now.   (replaced it first)
  fact %d [active] Helix is my main editor now.   (claims it too)
  resolve: recollect conflicts resolve --keep %d 1 (or --keep %d, or --both)
`, vscode, neovim, helix, neovim, helix)
	if out := diskMust(t, dir, "conflicts"); out != want {
		t.Fatalf("conflicts:\n%s\nwant:\n%s", out, want)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"conflicts", "resolve", "1"}, "conflicts resolve: say how it ends: --keep FACT_ID (that fact is current) or --both (both stand)"},
		{[]string{"conflicts", "resolve", "1", "--both", "--keep", fmt.Sprint(neovim)}, "conflicts resolve: choose one of --keep FACT_ID or --both, not both"},
		{[]string{"conflicts", "resolve", "--keep", fmt.Sprint(neovim), "--both", "1"}, "conflicts resolve: choose one of --keep FACT_ID or --both, not both"},
		{[]string{"conflicts", "resolve", "--both", "x"}, `conflicts resolve: "x" is not a conflict id; give the number shown by recollect conflicts`},
		{[]string{"conflicts", "resolve", "--keep", fmt.Sprint(vscode), "1"}, fmt.Sprintf("conflicts resolve: conflict cannot be resolved that way: fact %d is not in conflict 1; keep %d or %d, or say both", vscode, helix, neovim)},
	} {
		out, errOut, code := diskRun(t, dir, c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.msg) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and the one line %q", c.args, code, out, errOut, c.msg)
		}
	}
	// An id that names nothing stored is a state, not bad input: exit 1,
	// as why 999 is.
	if out, errOut, code := diskRun(t, dir, "conflicts", "resolve", "--both", "9"); code != 1 || out != "" || !strings.Contains(errOut, "there is no conflict 9; recollect conflicts lists them") {
		t.Errorf("unknown conflict: exit %d, %q, %q; want exit 1", code, out, errOut)
	}
	if _, errOut, code := diskRun(t, dir, "why", "999"); code != 1 || !strings.Contains(errOut, "fact 999: no such fact") {
		t.Errorf("why 999: exit %d, %q; want exit 1", code, errOut)
	}
	if out := diskMust(t, dir, "conflicts", "resolve", "--keep", fmt.Sprint(helix), "--note", "Helix since March", "1"); out != fmt.Sprintf("conflict 1 resolved: fact %d kept; fact %d is superseded by it\n", helix, neovim) {
		t.Errorf("resolve: %q", out)
	}
	if out := diskMust(t, dir, "conflicts"); out != "no open conflicts\n" {
		t.Errorf("after resolve: %q", out)
	}
	var all []struct {
		ID           int64  `json:"id"`
		ResolvedAt   string `json:"resolved_at"`
		WinnerStatus string `json:"winner_status"`
	}
	if err := json.Unmarshal([]byte(diskMust(t, dir, "conflicts", "--all", "--json")), &all); err != nil || len(all) != 1 || all[0].ResolvedAt == "" || all[0].WinnerStatus != "superseded" {
		t.Errorf("conflicts --all --json: %+v, %v", all, err)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/fixtures/testbin"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// binRun runs the built recollect binary with a private HOME and returns
// stdout, stderr and the exit status.
func binRun(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(testbin.Binary(t), args...)
	home := t.TempDir()
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "RECOLLECT_PROVIDER=heuristic"}
	cmd.Dir = home
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

func binMust(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := binRun(t, "", args...)
	if code != 0 {
		t.Fatalf("recollect %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return out
}

// TestFlagsAfterArguments pins flags anywhere on the real binary: after the
// query, between arguments, for nested commands and for --data, and "--"
// for a query that starts with a dash.
func TestFlagsAfterArguments(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	binMust(t, "init", "--yes", dir)
	for _, s := range []string{"I live in Lisbon near the river.", "Maria Tailwind is my manager on the deploy project.", "We deploy Atlas to Lisbon every Friday."} {
		binMust(t, "record", "--content", s, "--data", dir)
	}
	binMust(t, "consolidate", "--data", dir)

	var ans struct {
		Results []json.RawMessage `json:"results"`
	}
	out := binMust(t, "search", "Lisbon", "--limit", "1", "--json", "--data", dir)
	if err := json.Unmarshal([]byte(out), &ans); err != nil || len(ans.Results) != 1 {
		t.Fatalf("search Lisbon --limit 1 --json: %d results (%v):\n%s", len(ans.Results), err, out)
	}
	if out := binMust(t, "search", "Lisbon", "--data", dir, "--limit", "2"); strings.Contains(out, "--limit") || !strings.Contains(out, "Lisbon") {
		t.Fatalf("flags after the query were read as the query:\n%s", out)
	}
	for _, args := range [][]string{
		{"entity", "Lisbon", "--json", "--data", dir},
		{"entity", "Lisbon", "--type", "place", "--json", "--data", dir},
		{"context", "deploy", "--json", "--data", dir},
		{"why", "1", "--json", "--data", dir},
		{"stats", "--data", dir, "--json"},
		{"conflicts", "--json", "--data", dir},
	} {
		out := binMust(t, args...)
		if !json.Valid([]byte(out)) {
			t.Errorf("%v does not print JSON:\n%s", args, out)
		}
	}
	if out := binMust(t, "search", "--data", dir, "--", "-Lisbon"); !strings.Contains(out, "Lisbon near the river") {
		t.Errorf("search -- -Lisbon:\n%s", out)
	}
	if out := binMust(t, "hooks", "print", "--data", dir); !strings.Contains(out, dir) {
		t.Errorf("hooks print --data after the subcommand did not use it:\n%s", out)
	}
	if out := binMust(t, "service", "print", "--data", dir); !strings.Contains(out, dir) {
		t.Errorf("service print --data after the subcommand did not use it:\n%s", out)
	}
	// --data after the query selects that store; ~/.recollect is neither read nor made.
	_, errs, code := binRun(t, "", "search", "Lisbon", "--data", filepath.Join(t.TempDir(), "none"))
	if code != 1 || !strings.Contains(errs, "none; create one with: recollect init") {
		t.Errorf("search Q --data MISSING: exit %d, %q", code, errs)
	}
}

// TestUnknownCommandAndFlag pins exit status 2 and "did you mean" on the
// binary.
func TestUnknownCommandAndFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serach", "x"}, "recollect: unknown command \"serach\"; did you mean \"search\"? (see recollect --help)\n"},
		{[]string{"search", "x", "--jsn"}, "recollect: search: unknown flag --jsn; did you mean --json? (see recollect search --help)\n"},
		{[]string{"--dta", "x", "stats"}, "recollect: unknown flag --dta; did you mean --data? (see recollect --help)\n"},
	} {
		out, errs, code := binRun(t, "", c.args...)
		if code != 2 || errs != c.want || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
	// A hook's mistyped flag must not block compaction: exit 1, never 2.
	if _, errs, code := binRun(t, "", "notify", "compaction", "--dta", "x"); code != 1 || !strings.Contains(errs, "did you mean --data?") {
		t.Errorf("notify with a typo: exit %d, %q", code, errs)
	}
}

// TestReadingCommandsCreateNoStore pins that every reading command on a
// directory without a store exits 1 with one line naming it and leaves it
// absent.
func TestReadingCommandsCreateNoStore(t *testing.T) {
	for _, args := range [][]string{
		{"search", "Lisbon"}, {"stats"}, {"entity", "Lisbon"}, {"context", "deploy"}, {"briefing"},
		{"why", "1"}, {"conflicts"}, {"conflicts", "resolve", "1", "--both"}, {"inspect", "--layer", "health"},
		{"prune"}, {"forget", "1"}, {"consolidate"},
	} {
		dir := filepath.Join(t.TempDir(), "nostore")
		out, errs, code := binRun(t, "", append(args, "--data", dir)...)
		want := "recollect: no store in " + dir + "; create one with: recollect init " + dir + " (or pass --data DIR of an existing store)\n"
		if code != 1 || errs != want || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 and %q", args, code, out, errs, want)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%v created %s", args, dir)
		}
	}
}

// TestHooksInstallKeepsOtherEntries: on the binary, every byte of the
// user's settings.json outside the new entry stays as it was (">>" is
// not escaped, unicode and key order kept).
func TestHooksInstallKeepsOtherEntries(t *testing.T) {
	proj, dir := t.TempDir(), filepath.Join(t.TempDir(), "store")
	orig, err := os.ReadFile(filepath.Join("..", "..", "hooks", "install", "testdata", "settings", "escapes.json"))
	if err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(proj, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	binMust(t, "init", "--yes", dir)
	binMust(t, "hooks", "install", "--project", proj, "--data", dir)
	got, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	p, q := 0, 0
	for p < len(orig) && orig[p] == got[p] {
		p++
	}
	for q < len(orig)-p && orig[len(orig)-1-q] == got[len(got)-1-q] {
		q++
	}
	if p+q != len(orig) || !bytes.Contains(got, []byte("notify compaction --data "+dir)) {
		t.Fatalf("settings.json changed outside the new entry (prefix %d + suffix %d of %d):\n%s", p, q, len(orig), got)
	}
	if !bytes.Contains(got, []byte(`"git status --short >> /tmp/s.log 2>&1 && echo <ok> & disown"`)) {
		t.Fatalf("escapes changed:\n%s", got)
	}
}

package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/fixtures/testbin"
)

// Messages name what was wrong: the word notify did not know, and the
// layers as README writes them (D, I, K) are taken in either case.
func TestMessagesNameTheBadWord(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := diskRun(t, dir, "notify", "bogus"); code != 1 || !strings.Contains(errOut, `notify: unknown moment "bogus"; use compaction or threshold`) {
		t.Errorf("notify bogus: exit %d, %q; want exit 1 naming the word", code, errOut)
	}
	diskMust(t, dir, "record", "--content", "We deploy on Fridays with make ship.")
	diskMust(t, dir, "consolidate")
	lower := diskMust(t, dir, "inspect", "--layer", "k")
	if upper := diskMust(t, dir, "inspect", "--layer", "K"); upper != lower {
		t.Errorf("--layer K printed:\n%s\nwant what --layer k prints:\n%s", upper, lower)
	}
	if _, errOut, code := diskRun(t, dir, "inspect", "--layer", "X"); code != 2 || !strings.Contains(errOut, `--layer "X"`) {
		t.Errorf("--layer X: exit %d, %q", code, errOut)
	}
}

// A raw event's terminal escapes are shown escaped by inspect, as search
// shows them: a transcript cannot redraw the terminal.
func TestInspectEscapesTerminalControls(t *testing.T) {
	dir := t.TempDir()
	diskMust(t, dir, "record", "--content", "build \x1b[31mFAILED\x1b[0m then \x1b[2K\x1b[1Aall good")
	out := diskMust(t, dir, "inspect", "--layer", "d")
	if strings.ContainsRune(out, '\x1b') || !strings.Contains(out, `\x1b[31mFAILED`) {
		t.Errorf("inspect --layer d printed raw escapes:\n%q", out)
	}
}

// A context hook waits for a slow payload writer within its one 3 s
// bound, as README says, instead of giving up on stdin after 200 ms.
func TestContextHookWaitsForASlowPayload(t *testing.T) {
	dir := t.TempDir()
	diskMust(t, dir, "record", "--content", "We deploy on Fridays with make ship.")
	diskMust(t, dir, "consolidate")
	cmd := exec.Command(testbin.Binary(t), "hooks", "session-start", "--data", dir)
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	io.WriteString(w, `{"session_id":"s","hook_event_name":"SessionStart","source":"startup"}`)
	w.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "make ship") {
		t.Errorf("a payload written after 0.7 s added nothing: %q", out.String())
	}
}

// settings shows the value in effect where config.json leaves a knob
// empty: the PostgreSQL URL's variable and the schema the directory names.
func TestSettingsShowsValuesInEffect(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "My-Store.2")
	diskMust(t, dir, "init", "--yes")
	out := diskMust(t, dir, "settings")
	for _, want := range []string{"storage.postgres.url_env                RECOLLECT_POSTGRES_URL (the default)", "storage.postgres.schema                 my-store_2 (named after the data directory)"} {
		if !strings.Contains(out, want) {
			t.Errorf("settings lacks %q:\n%s", want, out)
		}
	}
}

// init with stdin on /dev/null (a character device, not a terminal)
// behaves as --yes does and says so, instead of running the walk-through
// on one line.
func TestInitWithoutATerminalTakesTheDefaults(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "store")
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	cmd := exec.Command(testbin.Binary(t), "init", dir)
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "RECOLLECT_PROVIDER=heuristic"}
	cmd.Stdin = null
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("init </dev/null: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "no terminal to ask on: taking the defaults, as init --yes does") || strings.Contains(string(out), "Data directory (the store)?") {
		t.Errorf("init </dev/null printed:\n%s", out)
	}
}

// One install leaves all of recollect's hooks consistent: installing for
// another store moves the prompt hook too, instead of leaving it on the
// first store.
func TestHooksInstallMovesEveryHook(t *testing.T) {
	project := t.TempDir()
	first, second := filepath.Join(t.TempDir(), "one"), filepath.Join(t.TempDir(), "two")
	diskMust(t, first, "init", "--yes")
	diskMust(t, second, "init", "--yes")
	diskMust(t, first, "hooks", "install", "--project", project, "--prompt")
	diskMust(t, second, "hooks", "install", "--project", project)
	data, err := os.ReadFile(filepath.Join(project, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), first) || strings.Count(string(data), second) < 3 {
		t.Errorf("hooks after installing for another store:\n%s", data)
	}
}

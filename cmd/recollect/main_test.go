package main

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
	"github.com/recollect/recollect/store/storetest"
)

// run executes the CLI in-process with stdin and returns status, stdout and
// stderr.
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
		if k == "HOME" {
			return t.TempDir()
		}
		return ""
	}}
	code := Run(context.Background(), append([]string{"recollect"}, args...), env)
	return code, out.String(), errb.String()
}

// count reads one number from the SQLite store in dir, read-only, so
// that reading it changes nothing the command under test left there.
func count(t *testing.T, dir, query string) int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "memory.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return storetest.Count(t, db, query)
}

func TestRecordFromFlagsAndStdin(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := run(t, "", "--data", dir, "record", "--content", "I prefer tabs over spaces.", "--speaker", "ana"); code != 0 {
		t.Fatalf("record from flag: exit %d: %s", code, errs)
	}
	if code, out, errs := run(t, "I live in Lisbon.\n", "record", "--data", dir, "--session-id", "s2"); code != 0 || !strings.Contains(out, "recorded event 2") {
		t.Fatalf("record from stdin: exit %d out %q err %q", code, out, errs)
	}
	if n := count(t, dir, `SELECT count(*) FROM session_events WHERE content = 'I live in Lisbon.' AND session_id = 's2'`); n != 1 {
		t.Fatalf("stdin event stored %d times, want once (trailing newline trimmed)", n)
	}
	if n := count(t, dir, `SELECT count(*) FROM session_events WHERE speaker = 'ana' AND source = 'record'`); n != 1 {
		t.Fatalf("speaker not stored")
	}
}

func TestRecordHookPayloadIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	payload := `{"session_id":"abc-123","transcript_path":"/tmp/t.jsonl","cwd":"/home/a/app","hook_event_name":"UserPromptSubmit","prompt":"I moved to Porto last month."}`
	for i := 0; i < 2; i++ {
		code, out, errs := run(t, payload, "record", "--data", dir)
		if code != 0 {
			t.Fatalf("record payload #%d: exit %d: %s", i, code, errs)
		}
		if i == 1 && !strings.Contains(out, "already recorded") {
			t.Fatalf("second record of the same payload says %q, want 'already recorded'", out)
		}
	}
	if n := count(t, dir, `SELECT count(*) FROM session_events WHERE session_id = 'abc-123' AND role = 'user' AND content = 'I moved to Porto last month.'`); n != 1 {
		t.Fatalf("hook payload stored %d times, want exactly once", n)
	}
}

func TestBadInputExitsTwoAndWritesNothing(t *testing.T) {
	cases := []struct {
		name  string
		stdin string
		args  []string
		says  string
	}{
		{"unknown role", "", []string{"record", "--role", "robot", "--content", "hello there friend"}, "role: unknown value \"robot\"; use one of user, assistant, system, tool"},
		{"unknown event type", "", []string{"record", "--event-type", "chat", "--content", "hello there friend"}, "event_type: unknown value"},
		{"empty content", "", []string{"record", "--content", "   "}, "content: empty"},
		{"empty stdin", "", []string{"record"}, "content: empty"},
		{"malformed hook JSON", `{"hook_event_name": "UserPromptSubmit", "prompt": `, []string{"record"}, "hook payload: malformed JSON"},
		{"hook field of wrong type", `{"hook_event_name": "UserPromptSubmit", "prompt": 42}`, []string{"record"}, "hook payload: field prompt: wrong type"},
		{"negative limit", "", []string{"consolidate", "--limit", "-3"}, "--limit"},
		{"all and a limit", "", []string{"consolidate", "--all", "--limit", "5"}, "choose one of --all (every unexamined event) or --limit N, not both"},
		{"empty search", "", []string{"search", "  "}, "give a query"},
		{"unknown flag", "", []string{"record", "--colour", "x"}, "record: unknown flag --colour (see recollect record --help)"},
		{"unknown flag after the argument", "", []string{"search", "Lisbon", "--limt", "3"}, "search: unknown flag --limt; did you mean --limit? (see recollect search --help)"},
		{"unknown command", "", []string{"serach", "Lisbon"}, `unknown command "serach"; did you mean "search"? (see recollect --help)`},
		{"unknown subcommand", "", []string{"hooks", "instal"}, `hooks: unknown command "instal"; did you mean "install"? (see recollect hooks --help)`},
		{"unknown nested flag", "", []string{"conflicts", "resolve", "1", "--kep", "3"}, "conflicts resolve: unknown flag --kep; did you mean --keep?"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"--data", dir}, c.args...)
			code, _, errs := run(t, c.stdin, args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2 (stderr %q)", code, errs)
			}
			if !strings.Contains(errs, c.says) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Fatalf("stderr %q: want one line containing %q", errs, c.says)
			}
			if _, err := os.Stat(filepath.Join(dir, "memory.db")); err == nil {
				if n := count(t, dir, `SELECT count(*) FROM session_events`); n != 0 {
					t.Fatalf("%d events written on bad input", n)
				}
			}
		})
	}
}

func TestConfigTypoRefusedBeforeWriting(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"extraction": {"bach_size": 5}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, "", "--data", dir, "record", "--content", "I live in Lisbon.")
	if code != 2 || !strings.Contains(errs, `config.json: extraction.bach_size: unknown key; did you mean "batch_size"?`) {
		t.Fatalf("exit %d stderr %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "memory.db")); err == nil {
		t.Fatal("the database was created despite a broken config")
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"extraction": {"batch_size": "5"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs = run(t, "", "--data", dir, "stats")
	if code != 2 || !strings.Contains(errs, `extraction.batch_size: "5" is not a whole number from 1 to 100000`) {
		t.Fatalf("exit %d stderr %q", code, errs)
	}
}

func TestInitWithAndWithoutForce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	code, out, errs := run(t, "", "init", "--yes", dir)
	if code != 0 {
		t.Fatalf("init: exit %d: %s", code, errs)
	}
	for _, want := range []string{"created store at " + dir, `"mcpServers"`, `"PreCompact"`, "notify compaction --data " + dir, `"timeout": 5`} {
		if !strings.Contains(out, want) {
			t.Errorf("init output lacks %q:\n%s", want, out)
		}
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"batch_size": 50`, `"provider": "heuristic"`, `"mode": "record"`, `"working_memory_size"`, `"disk_budget"`} {
		if !strings.Contains(string(cfg), key) {
			t.Errorf("config.json does not spell out %s", key)
		}
	}
	// A user edit survives a second init without --force.
	edited := strings.Replace(string(cfg), `"batch_size": 50`, `"batch_size": 7`, 1)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "", "init", "--yes", dir)
	if code != 0 || !strings.Contains(out, "already initialised") {
		t.Fatalf("second init: exit %d out %q", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "config.json")); !strings.Contains(string(b), `"batch_size": 7`) {
		t.Fatal("init without --force replaced the config")
	}
	code, out, _ = run(t, "", "init", "--yes", "--force", dir)
	if code != 0 || !strings.Contains(out, "replaced config") {
		t.Fatalf("init --force: exit %d out %q", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "config.json")); !strings.Contains(string(b), `"batch_size": 50`) {
		t.Fatal("init --force kept the old config")
	}
}

func TestDataFlagEitherSideOfCommand(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	run(t, "", "--data", a, "record", "--content", "I live in Lisbon.")
	run(t, "", "record", "--data", b, "--content", "I live in Porto.")
	if count(t, a, `SELECT count(*) FROM session_events WHERE content LIKE '%Lisbon%'`) != 1 || count(t, a, `SELECT count(*) FROM session_events`) != 1 {
		t.Fatal("--data before the command did not select store a alone")
	}
	if count(t, b, `SELECT count(*) FROM session_events WHERE content LIKE '%Porto%'`) != 1 || count(t, b, `SELECT count(*) FROM session_events`) != 1 {
		t.Fatal("--data after the command did not select store b alone")
	}
}

func TestConsolidateHeuristicEndToEnd(t *testing.T) {
	dir := t.TempDir()
	for _, msg := range []string{"My colleague Robin at Acme is leading the Atlas migration.", "Can you summarise the Atlas plan?", "I am allergic to shellfish."} {
		if code, _, errs := run(t, "", "--data", dir, "record", "--content", msg, "--session-id", "s"); code != 0 {
			t.Fatal(errs)
		}
	}
	code, out, errs := run(t, "", "--data", dir, "consolidate")
	if code != 0 {
		t.Fatalf("consolidate: %s", errs)
	}
	if !strings.Contains(out, "3 events examined, 2 facts extracted, 0 events remaining (heuristic)") {
		t.Fatalf("run summary:\n%s", out)
	}
	code, out, _ = run(t, "", "--data", dir, "search", "Atlas")
	if code != 0 || !strings.Contains(out, "My colleague Robin at Acme is leading the Atlas migration.") || !strings.Contains(out, "cites events [1]") {
		t.Fatalf("search:\n%s", out)
	}
	if !strings.Contains(out, "heuristic (read from the transcript, no model)") {
		t.Fatalf("search hit does not say it is heuristic:\n%s", out)
	}
	_, out, _ = run(t, "", "--data", dir, "stats")
	for _, want := range []string{"facts        2 active, 2 total (0 superseded)", "by source  heuristic 2", "unextracted  0 events"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lacks %q:\n%s", want, out)
		}
	}
}

func TestDemoPrintsAtlasHit(t *testing.T) {
	code, out, errs := run(t, "", "demo")
	if code != 0 {
		t.Fatalf("demo: exit %d: %s", code, errs)
	}
	for _, want := range []string{`[fact 3] "My colleague Robin at Acme is leading the Atlas migration to Postgres this quarter."`, "cites events [3]", "facts        3 active, 3 total"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

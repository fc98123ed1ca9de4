package sources

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

const (
	cpolarFirst  = "codex/cpolar-connect/sessions/2025/09/16/rollout-2025-09-16T12-47-48-9cd28a74-da7e-4458-a91a-fffec2be9d7a.jsonl"
	cpolarResume = "codex/cpolar-connect/sessions/2025/09/16/rollout-2025-09-16T14-12-31-613a9a68-8816-40b2-a2d4-041ade599da6.jsonl"
	daziSession  = "codex/dazi-skill/sessions/2026/04/28/rollout-2026-04-28T18-05-46-019dd38d-4dfb-77b0-af6a-af358709d507.jsonl"
	cpolarCwd    = "/Users/home/Downloads/CpolarAutoUpdater"
)

// codexHome lays out a Codex home with real rollouts in their date
// folders, plus files the source must not follow.
func codexHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	for _, rel := range []string{cpolarFirst, cpolarResume, daziSession} {
		parts := strings.Split(rel, "/")
		copyFixture(t, rel, filepath.Join(append([]string{home}, parts[2:]...)...))
	}
	// Not transcripts: the prompt history, a rollout outside a date folder,
	// a file in a date folder without the rollout- prefix.
	copyFixture(t, daziSession, filepath.Join(home, "history.jsonl"))
	copyFixture(t, daziSession, filepath.Join(home, "sessions", "rollout-flat.jsonl"))
	copyFixture(t, daziSession, filepath.Join(home, "sessions", "2026", "04", "28", "notes.jsonl"))
	return home
}

func TestCodexSelectsRolloutsByRecordedCwd(t *testing.T) {
	home := codexHome(t)
	for _, tc := range []struct {
		name string
		src  config.Source
		env  map[string]string
		want string
	}{
		{"one project", config.Source{Kind: Codex, Home: home, Cwd: cpolarCwd}, nil,
			"rollout-2025-09-16T12-47-48-9cd28a74-da7e-4458-a91a-fffec2be9d7a.jsonl rollout-2025-09-16T14-12-31-613a9a68-8816-40b2-a2d4-041ade599da6.jsonl"},
		{"a parent folder of the project", config.Source{Kind: Codex, Home: home, Cwd: "/Users/home/Downloads"}, nil,
			"rollout-2025-09-16T12-47-48-9cd28a74-da7e-4458-a91a-fffec2be9d7a.jsonl rollout-2025-09-16T14-12-31-613a9a68-8816-40b2-a2d4-041ade599da6.jsonl"},
		{"another project", config.Source{Kind: Codex, Home: home, Cwd: "/Users/home/Downloads/Cpolar"}, nil, ""},
		{"every project", config.Source{Kind: Codex, Home: home}, nil,
			"rollout-2025-09-16T12-47-48-9cd28a74-da7e-4458-a91a-fffec2be9d7a.jsonl rollout-2025-09-16T14-12-31-613a9a68-8816-40b2-a2d4-041ade599da6.jsonl rollout-2026-04-28T18-05-46-019dd38d-4dfb-77b0-af6a-af358709d507.jsonl"},
		{"home from CODEX_HOME", config.Source{Kind: Codex, Cwd: cpolarCwd}, map[string]string{EnvCodexHome: home},
			"rollout-2025-09-16T12-47-48-9cd28a74-da7e-4458-a91a-fffec2be9d7a.jsonl rollout-2025-09-16T14-12-31-613a9a68-8816-40b2-a2d4-041ade599da6.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newCopier(t, storetest.Open(t, "sqlite"), tc.src)
			if tc.env != nil {
				c.Getenv = func(k string) string { return tc.env[k] }
			}
			files, err := c.Files(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, f := range files {
				names = append(names, filepath.Base(f))
			}
			if got := strings.Join(names, " "); got != tc.want {
				t.Errorf("selected %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCodexCopy copies a real rollout through the shared copier: the
// events the golden pins, the session under the rollout's id with its
// project, the dropped records counted per type, nothing doubled on a
// second pass, and a half-written line left for later.
func TestCodexCopy(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	home := t.TempDir()
	path := filepath.Join(home, "sessions", "2025", "09", "16", filepath.Base(cpolarFirst))
	data, err := os.ReadFile(filepath.Join(fixtureRoot, cpolarFirst))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	last := lines[len(lines)-2] // the last line; the final element is ""
	writeFile(t, path, []byte(strings.Join(lines[:len(lines)-2], "")+last[:len(last)/2]))
	c, _ := newCopier(t, db, config.Source{Kind: Codex, Home: home, Cwd: cpolarCwd})
	rep := copyAll(t, c)
	// 117 events in the whole file (see the golden); the last line, a
	// turn_aborted event, maps to none.
	if rep.Events != 117 || rep.Lines != int64(len(lines)-2) {
		t.Fatalf("first copy: %d events from %d lines, want 117 from %d", rep.Events, rep.Lines, len(lines)-2)
	}
	appendFile(t, path, []byte(last[len(last)/2:]))
	rep = copyAll(t, c)
	if rep.Events != 0 || rep.Lines != 1 || rep.Skipped["event_msg/turn_aborted"] != 1 {
		t.Fatalf("completed last line: %d events, %d lines, skipped %v; want the turn_aborted line counted", rep.Events, rep.Lines, rep.Skipped)
	}
	if rep := copyAll(t, c); rep.Events != 0 || rep.Lines != 0 {
		t.Fatalf("third copy read %d lines and wrote %d events, want nothing new", rep.Lines, rep.Events)
	}
	var id, source, project string
	if err := db.QueryRow(`SELECT id, source, project FROM sessions`).Scan(&id, &source, &project); err != nil {
		t.Fatal(err)
	}
	if id != "9cd28a74-da7e-4458-a91a-fffec2be9d7a" || source != Codex || project != cpolarCwd {
		t.Errorf("session %q source %q project %q; want the rollout's id, codex, and the cwd of its session_meta", id, source, project)
	}
	got := contents(t, db, path)
	if len(got) != 117 || got[0] != "检查目前项目的设计" {
		t.Errorf("stored %d events starting %q; want 117 starting with the typed prompt", len(got), got[0])
	}
	skipped := storetest.Skipped(t, db, Codex)
	for k, want := range map[string]int64{"event_msg/token_count": 56, "turn_context": 57, "session_meta": 1, "response_item/reasoning": 31,
		"event_msg/agent_message": 9, "response_item/message:user": 8, "event_msg/turn_aborted": 1} {
		if skipped[k] != want {
			t.Errorf("skipped %s = %d, want %d (all: %v)", k, skipped[k], want, skipped)
		}
	}
}

// TestCodexWatcherFollowsANewDayFolder: Codex opens a folder per local
// day; a rollout written into a folder that did not exist when the
// watcher started is copied.
func TestCodexWatcherFollowsANewDayFolder(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "sessions", "2025", "09"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := config.Source{Kind: Codex, Home: home}
	c, _ := newCopier(t, db, src)
	follow(t, c, src)
	path := filepath.Join(home, "sessions", "2025", "09", "16", filepath.Base(cpolarFirst))
	copyFixture(t, cpolarFirst, path)
	storetest.Eventually(t, "the new day's rollout copied", func() bool { return eventCount(t, db, path) == 117 })
}

// TestCodexDiagnose: stats counts the projects Codex sessions record, not
// its date folders, and names another project's cwd.
func TestCodexDiagnose(t *testing.T) {
	home := codexHome(t)
	reps, err := Diagnose([]config.Source{{Kind: Codex, Home: home, Cwd: cpolarCwd}}, func(string) string { return "" })
	if err != nil || len(reps) != 1 {
		t.Fatalf("Diagnose: %v, %v", reps, err)
	}
	r := reps[0]
	if r.ProjectFolders != 2 || r.Matched != 2 || r.SkippedOtherCwd != 1 || len(r.OtherCwds) != 1 || !strings.HasSuffix(r.OtherCwds[0], "/dazi-skill") {
		t.Errorf("report %+v; want 2 projects, 2 matched, 1 of another project (dazi-skill)", r)
	}
}

// TestCodexResumedSessionStoredOnce: Codex 0.36 resumed a session into a
// new file that restates the old one's history; its restated items are
// stored once, whichever file is read first, and appends read mid-file
// keep the same names.
func TestCodexResumedSessionStoredOnce(t *testing.T) {
	for _, order := range []string{"old first", "new first"} {
		t.Run(order, func(t *testing.T) {
			db := storetest.Open(t, "sqlite")
			home := t.TempDir()
			dir := filepath.Join(home, "sessions", "2025", "09", "16")
			first, resumed := filepath.Join(dir, filepath.Base(cpolarFirst)), filepath.Join(dir, filepath.Base(cpolarResume))
			c, _ := newCopier(t, db, config.Source{Kind: Codex, Home: home})
			if order == "new first" {
				// The resumed file arrives in two appends, the second
				// read from the middle of the file.
				data, _ := os.ReadFile(filepath.Join(fixtureRoot, cpolarResume))
				cut := strings.Index(string(data[len(data)/2:]), "\n") + len(data)/2 + 1
				writeFile(t, resumed, data[:cut])
				copyAll(t, c)
				appendFile(t, resumed, data[cut:])
				copyAll(t, c)
				copyFixture(t, cpolarFirst, first)
			} else {
				copyFixture(t, cpolarFirst, first)
				copyAll(t, c)
				copyFixture(t, cpolarResume, resumed)
			}
			copyAll(t, c)
			// 117 events in the old file, 148 in the new, 116 of which
			// restate the old file's (see the goldens).
			if n := eventCount(t, db, ""); n != 149 {
				t.Errorf("stored %d events, want 117 + 148 - 116 = 149", n)
			}
		})
	}
}

// TestCodexLegacyRollout: a rollout in the format Codex wrote until about
// mid-2025 (no envelope; the cwd only in the environment context; see
// testdata/codex-legacy/README.md) is selected by that cwd and copied: the
// typed prompt, the tool call and its output, the answer — and not the
// header, state lines, injected context or reasoning, which are counted.
func TestCodexLegacyRollout(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	home := t.TempDir()
	const name = "rollout-2025-05-20T10-11-12-5f2c9a1e-3b7d-4c8e-9a0f-1d2e3f4a5b6c.jsonl"
	data, err := os.ReadFile(filepath.Join("testdata", "codex-legacy", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, "sessions", "2025", "05", "20", name)
	writeFile(t, path, data)
	other, _ := newCopier(t, storetest.Open(t, "sqlite"), config.Source{Kind: Codex, Home: home, Cwd: "/home/dev/payroll"})
	if files, err := other.Files(context.Background()); err != nil || len(files) != 0 {
		t.Fatalf("another project's source selected %v (%v)", files, err)
	}
	c, _ := newCopier(t, db, config.Source{Kind: Codex, Home: home, Cwd: "/home/dev/inventory"})
	if rep := copyAll(t, c); rep.Events != 4 || rep.Lines != 11 {
		t.Fatalf("copied %d events from %d lines; want 4 from 11", rep.Events, rep.Lines)
	}
	want := []string{
		"The inventory service must keep using Postgres 15; add a health check endpoint.",
		`{"id":"call_1","input":{"command":["bash","-lc","ls"]},"name":"shell"}`,
		`{"output":"cmd\ninternal\ngo.mod\n","metadata":{"exit_code":0,"duration_seconds":0.1}}`,
		"Added GET /healthz in internal/http/health.go; it pings Postgres.",
	}
	if got := contents(t, db, path); strings.Join(got, "\n---\n") != strings.Join(want, "\n---\n") {
		t.Errorf("stored:\n%s\nwant:\n%s", strings.Join(got, "\n---\n"), strings.Join(want, "\n---\n"))
	}
	var id, project string
	if err := db.QueryRow(`SELECT id, project FROM sessions`).Scan(&id, &project); err != nil {
		t.Fatal(err)
	}
	if id != "5f2c9a1e-3b7d-4c8e-9a0f-1d2e3f4a5b6c" || project != "/home/dev/inventory" {
		t.Errorf("session %q project %q; want the rollout's id and the environment context's cwd", id, project)
	}
	skipped := storetest.Skipped(t, db, Codex)
	for k, n := range map[string]int64{"legacy/header": 1, "legacy/record_type:state": 3, "legacy/message:user:injected": 2, "response_item/reasoning": 1} {
		if skipped[k] != n {
			t.Errorf("skipped %s = %d, want %d (all: %v)", k, skipped[k], n, skipped)
		}
	}
	if rep := copyAll(t, c); rep.Events != 0 {
		t.Errorf("a second copy stored %d more events", rep.Events)
	}
}

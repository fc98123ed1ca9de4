package sources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// userLine is a Claude Code user record with plain text.
func userLine(session, cwd, text string) []byte {
	rec := map[string]any{"type": "user", "sessionId": session, "cwd": cwd, "timestamp": "2026-03-01T10:00:00.000Z",
		"uuid": fmt.Sprintf("u-%x", len(text)) + text, "message": map[string]any{"role": "user", "content": text}}
	b, _ := json.Marshal(rec)
	return append(b, '\n')
}

// claudeHome lays out a Claude Code home and returns the source for it.
func claudeHome(t testing.TB, cwd string) (config.Source, string) {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, "projects", ClaudeFolder(cwd))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return config.Source{Kind: ClaudeCode, Home: home}, dir
}

func TestCopyFixturesOnceAndOnlyOnce(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	home := t.TempDir()
	projects := filepath.Join(home, "projects")
	for _, rel := range []string{
		"claude-code-log/-Users-dain-workspace-claude-code-log-sample/326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl",
		"claude-code-log/-Users-dain-workspace-claude-code-log-sample/4e27c414-a885-46a0-b5c8-d58e1417377d.jsonl",
		"claude-code-log/-Users-dain-workspace-danieldemmel-me-next/7864f562-717b-4d70-a1cb-b588f7826a1a.jsonl",
		"claude-code-log/-Users-dain-workspace-danieldemmel-me-next/agent-3ea04571.jsonl",
		"claude-code-log/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-a36efb2a1231c41e2.jsonl",
	} {
		copyFixture(t, "claude-code/"+rel, filepath.Join(projects, strings.TrimPrefix(rel, "claude-code-log/")))
	}
	spot := filepath.Join(projects, "-home-USER-projects-spotter-worktrees-spotter-gqc")
	copyFixture(t, "claude-code/spotter/short.jsonl", filepath.Join(spot, "short.jsonl"))
	copyFixture(t, "claude-code/spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl",
		filepath.Join(spot, "258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl"))
	copyFixture(t, "claude-code/spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl",
		filepath.Join(spot, "258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl"))

	c, _ := newCopier(t, db, config.Source{Kind: ClaudeCode, Home: home})
	files, err := c.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	want := "326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl 4e27c414-a885-46a0-b5c8-d58e1417377d.jsonl 7864f562-717b-4d70-a1cb-b588f7826a1a.jsonl short.jsonl"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("default selection (no subagents, never the compaction worker):\n got %s\nwant %s", got, want)
	}
	rep := copyAll(t, c)
	// 37 events from the legacy sample and 7 from short.jsonl (see goldens).
	if rep.Events != 44 || eventCount(t, db, "") != 44 {
		t.Fatalf("first copy wrote %d events (%d stored), want 44; report %+v", rep.Events, eventCount(t, db, ""), rep)
	}
	if rep.Lines != 54+1+15 || rep.Skipped["summary"] != 5 || rep.Skipped["progress"] != 3 {
		t.Errorf("report lines %d skipped %v; want 70 lines, summary 5, progress 3", rep.Lines, rep.Skipped)
	}
	if got := storetest.Skipped(t, db, ClaudeCode); got["summary"] != 5 || got["system"] != 12 || got["thinking"] != 1 {
		t.Errorf("skipped_records = %v; want summary 5, system 12, thinking 1", got)
	}
	again := copyAll(t, c)
	if again.Events != 0 || again.Lines != 0 || eventCount(t, db, "") != 44 {
		t.Fatalf("second copy wrote %d events from %d lines; want nothing new", again.Events, again.Lines)
	}

	c2, _ := newCopier(t, db, config.Source{Kind: ClaudeCode, Home: home, IncludeSubagents: true})
	files, _ = c2.Files(context.Background())
	if len(files) != 7 {
		t.Errorf("with include_subagents %d files selected, want 7 (both subagent layouts, not agent-acompact-*): %v", len(files), files)
	}
	rep = copyAll(t, c2)
	if rep.Events != 2+18+8 {
		t.Errorf("subagent copy wrote %d events, want 28", rep.Events)
	}
	var sessions int
	if err := db.QueryRow(`SELECT count(*) FROM sessions WHERE id LIKE '%/agent-%'`).Scan(&sessions); err != nil || sessions != 3 {
		t.Errorf("subagent conversations = %d (%v), want 3 of their own", sessions, err)
	}
}

func TestCwdFilterReadsRecordsNotFolderNames(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	home := t.TempDir()
	// The folder name does not match the cwd inside (the authors sanitised
	// it): selection must read the records.
	copyFixture(t, "claude-code/claude-code-log/-Users-dain-workspace-claude-code-log-sample/326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl",
		filepath.Join(home, "projects/-Users-dain-workspace-claude-code-log-sample/a.jsonl"))
	copyFixture(t, "claude-code/spotter/short.jsonl", filepath.Join(home, "projects/-home-marco-projects-spotter/b.jsonl"))
	copyFixture(t, "claude-code/fasthooks/sample_main_transcript.jsonl", filepath.Join(home, "projects/-workspace/c.jsonl"))
	for _, tc := range []struct {
		cwd  string
		want string
	}{
		{"/Users/dain/workspace/claude-code-log", "a.jsonl"},
		{"/home/marco/projects/spotter", "b.jsonl"},
		{"/home/marco/projects", "b.jsonl"}, // a session started below the configured folder
		{"/workspace", "c.jsonl"},
		{"/home/marco/projects/spot", ""},
		{"", "a.jsonl b.jsonl c.jsonl"},
	} {
		c, _ := newCopier(t, db, config.Source{Kind: ClaudeCode, Home: home, Cwd: tc.cwd})
		files, err := c.Files(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range files {
			names = append(names, filepath.Base(f))
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("cwd %q selects %q, want %q", tc.cwd, got, tc.want)
		}
	}
}

func TestCursorLayouts(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	home := t.TempDir()
	slug := CursorSlug("/home/a/my app")
	if slug != "home-a-my-app" {
		t.Fatalf("CursorSlug = %q", slug)
	}
	at := filepath.Join(home, "projects", slug, "agent-transcripts")
	copyFixture(t, "cursor/confab-web/main.jsonl", filepath.Join(at, "0b1c/0b1c.jsonl"))
	copyFixture(t, "cursor/confab-web/subagent.jsonl", filepath.Join(at, "0b1c/subagents/77aa.jsonl"))
	copyFixture(t, "cursor/confab-web/main.jsonl", filepath.Join(at, "flat.jsonl"))
	copyFixture(t, "cursor/confab-web/main.jsonl", filepath.Join(home, "projects/other/agent-transcripts/x.jsonl"))

	c, _ := newCopier(t, db, config.Source{Kind: Cursor, Home: home, Cwd: "/home/a/my app"})
	files, _ := c.Files(context.Background())
	if len(files) != 2 {
		t.Fatalf("cursor selection = %v, want the nested and the flat transcript of the one project", files)
	}
	rep := copyAll(t, c)
	if rep.Events != 46 {
		t.Errorf("cursor copy wrote %d events, want 2×23", rep.Events)
	}
	var sessions []string
	rows, _ := db.Query(`SELECT id FROM sessions ORDER BY id`)
	for rows.Next() {
		var s string
		rows.Scan(&s)
		sessions = append(sessions, s)
	}
	rows.Close()
	if strings.Join(sessions, ",") != "0b1c,flat" {
		t.Errorf("cursor sessions %v, want the file names 0b1c and flat", sessions)
	}
}

func TestAppendedLinesAndHalfLine(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	src, dir := claudeHome(t, "/w/app")
	path := filepath.Join(dir, "s1.jsonl")
	writeFile(t, path, append(userLine("s1", "/w/app", "one"), userLine("s1", "/w/app", "two")...))
	c, _ := newCopier(t, db, src)
	if rep := copyAll(t, c); rep.Events != 2 {
		t.Fatalf("first copy %d events, want 2", rep.Events)
	}
	third := userLine("s1", "/w/app", "three")
	appendFile(t, path, third[:len(third)/2])
	if rep, err := c.CopyFile(context.Background(), path); err != nil || rep.Events != 0 || rep.Lines != 0 {
		t.Fatalf("half line: %d events from %d lines (%v); a half line must wait for its newline", rep.Events, rep.Lines, err)
	}
	appendFile(t, path, third[len(third)/2:])
	if rep, err := c.CopyFile(context.Background(), path); err != nil || rep.Events != 1 {
		t.Fatalf("completed line: %d events (%v), want 1", rep.Events, err)
	}
	if got := contents(t, db, path); strings.Join(got, ",") != "one,two,three" {
		t.Errorf("stored %v, want one,two,three in order", got)
	}
	var off, size int64
	db.QueryRow(`SELECT offset, size FROM source_files WHERE path = ?`, path).Scan(&off, &size)
	if fi, _ := os.Stat(path); off != fi.Size() {
		t.Errorf("offset %d, want the file size %d", off, fi.Size())
	}
}

func TestTruncatedAndRewrittenFilesAreReadWithoutDoubles(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	src, dir := claudeHome(t, "/w/app")
	path := filepath.Join(dir, "s1.jsonl")
	lines := [][]byte{userLine("s1", "/w/app", "one"), userLine("s1", "/w/app", "two"), userLine("s1", "/w/app", "three")}
	all := func(ls ...[]byte) []byte {
		var b []byte
		for _, l := range ls {
			b = append(b, l...)
		}
		return b
	}
	writeFile(t, path, all(lines...))
	c, logs := newCopier(t, db, src)
	copyAll(t, c)

	writeFile(t, path, all(lines[0])) // truncated
	rep := copyAll(t, c)
	if rep.Reread != 1 || rep.Events != 0 || rep.Duplicates != 1 {
		t.Fatalf("truncated: reread %d events %d dups %d; want 1, 0, 1", rep.Reread, rep.Events, rep.Duplicates)
	}
	writeFile(t, path, all(lines[0], lines[1], lines[2], userLine("s1", "/w/app", "four")))
	if rep := copyAll(t, c); rep.Events != 1 {
		t.Fatalf("regrown file wrote %d events, want only the new line", rep.Events)
	}
	changed := all(userLine("s1", "/w/app", "ONE"), lines[1], lines[2], userLine("s1", "/w/app", "four"))
	writeFile(t, path, changed) // same size, different start
	rep = copyAll(t, c)
	if rep.Reread != 1 || rep.Events != 1 {
		t.Fatalf("rewritten start: reread %d events %d; want 1 and only the changed line", rep.Reread, rep.Events)
	}
	if got := strings.Join(contents(t, db, path), ","); got != "one,two,three,four,ONE" {
		t.Errorf("stored %s; want every line exactly once", got)
	}
	if !strings.Contains(logs.String(), "reading it again from the start") {
		t.Errorf("no log line for the re-read:\n%s", logs)
	}
}

// A re-read cut short (here by a trigger that fails one insert, as a crash
// would) resumes without doubling what the cut-short read already stored.
func TestInterruptedRereadResumesWithoutDoubles(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	src, dir := claudeHome(t, "/w/app")
	path := filepath.Join(dir, "s1.jsonl")
	var body []byte
	for i := range 10 {
		body = append(body, userLine("s1", "/w/app", fmt.Sprintf("line %d", i))...)
	}
	writeFile(t, path, body)
	c, _ := newCopier(t, db, src)
	c.BatchLines = 2
	copyAll(t, c)
	// Rewrite: a new first line, then the same ten lines and one more.
	rewritten := append(append(userLine("s1", "/w/app", "new first"), body...), userLine("s1", "/w/app", "BOOM")...)
	writeFile(t, path, rewritten)
	if _, err := db.Exec(`CREATE TRIGGER boom BEFORE INSERT ON session_events WHEN new.content = 'line 7'
		BEGIN SELECT RAISE(ABORT, 'simulated crash'); END`); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CopyAll(context.Background()); err == nil || !strings.Contains(err.Error(), "simulated crash") {
		t.Fatalf("CopyAll with a failing insert returned %v, want the failure", err)
	}
	if _, err := db.Exec(`DROP TRIGGER boom`); err != nil {
		t.Fatal(err)
	}
	copyAll(t, c)
	got := contents(t, db, path)
	seen := map[string]int{}
	for _, s := range got {
		seen[s]++
	}
	if len(got) != 12 || seen["new first"] != 1 || seen["BOOM"] != 1 {
		t.Fatalf("stored %d events %v; want 12, each once", len(got), seen)
	}
	for s, n := range seen {
		if n != 1 {
			t.Errorf("%q stored %d times", s, n)
		}
	}
}

func TestIdenticalLinesAreKeptAndNotDoubled(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	home := t.TempDir()
	path := filepath.Join(home, "projects/app/agent-transcripts/c1.jsonl")
	same := []byte(`{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\ncontinue\n</user_query>"}]}}` + "\n")
	writeFile(t, path, append(append([]byte{}, same...), same...))
	c, _ := newCopier(t, db, config.Source{Kind: Cursor, Home: home})
	copyAll(t, c)
	appendFile(t, path, same)
	copyAll(t, c)
	if n := eventCount(t, db, path); n != 3 {
		t.Fatalf("three identical lines stored as %d events, want 3", n)
	}
	// Cursor rewrites whole files at checkpoints: a changed start, then the
	// same three identical lines.
	other := []byte(`{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\nfirst\n</user_query>"}]}}` + "\n")
	writeFile(t, path, append(other, []byte(strings.Repeat(string(same), 3))...))
	rep := copyAll(t, c)
	if n := eventCount(t, db, path); n != 4 || rep.Reread != 1 || rep.Duplicates != 3 {
		t.Fatalf("after rewrite: %d events (reread %d, duplicates %d); want 4, 1, 3", n, rep.Reread, rep.Duplicates)
	}
}

func TestTwoSourcesInterleaveOnGlobalSeq(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	src, dir := claudeHome(t, "/w/app")
	cursorHome := t.TempDir()
	cpath := filepath.Join(cursorHome, "projects/w-app/agent-transcripts/k/k.jsonl")
	ccpath := filepath.Join(dir, "s.jsonl")
	c, _ := newCopier(t, db, src, config.Source{Kind: Cursor, Home: cursorHome})
	cursorLine := func(s string) []byte {
		return []byte(`{"role":"user","message":{"content":[{"type":"text","text":"` + s + `"}]}}` + "\n")
	}
	appendFile(t, ccpath, userLine("s", "/w/app", "cc-1"))
	writeFile(t, cpath, cursorLine("cu-1"))
	copyAll(t, c) // files are taken in path order; both new
	appendFile(t, cpath, cursorLine("cu-2"))
	if _, err := c.CopyFile(context.Background(), cpath); err != nil {
		t.Fatal(err)
	}
	appendFile(t, ccpath, userLine("s", "/w/app", "cc-2"))
	if _, err := c.CopyFile(context.Background(), ccpath); err != nil {
		t.Fatal(err)
	}
	appendFile(t, cpath, cursorLine("cu-3"))
	copyAll(t, c)
	rows, err := db.Query(`SELECT source, content FROM session_events ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var s, content string
		rows.Scan(&s, &content)
		got = append(got, content)
	}
	first := strings.Join(got[:2], ",")
	if len(got) != 5 || (first != "cc-1,cu-1" && first != "cu-1,cc-1") || strings.Join(got[2:], ",") != "cu-2,cc-2,cu-3" {
		t.Errorf("global order %v; want both first lines, then cu-2, cc-2, cu-3 as copied", got)
	}
}

func TestDeletedFileIsForgottenNotErased(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	src, dir := claudeHome(t, "/w/app")
	path := filepath.Join(dir, "gone.jsonl")
	writeFile(t, path, userLine("g", "/w/app", "kept"))
	c, _ := newCopier(t, db, src)
	copyAll(t, c)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	rep := copyAll(t, c)
	if rep.Files != 0 || len(rep.Errors) != 0 {
		t.Errorf("after delete: %d files, errors %v; want the file simply gone", rep.Files, rep.Errors)
	}
	var missing int
	if err := db.QueryRow(`SELECT missing FROM source_files WHERE path = ?`, path).Scan(&missing); err != nil || missing != 1 {
		t.Errorf("source_files.missing = %d (%v), want 1", missing, err)
	}
	if n := eventCount(t, db, path); n != 1 {
		t.Errorf("%d events left, want the copied one kept", n)
	}
}

func TestCopyFileRefusesPathsOutsideSources(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	src, dir := claudeHome(t, "/w/app")
	src.Cwd = "/w/app"
	c, _ := newCopier(t, db, src)
	stray := filepath.Join(t.TempDir(), "x.jsonl")
	writeFile(t, stray, userLine("x", "/w/app", "hi"))
	_, err := c.CopyFile(context.Background(), stray)
	if !errors.Is(err, ErrNotSelected) || !strings.Contains(err.Error(), "add a source for it in config.json") {
		t.Errorf("stray path: %v; want ErrNotSelected saying to add a source", err)
	}
	other := filepath.Join(dir, "other.jsonl")
	writeFile(t, other, userLine("o", "/elsewhere", "hi"))
	_, err = c.CopyFile(context.Background(), other)
	if !errors.Is(err, ErrNotSelected) || !strings.Contains(err.Error(), "does not match the configured cwd") {
		t.Errorf("other project: %v; want ErrNotSelected naming the cwd filter", err)
	}
	sub := filepath.Join(dir, "s/subagents/agent-abc.jsonl")
	writeFile(t, sub, userLine("s", "/w/app", "hi"))
	if _, err = c.CopyFile(context.Background(), sub); !errors.Is(err, ErrNotSelected) {
		t.Errorf("subagent with include_subagents off: %v; want refused", err)
	}
}

func TestConcurrentCopiersNeverDouble(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	src, dir := claudeHome(t, "/w/app")
	path := filepath.Join(dir, "s.jsonl")
	var body []byte
	for i := range 300 {
		body = append(body, userLine("s", "/w/app", fmt.Sprintf("n%d", i))...)
	}
	writeFile(t, path, body)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	var copiers []*Copier
	for range 4 {
		c, _ := newCopier(t, db, src)
		c.BatchLines = 7
		copiers = append(copiers, c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.CopyAll(context.Background())
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil && !errors.Is(err, errMoved) {
			t.Errorf("concurrent copy: %v", err)
		}
	}
	// Each copier counts the events it stored, none twice, restarts or
	// not: together they stored every line once.
	var stored int64
	for _, c := range copiers {
		stored += c.Stats().Events
	}
	if stored != 300 {
		t.Errorf("the copiers' Stats add up to %d events stored, want 300", stored)
	}
	c, _ := newCopier(t, db, src)
	copyAll(t, c)
	if n := eventCount(t, db, path); n != 300 {
		t.Fatalf("%d events after concurrent copies, want 300", n)
	}
	if st := c.Stats(); st.Events != 0 || st.Restarts != 0 {
		t.Errorf("a copy with nothing new: Stats %+v, want nothing stored and no restart", st)
	}
}

func TestUnknownKindRefused(t *testing.T) {
	c, _ := newCopier(t, storetest.Open(t, "sqlite"), config.Source{Kind: "vim"})
	_, err := c.CopyAll(context.Background())
	if err == nil || !strings.Contains(err.Error(), "known kinds: claude-code, cursor, codex") {
		t.Errorf("unknown kind: %v", err)
	}
}

func TestSourceHomes(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		name string
		src  config.Source
		env  map[string]string
		want string
	}{
		{"claude default", config.Source{Kind: ClaudeCode}, map[string]string{"HOME": "/h"}, "/h/.claude/projects"},
		{"CLAUDE_CONFIG_DIR", config.Source{Kind: ClaudeCode}, map[string]string{"HOME": "/h", EnvClaudeConfigDir: "/cfg/claude"}, "/cfg/claude/projects"},
		{"configured home wins", config.Source{Kind: ClaudeCode, Home: "~/alt"}, map[string]string{"HOME": "/h", EnvClaudeConfigDir: "/cfg"}, "/h/alt/projects"},
		{"cursor default", config.Source{Kind: Cursor}, map[string]string{"HOME": "/h", EnvClaudeConfigDir: "/cfg"}, "/h/.cursor/projects"},
	} {
		rs, err := resolve([]config.Source{tc.src}, env(tc.env))
		if err != nil || rs[0].projects != tc.want {
			t.Errorf("%s: projects %v (%v), want %s", tc.name, rs, err, tc.want)
		}
	}
	if got := ClaudeFolder(`C:\dev\app`); got != "C--dev-app" {
		t.Errorf("ClaudeFolder = %q", got)
	}
	if got := ClaudeFolder("/home/a/app"); got != "-home-a-app" {
		t.Errorf("ClaudeFolder = %q", got)
	}
	if got := CursorSlug(`C:\dev\app`); !strings.EqualFold(got, "c-dev-app") {
		t.Errorf("CursorSlug = %q", got)
	}
}

// A home that moves (CLAUDE_CONFIG_DIR changed, ~/.claude synced to a new
// machine) is followed from its new place without copying its lines twice.
func TestMovedHomeDoesNotDouble(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	srcA, dirA := claudeHome(t, "/w/app")
	body := append(userLine("s", "/w/app", "one"), userLine("s", "/w/app", "two")...)
	writeFile(t, filepath.Join(dirA, "s.jsonl"), body)
	c, _ := newCopier(t, db, srcA)
	copyAll(t, c)
	srcB, dirB := claudeHome(t, "/w/app")
	writeFile(t, filepath.Join(dirB, "s.jsonl"), append(body, userLine("s", "/w/app", "three")...))
	c2, _ := newCopier(t, db, srcB)
	rep := copyAll(t, c2)
	if rep.Events != 1 || rep.Duplicates != 2 || eventCount(t, db, "") != 3 {
		t.Fatalf("moved home: %d new events, %d duplicates, %d stored; want 1, 2, 3", rep.Events, rep.Duplicates, eventCount(t, db, ""))
	}
}

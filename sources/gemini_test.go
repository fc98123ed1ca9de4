package sources

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

const (
	geminiJSONL  = "gemini/vibecodingtracker/f64d3c6/test_conversation_gemini.jsonl"
	geminiLegacy = "gemini/vibecodingtracker/894772f/test_conversation_gemini.json"
)

// geminiDoc writes a legacy chat the way Gemini CLI does: the whole
// record, pretty-printed, no trailing newline.
func geminiDoc(t *testing.T, path, cwd string, messages ...map[string]any) {
	t.Helper()
	doc := map[string]any{"sessionId": "0ab84937-9fe7-4284-986a-33c832af0b6a", "projectHash": GeminiProjectHash(cwd),
		"startTime": "2026-04-23T12:52:52.759Z", "lastUpdated": "2026-04-23T12:53:52.759Z", "messages": messages}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, b)
}

func userMsg(id, text string) map[string]any {
	return map[string]any{"id": id, "timestamp": "2026-04-23T12:53:05.283Z", "type": "user", "content": []map[string]string{{"text": text}}}
}

func geminiMsg(id, text string, calls ...string) map[string]any {
	m := map[string]any{"id": id, "timestamp": "2026-04-23T12:53:09.000Z", "type": "gemini", "content": text, "model": "gemini-2.5-pro",
		"thoughts": []map[string]string{{"subject": "Reading", "description": "look at the file"}}}
	var tcs []map[string]any
	for _, c := range calls {
		tcs = append(tcs, map[string]any{"id": c, "name": "read_file", "args": map[string]string{"file_path": c + ".go"}, "status": "success",
			"result": []map[string]any{{"functionResponse": map[string]any{"id": c, "name": "read_file", "response": map[string]string{"output": "package " + c}}}}})
	}
	if tcs != nil {
		m["toolCalls"] = tcs
	}
	return m
}

// TestGeminiRewrittenChatNoLossNoDuplicates: a legacy chat is rewritten
// whole as it grows; each copy adds exactly what is new (a message, a
// tool call that arrived on an earlier message), a half-written rewrite
// is left for later, and a second read adds nothing.
func TestGeminiRewrittenChatNoLossNoDuplicates(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	home := t.TempDir()
	const cwd = "/w/app"
	chats := filepath.Join(home, ".gemini", "tmp", GeminiProjectHash(cwd), "chats")
	path := filepath.Join(chats, "session-2026-04-23T12-52-0ab84937.json")
	geminiDoc(t, path, cwd, userMsg("u1", "Which port does the API use?"), geminiMsg("g1", "Let me check."))
	other := filepath.Join(home, ".gemini", "tmp", GeminiProjectHash("/w/other"), "chats", "session-2026-04-23T12-52-11111111.json")
	geminiDoc(t, other, "/w/other", userMsg("o1", "not this project"))

	src := config.Source{Kind: Gemini, Cwd: cwd}
	c, _ := newCopier(t, db, src)
	c.Getenv = func(k string) string { return map[string]string{EnvGeminiHome: home}[k] }
	files, _ := c.Files(context.Background())
	if len(files) != 1 || files[0] != path {
		t.Fatalf("selected %v, want only the chat whose projectHash is %s's", files, cwd)
	}
	if rep := copyAll(t, c); rep.Events != 2 || rep.Skipped["thought"] != 1 {
		t.Fatalf("first copy: %d events, skipped %v; want 2 and one thought", rep.Events, rep.Skipped)
	}
	// Gemini is caught mid-rewrite: the file is cut short.
	geminiDoc(t, path, cwd, userMsg("u1", "Which port does the API use?"), geminiMsg("g1", "Let me check.", "api"),
		geminiMsg("g2", "The API listens on 8080."))
	full, _ := os.ReadFile(path)
	writeFile(t, path, full[:len(full)/2])
	if rep := copyAll(t, c); rep.Events != 0 || len(rep.Errors) != 0 {
		t.Fatalf("half-written chat: %d events, errors %v; want nothing yet and no error", rep.Events, rep.Errors)
	}
	writeFile(t, path, full)
	rep := copyAll(t, c)
	if rep.Events != 3 {
		t.Fatalf("grown chat: %d events (duplicates %d), want the tool call, its result and g2; %+v", rep.Events, rep.Duplicates, rep)
	}
	if rep := copyAll(t, c); rep.Events != 0 {
		t.Fatalf("unchanged chat copied %d events again", rep.Events)
	}
	got := contents(t, db, path)
	want := []string{"Which port does the API use?", "Let me check.", `{"id":"api","input":{"file_path":"api.go"},"name":"read_file"}`, "package api", "The API listens on 8080."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("stored\n%q\nwant\n%q", got, want)
	}
	var project, sid string
	if err := db.QueryRow(`SELECT id, project FROM sessions WHERE source = 'gemini'`).Scan(&sid, &project); err != nil {
		t.Fatal(err)
	}
	if sid != "session-2026-04-23T12-52-0ab84937" || project != cwd {
		t.Errorf("session %q project %q; want the chat's name and the source's cwd (its hash matched)", sid, project)
	}

	// Resuming a legacy chat makes Gemini write it again as <name>.jsonl:
	// the messages it restates are not stored twice.
	var lines []string
	lines = append(lines, `{"sessionId":"0ab84937-9fe7-4284-986a-33c832af0b6a","projectHash":"`+GeminiProjectHash(cwd)+`","kind":"main"}`)
	for _, m := range []map[string]any{userMsg("u1", "Which port does the API use?"), geminiMsg("g1", "Let me check.", "api"), geminiMsg("g2", "The API listens on 8080."), userMsg("u2", "And in staging?")} {
		b, _ := json.Marshal(m)
		lines = append(lines, string(b))
	}
	writeFile(t, path+"l", []byte(strings.Join(lines, "\n")+"\n"))
	if rep := copyAll(t, c); rep.Events != 1 {
		t.Fatalf("resumed chat as JSONL: %d events, want only the new prompt", rep.Events)
	}
}

// TestGeminiJSONLAndProjectRoot copies the real JSONL chat (messages
// re-appended with their tool calls are stored once) and the real legacy
// chat, selected through the project folder's .project_root (v0.29+).
func TestGeminiJSONLAndProjectRoot(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	home := t.TempDir()
	proj := geminiProjectDir(t, home, "vibe-coding-tracker", "/home/wei/vibe-coding-tracker")
	jsonl := filepath.Join(proj, "chats", "session-2026-04-23T12-52-0ab84937.jsonl")
	legacy := filepath.Join(proj, "chats", "session-2026-03-27T10-19-8a20078e.json")
	copyFixture(t, geminiJSONL, jsonl)
	copyFixture(t, geminiLegacy, legacy)
	copyFixture(t, geminiLegacy, filepath.Join(home, ".gemini", "tmp", "other", "chats", "session-x.json"))

	src := config.Source{Kind: Gemini, Home: filepath.Join(home, ".gemini"), Cwd: "/home/wei"}
	c, _ := newCopier(t, db, src)
	files, _ := c.Files(context.Background())
	if len(files) != 2 {
		t.Fatalf("selected %v, want the two chats under the project whose .project_root is inside /home/wei", files)
	}
	rep := copyAll(t, c)
	// 29 distinct events in the JSONL chat (30 mapped, one message's text
	// re-appended), 16 in the legacy one (see the goldens).
	if n := eventCount(t, db, jsonl); n != 29 {
		t.Errorf("JSONL chat stored %d events, want 29", n)
	}
	if n := eventCount(t, db, legacy); n != 16 {
		t.Errorf("legacy chat stored %d events, want 16", n)
	}
	if rep.Skipped["$set"] != 11 || rep.Skipped["message/info"] != 2 {
		t.Errorf("skipped %v; want 11 $set and 2 info notices counted", rep.Skipped)
	}
	var project string
	db.QueryRow(`SELECT project FROM sessions WHERE id = 'session-2026-04-23T12-52-0ab84937'`).Scan(&project)
	if project != "/home/wei/vibe-coding-tracker" {
		t.Errorf("project %q, want the .project_root path", project)
	}
	if rep := copyAll(t, c); rep.Events != 0 {
		t.Errorf("second copy wrote %d events", rep.Events)
	}
}

// TestGeminiWatcherFollowsRewrites: the watcher reports a legacy .json
// chat each time Gemini rewrites it, and the copy adds what is new.
func TestGeminiWatcherFollowsRewrites(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	home := filepath.Join(t.TempDir(), ".gemini")
	if err := os.MkdirAll(filepath.Join(home, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := config.Source{Kind: Gemini, Home: home}
	c, _ := newCopier(t, db, src)
	follow(t, c, src)
	path := filepath.Join(home, "tmp", GeminiProjectHash("/w/app"), "chats", "session-2026-04-23T12-52-0ab84937.json")
	geminiDoc(t, path, "/w/app", userMsg("u1", "Deploy with Terraform."))
	storetest.Eventually(t, "the new chat copied", func() bool { return eventCount(t, db, path) == 1 })
	geminiDoc(t, path, "/w/app", userMsg("u1", "Deploy with Terraform."), geminiMsg("g1", "Noted."))
	storetest.Eventually(t, "the rewritten chat's new message copied", func() bool { return eventCount(t, db, path) == 2 })
}

// TestGeminiCompressionSummary: after a compression Gemini writes the new
// history as a $set whose messages replace the old list; the turns it keeps
// restate earlier lines (same ids) and are not stored again, and the
// summary it made up is stored once, as a compaction summary artifact, not
// as the user's word. The chat is written by us after Gemini CLI's
// updateMessagesFromHistory (an existing id keeps its record, a new turn
// gets a record of its own); no real sample with a compression exists.
func TestGeminiCompressionSummary(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	home := t.TempDir()
	proj := geminiProjectDir(t, home, "inventory", "/home/dev/inventory")
	chat := filepath.Join(proj, "chats", "session-2026-05-02T09-00-5f2c9a1e.jsonl")
	msg := func(id, typ, text string) string {
		return `{"id":"` + id + `","timestamp":"2026-05-02T09:0` + id[len(id)-1:] + `:00.000Z","type":"` + typ + `","content":[{"text":"` + text + `"}]}`
	}
	lines := []string{
		`{"sessionId":"5f2c9a1e-0000-4000-8000-000000000001","projectHash":"x","startTime":"2026-05-02T09:00:00.000Z","lastUpdated":"2026-05-02T09:00:00.000Z","kind":"main"}`,
		msg("u1", "user", "The inventory service must keep using Postgres 15."),
		msg("g1", "gemini", "Understood, I will keep Postgres 15."),
		msg("u2", "user", "Add a health check endpoint."),
		msg("g2", "gemini", "Added GET /healthz."),
		`{"$set":{"messages":[` + msg("s1", "user", "<state_snapshot>The user keeps Postgres 15; a /healthz endpoint was added.</state_snapshot>") + `,` +
			msg("s2", "gemini", "Got it. Thanks for the additional context!") + `,` + msg("u2", "user", "Add a health check endpoint.") + `,` +
			msg("g2", "gemini", "Added GET /healthz.") + `],"lastUpdated":"2026-05-02T09:05:00.000Z"}}`,
		msg("u3", "user", "Now add request logging."),
	}
	writeFile(t, chat, []byte(strings.Join(lines, "\n")+"\n"))
	c, _ := newCopier(t, db, config.Source{Kind: Gemini, Home: filepath.Join(home, ".gemini"), Cwd: "/home/dev/inventory"})
	copyAll(t, c)
	rows, err := db.Query(`SELECT role, event_type, content, json_extract(metadata, '$.compact_summary') IS NOT NULL FROM session_events ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var role, typ, content string
		var summary bool
		if err := rows.Scan(&role, &typ, &content, &summary); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s/%s summary=%v: %s", role, typ, summary, content))
	}
	want := []string{
		"user/message summary=false: The inventory service must keep using Postgres 15.",
		"assistant/message summary=false: Understood, I will keep Postgres 15.",
		"user/message summary=false: Add a health check endpoint.",
		"assistant/message summary=false: Added GET /healthz.",
		"user/artifact summary=true: <state_snapshot>The user keeps Postgres 15; a /healthz endpoint was added.</state_snapshot>",
		"assistant/message summary=false: Got it. Thanks for the additional context!",
		"user/message summary=false: Now add request logging.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stored:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rep := copyAll(t, c); rep.Events != 0 {
		t.Errorf("a second copy stored %d events", rep.Events)
	}
}

// geminiProjectDir lays out Gemini's folder for a project under home
// (.gemini/tmp/<slug>, its .project_root naming root) and returns it.
func geminiProjectDir(t *testing.T, home, slug, root string) string {
	t.Helper()
	proj := filepath.Join(home, ".gemini", "tmp", slug)
	writeFile(t, filepath.Join(proj, ".project_root"), []byte(root+"\n"))
	return proj
}

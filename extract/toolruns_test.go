package extract

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/recollect/recollect/store"
)

func toolEvent(seq int64, typ, id, content string, isError bool) store.Event {
	meta, _ := json.Marshal(map[string]any{"tool_use_id": id, "is_error": isError})
	role := "assistant"
	if typ == "tool_result" {
		role = "tool"
	}
	return store.Event{Seq: seq, Role: role, EventType: typ, ContentType: "text", Content: content, Metadata: meta}
}

func TestRunFixes(t *testing.T) {
	bash := func(cmd string) string {
		b, _ := json.Marshal(map[string]any{"name": "Bash", "input": map[string]any{"command": cmd}})
		return string(b)
	}
	edit := `{"name":"Edit","input":{"file_path":"/w/app/lib/app/cache.ex"}}`
	codexPatch := `{"name":"shell","input":{"command":["bash","-lc","apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/upload.py\n@@\n-x\n+y\n*** End Patch\nEOF"]}}`
	codexRun := `{"name":"shell","input":{"command":["bash","-lc","pytest -q tests/test_upload.py"]}}`
	cases := []struct {
		name   string
		events []store.Event
		want   []string
	}{
		{"fail, edit, pass", []store.Event{
			toolEvent(1, "tool_call", "a", bash("cd /w/app && mix test 2>&1 | tail -20"), false),
			toolEvent(2, "tool_result", "a", "Exit code 1\nCompiling 2 files (.ex)\n** (CompileError) lib/app/cache.ex:12: undefined function put/3\n", true),
			toolEvent(3, "tool_call", "b", edit, false),
			toolEvent(4, "tool_result", "b", "The file was updated.", false),
			toolEvent(5, "tool_call", "c", bash("mix test"), false),
			toolEvent(6, "tool_result", "c", "12 tests, 0 failures", false),
		}, []string{"fix|app: `mix test` failed with \"** (CompileError) lib/app/cache.ex:12: undefined function put/3\"; fixed by editing lib/app/cache.ex, after which it passed."}},
		{"pass without an edit is a flaky run, not a fix", []store.Event{
			toolEvent(1, "tool_call", "a", bash("go test ./..."), false),
			toolEvent(2, "tool_result", "a", "Exit code 1\n--- FAIL: TestX (0.01s)", true),
			toolEvent(3, "tool_call", "b", bash("go test ./..."), false),
			toolEvent(4, "tool_result", "b", "ok  example.com/x 0.1s", false),
		}, nil},
		{"a command that is not a check", []store.Event{
			toolEvent(1, "tool_call", "a", bash("git push"), false),
			toolEvent(2, "tool_result", "a", "Exit code 128\nfatal: no upstream", true),
			toolEvent(3, "tool_call", "b", edit, false),
			toolEvent(4, "tool_call", "c", bash("git push"), false),
			toolEvent(5, "tool_result", "c", "done", false),
		}, nil},
		{"codex exit codes and apply_patch", []store.Event{
			toolEvent(1, "tool_call", "a", codexRun, false),
			toolEvent(2, "tool_result", "a", `{"output":"FAILED tests/test_upload.py::test_retry - AssertionError: expected 3 retries\n","metadata":{"exit_code":1}}`, false),
			toolEvent(3, "tool_call", "b", codexPatch, false),
			toolEvent(4, "tool_call", "c", codexRun, false),
			toolEvent(5, "tool_result", "c", `{"output":"3 passed in 0.2s\n","metadata":{"exit_code":0}}`, false),
		}, []string{"fix|app: `pytest -q tests/test_upload.py` failed with \"FAILED tests/test_upload.py::test_retry - AssertionError: expected 3 retries\"; fixed by editing src/upload.py, after which it passed."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range runFixes(tc.events, "/w/app") {
				got = append(got, c.Kind+"|"+c.Content)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("fixes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

package sources

import (
	"bufio"
	"errors"
	"os"
	"testing"
	"unicode/utf8"
)

// FuzzMap: any line of either kind maps to events that would pass the
// store's validation, or to an error wrapping ErrMalformed; never a panic.
func FuzzMap(f *testing.F) {
	for _, path := range fixtureFilesForFuzz(f) {
		file, err := os.Open(path)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(file)
		sc.Buffer(make([]byte, 1<<20), MaxLineBytes)
		for n := 0; sc.Scan() && n < 30; n++ {
			f.Add(kindOf(path[len(fixtureRoot)+1:]), append([]byte(nil), sc.Bytes()...))
		}
		file.Close()
	}
	for _, s := range []string{`{}`, `{"type":"user"}`, `{"role":"user","message":{"content":[{"type":"text","text":"<user_query>hi</user_query>"}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"ls"}}]}}`, `{"type":"user","message":{"content":7}}`,
		`not json`, `[]`, `{"type":"summary","summary":"x","leafUuid":"u"}`, "{\"type\":\"user\",\"message\":{\"content\":\"\xff\"}}"} {
		f.Add(ClaudeCode, []byte(s))
		f.Add(Cursor, []byte(s))
		f.Add(Codex, []byte(s))
	}
	f.Add(Codex, []byte(`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{","call_id":"c"}}`))
	f.Add(Codex, []byte(`{"type":"compacted","payload":{"message":7}}`))
	f.Fuzz(func(t *testing.T, kind string, line []byte) {
		if kind != ClaudeCode && kind != Cursor && kind != Codex && kind != Gemini {
			kind = ClaudeCode
		}
		m, err := Map(kind, "/fuzz/session.jsonl", line)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Map error %v does not wrap ErrMalformed", err)
			}
			return
		}
		for i := range m.Events {
			ev := m.Events[i]
			if err := ev.Validate(); err != nil {
				t.Fatalf("event %d of %q would be refused by the store: %v (%+v)", i, line, err, ev)
			}
			if !utf8.ValidString(ev.Content) {
				t.Fatalf("event %d content is not valid UTF-8: %q", i, ev.Content)
			}
		}
	})
}

func fixtureFilesForFuzz(f *testing.F) []string {
	f.Helper()
	return fixtureFiles(f)
}

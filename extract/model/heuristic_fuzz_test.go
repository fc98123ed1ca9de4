package model

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// addTranscriptSeeds adds the text of the user messages in the
// repository's real transcripts, and the demo statements, to a fuzz corpus.
func addTranscriptSeeds(f *testing.F) {
	f.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "demo", "statements.txt"))
	if err != nil {
		f.Fatalf("read the demo statements for seeds: %v", err)
	}
	f.Add(string(data))
	files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "transcripts", "claude-code", "*", "*", "*.jsonl"))
	if len(files) == 0 {
		f.Fatal("no Claude Code transcripts under fixtures/transcripts to seed from; the path is wrong")
	}
	for _, path := range files {
		file, err := os.Open(path)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(file)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for n := 0; sc.Scan() && n < 40; {
			var rec struct {
				Type    string `json:"type"`
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			var text string
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Type == "user" && json.Unmarshal(rec.Message.Content, &text) == nil && text != "" {
				f.Add(text)
				n++
			}
		}
		file.Close()
	}
}

// collapse folds whitespace runs to one space: HeuristicFacts joins the
// lines of a paragraph, so its sentences are substrings up to whitespace.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// FuzzHeuristicFacts: whatever the text, the heuristic never panics and
// never invents: each fact is the text's own words, in order.
func FuzzHeuristicFacts(f *testing.F) {
	for _, s := range []string{"I live in Lisbon. My manager is Robin.", "```go\nfunc main() {}\n```\nWe use Postgres 16 in production.",
		"Dr. Smith works at Acme Corp. He prefers tea.", "e.g. this is. i.e. that!", "ünïcödé wörds are here and they are fine.", "\x00\xff."} {
		f.Add(s)
	}
	addTranscriptSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		facts := HeuristicFacts(text)
		whole := collapse(strings.ToValidUTF8(text, "\uFFFD"))
		for _, fact := range facts {
			if strings.TrimSpace(fact) == "" {
				t.Fatalf("empty fact from %q", text)
			}
			if !strings.Contains(whole, collapse(fact)) {
				t.Fatalf("fact %q is not the text's own words (text %q)", fact, text)
			}
			if !utf8.ValidString(fact) {
				t.Fatalf("fact %q is not valid UTF-8", fact)
			}
		}
	})
}

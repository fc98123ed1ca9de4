package sources

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixtureRoot holds byte-for-byte copies of the shared real transcripts.
const fixtureRoot = "../fixtures/transcripts"

// goldenEvent is an event as pinned by a golden file: long content is cut
// (its length is kept) so goldens stay readable.
type goldenEvent struct {
	Line        int             `json:"line"`
	Session     string          `json:"session"`
	Role        string          `json:"role"`
	EventType   string          `json:"event_type"`
	ContentType string          `json:"content_type"`
	Content     string          `json:"content"`
	Bytes       int             `json:"content_bytes"`
	ContentRef  string          `json:"content_ref,omitempty"`
	Metadata    json.RawMessage `json:"metadata,omitempty"`
	OccurredAt  string          `json:"occurred_at,omitempty"`
}

type goldenFile struct {
	File    string         `json:"file"`
	Kind    string         `json:"kind"`
	Lines   int            `json:"lines"`
	Events  int            `json:"events"`
	ByType  map[string]int `json:"events_by_type"`
	Skipped map[string]int `json:"skipped"`
	Bad     map[string]int `json:"bad_lines"`
	List    []goldenEvent  `json:"list"`
}

func fixtureFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(fixtureRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk fixtures: %v", err)
	}
	sort.Strings(files)
	if len(files) < 15 {
		t.Fatalf("found %d fixture transcripts under %s, want every file of the shared collection", len(files), fixtureRoot)
	}
	return files
}

func kindOf(rel string) string {
	if strings.HasPrefix(rel, "cursor/") {
		return Cursor
	}
	return ClaudeCode
}

func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// mapFile maps every line of a fixture the way the copier does.
func mapFile(t *testing.T, path, rel string) goldenFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g := goldenFile{File: rel, Kind: kindOf(rel), ByType: map[string]int{}, Skipped: map[string]int{}, Bad: map[string]int{}, List: []goldenEvent{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), MaxLineBytes)
	for sc.Scan() {
		g.Lines++
		m, err := Map(g.Kind, rel, sc.Bytes())
		if err != nil {
			g.Bad["malformed_json"]++
			continue
		}
		for _, s := range m.Skipped {
			g.Skipped[s]++
		}
		for _, ev := range m.Events {
			if err := ev.Validate(); err != nil {
				t.Errorf("%s line %d: mapped event invalid: %v", rel, g.Lines, err)
			}
			ge := goldenEvent{Line: g.Lines, Session: ev.SessionID, Role: ev.Role, EventType: ev.EventType,
				ContentType: ev.ContentType, Content: cut(ev.Content, 160), Bytes: len(ev.Content),
				ContentRef: ev.ContentRef, Metadata: ev.Metadata}
			if ev.OccurredAt != nil {
				ge.OccurredAt = ev.OccurredAt.Format("2006-01-02T15:04:05.000Z")
			}
			g.List = append(g.List, ge)
			g.ByType[ev.Role+"/"+ev.EventType]++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	g.Events = len(g.List)
	return g
}

// TestMapGolden pins how every record type of every real fixture maps.
// Run with -update after an intended change and review the diff.
func TestMapGolden(t *testing.T) {
	for _, path := range fixtureFiles(t) {
		rel, _ := filepath.Rel(fixtureRoot, path)
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			g := mapFile(t, path, rel)
			got, err := json.MarshalIndent(g, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join("testdata", "golden", strings.ReplaceAll(strings.TrimSuffix(rel, ".jsonl"), "/", "__")+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run go test -tags sqlite_fts5 ./sources -run TestMapGolden -update): %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s maps differently from %s; if intended, rerun with -update and review the diff", rel, golden)
			}
		})
	}
}

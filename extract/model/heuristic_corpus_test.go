package model

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// A labelled candidate: one unit of a message, judged by a person reading
// it (keep when a user would want it remembered), with the reason.
type labelled struct {
	File  string `json:"file,omitempty"`
	Role  string `json:"role,omitempty"`
	Label string `json:"label"`
	Why   string `json:"why"`
	Text  string `json:"text"`
}

const (
	transcriptRoot = "../../fixtures/transcripts"
	realLabels     = "testdata/labelled/real.jsonl"
	writtenLabels  = "testdata/labelled/written.jsonl"
)

func readLabels(t *testing.T, path string) []labelled {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read labels: %v", err)
	}
	var out []labelled
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var l labelled
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		if (l.Label != "keep" && l.Label != "skip") || strings.TrimSpace(l.Why) == "" {
			t.Fatalf("%s:%d: label %q why %q; want keep or skip with a reason", path, i+1, l.Label, l.Why)
		}
		out = append(out, l)
	}
	return out
}

// corpusCandidate is a unit as the extractor sees it, with what the
// heuristic extractor made of it.
type corpusCandidate struct {
	file, role, text string
	kept             bool
}

// realCandidates reads every Claude Code and Cursor transcript of the
// repository's fixtures through the sources mapping, keeps the events the
// extract stage hands to an extractor under the default configuration
// (the stage's SQL filter, restated), and splits them into the units the
// heuristic judges.
func realCandidates(t *testing.T) []corpusCandidate {
	t.Helper()
	cfg := config.Default().Extraction
	var files []string
	err := filepath.WalkDir(transcriptRoot, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatalf("walk fixtures: %v", err)
	}
	sort.Strings(files)
	var out []corpusCandidate
	for _, path := range files {
		rel := filepath.ToSlash(strings.TrimPrefix(path, transcriptRoot+"/"))
		kind := sources.ClaudeCode
		if strings.HasPrefix(rel, "cursor/") {
			kind = sources.Cursor
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), sources.MaxLineBytes)
		var events []store.Event
		for sc.Scan() {
			m, err := sources.Map(kind, rel, sc.Bytes())
			if err != nil {
				continue
			}
			for _, ev := range m.Events {
				if !slices.Contains(cfg.EventTypes, ev.EventType) || !slices.Contains(cfg.Roles, ev.Role) || len(ev.Content) < cfg.MinContentLength {
					continue
				}
				if len(ev.Content) > cfg.MaxContentChars {
					ev.Content = truncateUTF8(ev.Content, cfg.MaxContentChars) + " […truncated]"
				}
				ev.Seq = int64(len(events) + 1)
				events = append(events, ev)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("read %s: %v", rel, err)
		}
		kept := map[string]bool{}
		for _, ev := range events {
			if !HeuristicReads(ev) {
				continue
			}
			for _, s := range HeuristicFacts(ev.Content) {
				kept[fmt.Sprint(ev.Seq, "\x00", s)] = true
			}
		}
		for _, ev := range events {
			for _, u := range units(ev.Content) {
				out = append(out, corpusCandidate{file: rel, role: roleLabel(ev), text: u.Text,
					kept: kept[fmt.Sprint(ev.Seq, "\x00", u.statement())]})
			}
		}
	}
	return out
}

func roleLabel(ev store.Event) string {
	if ev.Speaker != "" {
		return ev.Role + " (" + ev.Speaker + ")"
	}
	return ev.Role
}

// score counts true and false positives and negatives.
type score struct{ tp, fp, fn, tn int }

func (s *score) add(want, got bool) {
	switch {
	case want && got:
		s.tp++
	case !want && got:
		s.fp++
	case want && !got:
		s.fn++
	default:
		s.tn++
	}
}

func (s score) precision() (float64, bool) {
	if s.tp+s.fp == 0 {
		return 0, false
	}
	return float64(s.tp) / float64(s.tp+s.fp), true
}

func (s score) recall() (float64, bool) {
	if s.tp+s.fn == 0 {
		return 0, false
	}
	return float64(s.tp) / float64(s.tp+s.fn), true
}

func (s score) String() string {
	f := func(v float64, ok bool, why string) string {
		if !ok {
			return "unknown (" + why + ")"
		}
		return fmt.Sprintf("%.2f", v)
	}
	p, pok := s.precision()
	r, rok := s.recall()
	return fmt.Sprintf("%d candidates, %d labelled keep: precision %s, recall %s (tp %d fp %d fn %d tn %d)",
		s.tp+s.fp+s.fn+s.tn, s.tp+s.fn, f(p, pok, "nothing kept"), f(r, rok, "no keep labels"), s.tp, s.fp, s.fn, s.tn)
}

// TestHeuristicLabelledCorpus measures the heuristic extractor against the
// labelled corpus: every unit the extract stage shows it from the
// repository's real transcripts, and hand-written user messages (marked as
// written) so recall is measured on more than a handful of statements.
func TestHeuristicLabelledCorpus(t *testing.T) {
	labels := map[string]labelled{}
	for _, l := range readLabels(t, realLabels) {
		key := l.File + "\x00" + l.Role + "\x00" + l.Text
		if _, dup := labels[key]; dup {
			t.Fatalf("%s labels %q by %s twice", l.File, l.Text, l.Role)
		}
		labels[key] = l
	}
	var real score
	used := map[string]bool{}
	var missing []string
	for _, c := range realCandidates(t) {
		key := c.file + "\x00" + c.role + "\x00" + c.text
		l, ok := labels[key]
		if !ok {
			b, _ := json.Marshal(labelled{File: c.file, Role: c.role, Text: c.text})
			missing = append(missing, string(b))
			continue
		}
		used[key] = true
		real.add(l.Label == "keep", c.kept)
		if (l.Label == "keep") != c.kept {
			t.Logf("disagrees (label %s, %s): %s: %q", l.Label, l.Why, c.role, cut(c.text, 160))
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d candidates of the real transcripts have no label in %s; label each by reading it:\n%s",
			len(missing), realLabels, strings.Join(missing, "\n"))
	}
	for key, l := range labels {
		if !used[key] {
			t.Errorf("label for a unit the extractor no longer sees (%s): %q", l.File, cut(l.Text, 120))
		}
	}

	var written score
	for _, l := range readLabels(t, writtenLabels) {
		ev := store.Event{Seq: 1, Role: "user", EventType: "message", ContentType: "text", Content: l.Text}
		kept := HeuristicReads(ev) && len(HeuristicFacts(ev.Content)) > 0
		written.add(l.Label == "keep", kept)
		if (l.Label == "keep") != kept {
			t.Logf("disagrees (written, label %s, %s): %q", l.Label, l.Why, l.Text)
		}
	}
	all := score{real.tp + written.tp, real.fp + written.fp, real.fn + written.fn, real.tn + written.tn}
	t.Logf("real transcripts: %s", real)
	t.Logf("written examples: %s", written)
	t.Logf("all: %s", all)
	p, _ := all.precision()
	r, _ := all.recall()
	if p < 0.8 || r < 0.5 {
		t.Errorf("heuristic extraction precision %.2f recall %.2f; targets are precision ≥ 0.8 and recall ≥ 0.5", p, r)
	}
	if rp, ok := real.precision(); ok && rp < 0.8 {
		t.Errorf("precision on the real transcripts alone is %.2f, want ≥ 0.8", rp)
	}
}

// truncateUTF8 cuts s to at most n bytes on a character boundary, as the
// extract stage does with config.Extraction.MaxContentChars.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

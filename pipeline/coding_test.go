package pipeline

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"github.com/recollect/recollect/store/config"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/hookctx"
)

var updateCoding = flag.Bool("update-coding", false, "rewrite testdata/coding-*.golden, keeping the labels of facts still found")

// spotterHome lays the real spotter Claude Code session (1,863 lines, one
// auto compaction) out as a Claude Code home holds it.
func spotterHome(tb testing.TB) string {
	tb.Helper()
	return spotterHomeUpTo(tb, 0)
}

// spotterHomeUpTo is spotterHome with only the session's first lines (all
// of them when lines is 0): the session as it stood at that point.
func spotterHomeUpTo(tb testing.TB, lines int) string {
	tb.Helper()
	src := filepath.Join("..", "fixtures", "transcripts", "claude-code", "spotter", "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
	data, err := os.ReadFile(src)
	if err != nil {
		tb.Fatal(err)
	}
	if lines > 0 {
		all := strings.SplitAfter(string(data), "\n")
		data = []byte(strings.Join(all[:lines], ""))
	}
	home := tb.TempDir()
	dst := filepath.Join(home, "projects", "-home-USER-projects-spotter-worktrees-spotter-gqc", filepath.Base(src))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return home
}

// The session's compaction summary lists eight errors with their fixes and
// two pending tasks. Each is named here by words of its own that a fact
// carrying it must hold (labelled by reading the summary).
var spotterSummaryItems = []struct {
	kind  string
	words []string
}{
	{"fix", []string{"Compile errors", "AnnotationMessageRef", "creating the module"}},
	{"fix", []string{"Stale build artifacts", "mix compile --force"}},
	{"fix", []string{"ALTER TABLE MODIFY", "table rename"}},
	{"fix", []string{"length/1", "pattern match"}},
	{"fix", []string{"Cannot accept [:state]", "attribute"}},
	{"fix", []string{"secret_key_base", "config/test.exs"}},
	{"fix", []string{"lazy_html", "mix.exs"}},
	{"fix", []string{"sandbox isolation", "{:shared, self()}"}},
	{"task", []string{"spotter-gqc.6", "Close project review session"}},
	{"task", []string{"spotter-gqc.7", "Launch project review conversation"}},
}

// TestCodingSessionKnowledge runs a real coding session through the copy,
// extract and integrate steps with the embedded heuristic, as a user's
// store runs it, and checks what was learned: the compaction summary's
// errors and fixes and pending tasks are facts of their kinds, the tasks
// later committed are no longer open, and the facts are the labelled ones
// (testdata/coding-spotter.golden), with precision of at least 0.85.
func TestCodingSessionKnowledge(t *testing.T) {
	p := openCopyTest(t, spotterHome(t))
	if _, err := p.Copy(context.Background()); err != nil {
		t.Fatal(err)
	}
	consolidate(t, p)

	type row struct {
		id                    int64
		kind, status, content string
	}
	var facts []row
	rows, err := p.db.Query(`SELECT id, COALESCE(kind, ''), status, content FROM facts ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.kind, &r.status, &r.content); err != nil {
			t.Fatal(err)
		}
		facts = append(facts, r)
	}
	rows.Close()
	if len(facts) < 25 {
		t.Errorf("%d facts from the spotter session, want at least 25", len(facts))
	}

	found := 0
	for _, item := range spotterSummaryItems {
		var hit *row
		for i := range facts {
			if facts[i].kind == item.kind && containsAll(facts[i].content, item.words) {
				hit = &facts[i]
				break
			}
		}
		if hit == nil {
			t.Logf("summary item %v: no %s fact holds it", item.words, item.kind)
			continue
		}
		found++
		if item.kind == "task" && hit.status != "superseded" {
			t.Errorf("task %q is %s; the session later committed it, so it should be superseded", hit.content, hit.status)
		}
	}
	if share := float64(found) / float64(len(spotterSummaryItems)); share < 0.8 {
		t.Errorf("%d of %d of the summary's errors-and-fixes and pending tasks are facts (%.2f), want at least 0.80", found, len(spotterSummaryItems), share)
	}

	var got []string
	for _, f := range facts {
		got = append(got, f.kind+"\t"+f.content)
	}
	checkLabelled(t, filepath.Join("testdata", "coding-spotter.golden"), got, 0.85)
}

func containsAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// checkLabelled compares facts ("kind\tcontent") with a labelled golden
// file whose lines are "+\tkind\tcontent" (a correct, self-contained
// statement) or "-\tkind\tcontent" (wrong, or not standing alone), and
// requires the labelled precision to reach min. With -update-coding the
// file is rewritten: facts still found keep their label, new ones get "?"
// and fail the test until a person labels them.
func checkLabelled(t *testing.T, path string, facts []string, min float64) {
	t.Helper()
	labels := map[string]string{}
	if f, err := os.Open(path); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			label, rest, ok := strings.Cut(sc.Text(), "\t")
			if ok {
				labels[rest] = label
			}
		}
		f.Close()
	}
	if *updateCoding {
		var b strings.Builder
		for _, f := range facts {
			l := labels[f]
			if l == "" {
				l = "?"
			}
			fmt.Fprintf(&b, "%s\t%s\n", l, f)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	good, bad := 0, 0
	var missing, unlabelled []string
	seen := map[string]bool{}
	for _, f := range facts {
		seen[f] = true
		switch labels[f] {
		case "+":
			good++
		case "-":
			bad++
		default:
			unlabelled = append(unlabelled, f)
		}
	}
	for f := range labels {
		if !seen[f] {
			missing = append(missing, f)
		}
	}
	sort.Strings(missing)
	for _, f := range unlabelled {
		t.Errorf("new fact, not labelled in %s (run with -update-coding, then label it + or -): %s", path, f)
	}
	for _, f := range missing {
		t.Errorf("labelled fact no longer extracted: %s", f)
	}
	if good+bad > 0 {
		precision := float64(good) / float64(good+bad)
		t.Logf("%d facts, labelled precision %.2f (%d correct, %d not)", good+bad, precision, good, bad)
		if precision < min {
			t.Errorf("labelled precision %.2f, want at least %.2f", precision, min)
		}
	}
}

// TestCodingSessionReaders checks what the readers make of a coding
// session's facts: the session-start context names the open tasks and
// recent fixes, a task committed later leaves it, search shows each fact's
// kind and filters on it.
func TestCodingSessionReaders(t *testing.T) {
	ctx := context.Background()
	start := func(p *Pipeline) string {
		t.Helper()
		out, err := hookctx.SessionStart(ctx, p.Reader, hookctx.SessionInput{Source: hookctx.SourceStartup, Budget: 2000})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// Up to line 1370 the session has been compacted and gqc.6 and gqc.7
	// are pending; the commits that close them come after.
	early := openCopyTest(t, spotterHomeUpTo(t, 1370))
	if _, err := early.Copy(ctx); err != nil {
		t.Fatal(err)
	}
	consolidate(t, early)
	ctxEarly := start(early)
	for _, want := range []string{"## Open tasks", "spotter-gqc.6 (in_progress): Close project review session", "spotter-gqc.7",
		"## Recent decisions and fixes", "lazy_html", "## Rules"} {
		if !strings.Contains(ctxEarly, want) {
			t.Errorf("session-start context of the compacted session lacks %q:\n%s", want, ctxEarly)
		}
	}

	p := openCopyTest(t, spotterHome(t))
	if _, err := p.Copy(ctx); err != nil {
		t.Fatal(err)
	}
	consolidate(t, p)
	ctxLate := start(p)
	if strings.Contains(ctxLate, "## Open tasks") || strings.Contains(ctxLate, "task: spotter-gqc.6") {
		t.Errorf("tasks closed by later commits are still listed as open:\n%s", ctxLate)
	}

	ans, err := p.Reader.Search(ctx, graph.Query{Text: "sandbox LiveView test", Limit: 5, Kinds: []string{"fix"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Results) == 0 {
		t.Fatal("no fix found for the LiveView sandbox")
	}
	for _, h := range ans.Results {
		if h.Kind != "fix" {
			t.Errorf("--kind fix returned a %q fact: %s", h.Kind, h.Content)
		}
	}
	var b strings.Builder
	graph.RenderAnswer(&b, ans)
	if !strings.Contains(b.String(), "kind fix · domain") {
		t.Errorf("search output does not show the kind:\n%s", b.String())
	}
}

// copyTree copies the fixture files under src (relative to the fixtures'
// transcripts folder) into dst, renaming each file with rename.
func copyTree(tb testing.TB, src, dst string, rename func(rel string) string) {
	tb.Helper()
	root := filepath.Join("..", "fixtures", "transcripts", src)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".json")) {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		to := filepath.Join(dst, rename(rel))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// TestCodingKnowledgeAcrossAgents runs every other real transcript — the
// other Claude Code sessions, every Codex rollout, every Gemini chat —
// through one copy store with all four sources and checks the facts
// against their labels (testdata/coding-others.golden): precision of at
// least 0.85 on sessions that are not spotter's.
func TestCodingKnowledgeAcrossAgents(t *testing.T) {
	claude, codex, gemini := t.TempDir(), t.TempDir(), t.TempDir()
	for _, dir := range []string{"claude-code-log", "fasthooks"} {
		copyTree(t, filepath.Join("claude-code", dir), filepath.Join(claude, "projects"), func(rel string) string {
			if !strings.Contains(rel, string(filepath.Separator)) {
				return filepath.Join("-"+dir, rel)
			}
			return rel
		})
	}
	n := 0
	copyTree(t, "codex", filepath.Join(codex, "sessions", "2026", "01", "01"), func(rel string) string {
		n++
		base := filepath.Base(rel)
		if !strings.HasPrefix(base, "rollout-") {
			base = fmt.Sprintf("rollout-2026-01-01T00-00-%02d-fixture%02d.jsonl", n, n)
		}
		return base
	})
	copyTree(t, "gemini", filepath.Join(gemini, "tmp"), func(rel string) string {
		dir := strings.ReplaceAll(filepath.Dir(rel), string(filepath.Separator), "-")
		return filepath.Join(dir, "chats", "session-"+dir+filepath.Ext(rel))
	})
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Mode = "copy"
	cfg.Sources = []config.Source{{Kind: "claude-code", Home: claude}, {Kind: "codex", Home: codex}, {Kind: "gemini", Home: gemini}}
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	p, err := Open(context.Background(), dir, Options{Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	rep, err := p.Copy(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Events < 1000 {
		t.Fatalf("copied %d events from the fixtures; the homes are laid out wrong (%+v)", rep.Events, rep)
	}
	consolidate(t, p)
	rows, err := p.db.Query(`SELECT COALESCE(kind, ''), content FROM facts ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var k, c string
		if err := rows.Scan(&k, &c); err != nil {
			t.Fatal(err)
		}
		got = append(got, k+"\t"+c)
	}
	rows.Close()
	checkLabelled(t, filepath.Join("testdata", "coding-others.golden"), got, 0.85)
}

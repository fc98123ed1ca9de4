package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/hookctx"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// CodingSet is a labelled set of questions about real coding sessions:
// for each transcript, what a developer returning to the project would ask
// their agent, with the distinctive words of the answer.
type CodingSet struct {
	Transcripts []CodingTranscript `json:"transcripts"`
}

// CodingTranscript is one real transcript and its questions.
type CodingTranscript struct {
	Name string `json:"name"`
	// Kind is the source kind (claude-code or codex).
	Kind string `json:"kind"`
	// Path is the transcript, relative to the fixtures' transcripts folder.
	Path      string           `json:"path"`
	Questions []CodingQuestion `json:"questions"`
}

// CodingQuestion is a question and the words its answer holds.
type CodingQuestion struct {
	Q      string   `json:"q"`
	Answer []string `json:"answer"`
}

// ReadCodingSet reads a question set.
func ReadCodingSet(path string) (CodingSet, error) {
	var set CodingSet
	data, err := os.ReadFile(path)
	if err != nil {
		return set, fmt.Errorf("read coding questions: %w", err)
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return set, fmt.Errorf("read coding questions %s: %w", path, err)
	}
	return set, nil
}

// CodingOptions configure a coding-session run.
type CodingOptions struct {
	// Set is the question set; Transcripts the folder its paths are under.
	Set         CodingSet
	Transcripts string
	// Work is where stores are built (a temporary folder when empty).
	Work string
	// PromptBudget is the prompt hook's budget (the default config's when 0).
	PromptBudget int
	// SessionBudget is the session-start budget (the default config's when 0).
	SessionBudget int
}

// CodingReport is what a coding-session run measured.
type CodingReport struct {
	Transcripts []CodingResult `json:"transcripts"`
	// Total sums the transcripts.
	Total CodingResult `json:"total"`
}

// CodingResult is one transcript's figures (or the total's).
type CodingResult struct {
	Name      string         `json:"name"`
	Events    int            `json:"events"`
	Facts     map[string]int `json:"facts_by_kind"`
	Questions int            `json:"questions"`
	// Answered counts questions whose answer words all sit in one of the
	// top 10 results of recollect search (a fact, or an event of an
	// episode), BM25 in one of the top 10 messages.
	Answered      int `json:"answered"`
	BM25          int `json:"bm25_answered"`
	AfterPrune    int `json:"answered_after_prune"`
	PromptContext int `json:"prompt_hook_added"`
	PromptAnswer  int `json:"prompt_hook_answered"`
	Pruned        int `json:"events_pruned"`
	// SessionStart names the sections the session-start context held.
	SessionStart []string `json:"session_start_sections,omitempty"`
	// Missed lists the questions recollect did not answer.
	Missed []string `json:"missed,omitempty"`
}

// RunCoding builds one store per transcript through the user's path — a
// copy store over an agent home holding the transcript, every step with
// the default config (the embedded heuristic) — and asks each question of
// recollect search (limit 10), of the prompt hook, and after prune --apply
// --vacuum again; beside it, plain BM25 over the same transcript's user
// and assistant text messages, one document a message.
func RunCoding(ctx context.Context, opts CodingOptions) (CodingReport, error) {
	var rep CodingReport
	rep.Total = CodingResult{Name: "total", Facts: map[string]int{}}
	work := opts.Work
	if work == "" {
		dir, err := os.MkdirTemp("", "recollect-bench-coding-")
		if err != nil {
			return rep, err
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	def := config.Default()
	if opts.PromptBudget == 0 {
		opts.PromptBudget = def.Context.PromptBudget
	}
	if opts.SessionBudget == 0 {
		opts.SessionBudget = def.Context.SessionBudget
	}
	for i, tr := range opts.Set.Transcripts {
		res, err := runCodingTranscript(ctx, filepath.Join(work, fmt.Sprint(i)), opts, tr)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", tr.Name, err)
		}
		rep.Transcripts = append(rep.Transcripts, res)
		t := &rep.Total
		t.Events += res.Events
		t.Questions += res.Questions
		t.Answered += res.Answered
		t.BM25 += res.BM25
		t.AfterPrune += res.AfterPrune
		t.PromptContext += res.PromptContext
		t.PromptAnswer += res.PromptAnswer
		t.Pruned += res.Pruned
		for k, n := range res.Facts {
			t.Facts[k] += n
		}
	}
	return rep, nil
}

// agentHome lays a transcript out in a home of its kind.
func agentHome(home, kind, src string) error {
	var dst string
	switch kind {
	case "claude-code":
		dst = filepath.Join(home, "projects", "-bench-project", filepath.Base(src))
	case "codex":
		base := filepath.Base(src)
		if !strings.HasPrefix(base, "rollout-") {
			base = "rollout-2026-01-01T00-00-00-" + base
		}
		dst = filepath.Join(home, "sessions", "2026", "01", "01", base)
	default:
		return fmt.Errorf("source kind %q: the coding bench reads claude-code and codex transcripts", kind)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o600)
}

func runCodingTranscript(ctx context.Context, dir string, opts CodingOptions, tr CodingTranscript) (CodingResult, error) {
	res := CodingResult{Name: tr.Name, Facts: map[string]int{}, Questions: len(tr.Questions)}
	home := filepath.Join(dir, "home")
	if err := agentHome(home, tr.Kind, filepath.Join(opts.Transcripts, tr.Path)); err != nil {
		return res, err
	}
	data := filepath.Join(dir, "store")
	cfg := config.Default()
	cfg.Mode = "copy"
	cfg.Sources = []config.Source{{Kind: tr.Kind, Home: home}}
	if err := os.MkdirAll(data, 0o700); err != nil {
		return res, err
	}
	if err := config.Write(data, cfg); err != nil {
		return res, err
	}
	p, err := pipeline.Open(ctx, data, pipeline.Options{Getenv: func(string) string { return "" }, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return res, err
	}
	defer p.Close()
	if _, err := p.Run(ctx, pipeline.RunOptions{Steps: pipeline.Steps{Copy: true, Extract: true, Integrate: true}, Extract: extract.Options{All: true}, Trigger: "bench"}); err != nil {
		return res, err
	}
	if err := p.DB.QueryRowContext(ctx, `SELECT count(*) FROM session_events`).Scan(&res.Events); err != nil {
		return res, err
	}
	rows, err := p.DB.QueryContext(ctx, `SELECT COALESCE(kind, 'none'), count(*) FROM facts WHERE status = 'active' GROUP BY 1`)
	if err != nil {
		return res, err
	}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			rows.Close()
			return res, err
		}
		res.Facts[k] = n
	}
	rows.Close()
	msgs, err := messageTexts(ctx, p.DB)
	if err != nil {
		return res, err
	}
	bm := newBM25(msgs)
	start, err := hookctx.SessionStart(ctx, p.Reader, hookctx.SessionInput{Source: hookctx.SourceStartup, Budget: opts.SessionBudget})
	if err != nil {
		return res, err
	}
	for _, line := range strings.Split(start, "\n") {
		if strings.HasPrefix(line, "## ") {
			res.SessionStart = append(res.SessionStart, strings.TrimPrefix(line, "## "))
		}
	}
	before := make([]bool, len(tr.Questions))
	for i, q := range tr.Questions {
		ok, err := searchAnswers(ctx, p.Reader, q)
		if err != nil {
			return res, err
		}
		before[i] = ok
		if ok {
			res.Answered++
		} else {
			res.Missed = append(res.Missed, q.Q)
		}
		if holdsAll(bm.top(q.Q, 10), q.Answer) {
			res.BM25++
		}
		added, err := hookctx.Prompt(ctx, p.Reader, q.Q, opts.PromptBudget)
		if err != nil {
			return res, err
		}
		if added != "" {
			res.PromptContext++
			if containsAll(added, q.Answer) {
				res.PromptAnswer++
			}
		}
	}
	pr, err := p.Prune(ctx, pipeline.PruneOptions{Apply: true, Vacuum: true, Actor: "bench"})
	if err != nil {
		return res, err
	}
	res.Pruned = pr.Events
	for _, q := range tr.Questions {
		ok, err := searchAnswers(ctx, p.Reader, q)
		if err != nil {
			return res, err
		}
		if ok {
			res.AfterPrune++
		}
	}
	return res, nil
}

// searchAnswers asks recollect search for q (limit 10) and reports whether
// one result — a fact, or an event of an episode — holds every answer word.
func searchAnswers(ctx context.Context, r *graph.Reader, q CodingQuestion) (bool, error) {
	ans, err := r.Search(ctx, graph.Query{Text: q.Q, Limit: 10})
	if err != nil {
		return false, err
	}
	var texts []string
	for _, h := range ans.Results {
		texts = append(texts, h.Content)
	}
	for _, ep := range ans.Episodes {
		for _, ev := range ep.Events {
			texts = append(texts, ev.Content)
		}
	}
	return holdsAll(texts, q.Answer), nil
}

// holdsAll reports whether one of texts holds every word.
func holdsAll(texts []string, words []string) bool {
	for _, t := range texts {
		if containsAll(t, words) {
			return true
		}
	}
	return false
}

func containsAll(text string, words []string) bool {
	lt := strings.ToLower(text)
	for _, w := range words {
		if !strings.Contains(lt, strings.ToLower(w)) {
			return false
		}
	}
	return true
}

// messageTexts are the store's user and assistant text messages: the
// documents of the BM25 baseline.
func messageTexts(ctx context.Context, db *store.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT content FROM session_events WHERE event_type = 'message' AND role IN ('user', 'assistant') AND content_type = 'text' ORDER BY seq`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// bm25 is plain Okapi BM25 (k1 1.2, b 0.75) over documents split into
// lowercase letter-and-digit words.
type bm25 struct {
	docs  []string
	terms []map[string]int
	lens  []int
	df    map[string]int
	avg   float64
}

func bm25Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func newBM25(docs []string) *bm25 {
	b := &bm25{docs: docs, df: map[string]int{}}
	total := 0
	for _, d := range docs {
		tf := map[string]int{}
		ws := bm25Words(d)
		for _, w := range ws {
			tf[w]++
		}
		for w := range tf {
			b.df[w]++
		}
		b.terms = append(b.terms, tf)
		b.lens = append(b.lens, len(ws))
		total += len(ws)
	}
	if len(docs) > 0 {
		b.avg = float64(total) / float64(len(docs))
	}
	return b
}

// top returns the k best documents for the query.
func (b *bm25) top(query string, k int) []string {
	const k1, bb = 1.2, 0.75
	n := float64(len(b.docs))
	type scored struct {
		i int
		s float64
	}
	var ranked []scored
	seen := map[string]bool{}
	var qs []string
	for _, w := range bm25Words(query) {
		if !seen[w] {
			seen[w] = true
			qs = append(qs, w)
		}
	}
	for i, tf := range b.terms {
		s := 0.0
		for _, w := range qs {
			f := float64(tf[w])
			if f == 0 {
				continue
			}
			df := float64(b.df[w])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			s += idf * f * (k1 + 1) / (f + k1*(1-bb+bb*float64(b.lens[i])/b.avg))
		}
		if s > 0 {
			ranked = append(ranked, scored{i, s})
		}
	}
	sort.SliceStable(ranked, func(x, y int) bool { return ranked[x].s > ranked[y].s })
	var out []string
	for _, r := range ranked[:min(k, len(ranked))] {
		out = append(out, b.docs[r.i])
	}
	return out
}

// PrintCoding writes the report as a table.
func PrintCoding(w io.Writer, rep CodingReport) {
	fmt.Fprintln(w, "Coding sessions: questions answered in the top 10 (all answer words in one result)")
	fmt.Fprintf(w, "%-28s %7s %6s %9s %6s %11s %13s %7s\n", "transcript", "events", "facts", "recollect", "bm25", "after prune", "prompt hook", "pruned")
	row := func(r CodingResult) {
		facts := 0
		for _, n := range r.Facts {
			facts += n
		}
		fmt.Fprintf(w, "%-28s %7d %6d %9s %6s %11s %13s %7d\n", r.Name, r.Events, facts, frac(r.Answered, r.Questions), frac(r.BM25, r.Questions),
			frac(r.AfterPrune, r.Questions), fmt.Sprintf("%d/%d ans", r.PromptAnswer, r.PromptContext), r.Pruned)
	}
	for _, r := range rep.Transcripts {
		row(r)
	}
	row(rep.Total)
	var kinds []string
	for k := range rep.Total.Facts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, rep.Total.Facts[k]))
	}
	fmt.Fprintf(w, "active facts by kind: %s\n", strings.Join(parts, ", "))
	for _, r := range rep.Transcripts {
		fmt.Fprintf(w, "%s: session-start sections: %s\n", r.Name, strings.Join(r.SessionStart, "; "))
		for _, m := range r.Missed {
			fmt.Fprintf(w, "%s: missed: %s\n", r.Name, m)
		}
	}
}

func frac(n, d int) string {
	if d == 0 {
		return "—"
	}
	return fmt.Sprintf("%d/%d", n, d)
}

package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/sqlite"
)

// CodingSet is a labelled set of questions about real coding sessions:
// for each project, what a developer returning to it would ask their
// agent, with the distinctive words of the answer.
type CodingSet struct {
	Transcripts []CodingTranscript `json:"transcripts"`
}

// CodingTranscript is one project's real session files and its questions.
type CodingTranscript struct {
	Name string `json:"name"`
	// Kind is the agent that wrote the files: claude-code, codex or gemini.
	Kind string `json:"kind"`
	// Paths are the project's session files, relative to the transcripts
	// folder; one store holds them all, as the agent's home holds them.
	Paths []string `json:"paths"`
	// Cwd is the project folder the files record, given to init --cwd as a
	// user would; empty where the files record none (Gemini's legacy
	// chats hold only a hash of it).
	Cwd       string           `json:"cwd,omitempty"`
	Questions []CodingQuestion `json:"questions"`
}

// CodingQuestion is a question and the words its answer holds.
type CodingQuestion struct {
	Q      string   `json:"q"`
	Answer []string `json:"answer"`
}

// codingKinds are the agents whose homes the coding bench lays out.
var codingKinds = []string{"claude-code", "codex", "gemini"}

// ReadCodingSet reads a question set and checks it: every transcript has
// a known kind and files, every question answer words, and no answer word
// is one of the question's own (a question must not carry its answer).
func ReadCodingSet(path string) (CodingSet, error) {
	var set CodingSet
	data, err := os.ReadFile(path)
	if err != nil {
		return set, fmt.Errorf("read coding questions: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&struct {
		Note string `json:"note"`
		*CodingSet
	}{CodingSet: &set}); err != nil {
		return set, fmt.Errorf("read coding questions %s: %w", path, err)
	}
	if len(set.Transcripts) == 0 {
		return set, fmt.Errorf("coding questions %s: no transcripts", path)
	}
	for _, tr := range set.Transcripts {
		if !contains(codingKinds, tr.Kind) {
			return set, fmt.Errorf("coding questions %s: %s: kind %q; use one of %s", path, tr.Name, tr.Kind, strings.Join(codingKinds, ", "))
		}
		if tr.Name == "" || len(tr.Paths) == 0 || len(tr.Questions) == 0 {
			return set, fmt.Errorf("coding questions %s: a transcript needs a name, paths and questions (%q)", path, tr.Name)
		}
		for _, q := range tr.Questions {
			if strings.TrimSpace(q.Q) == "" || len(q.Answer) == 0 {
				return set, fmt.Errorf("coding questions %s: %s: question %q needs its text and answer words", path, tr.Name, q.Q)
			}
			for _, w := range q.Answer {
				if strings.TrimSpace(w) == "" {
					return set, fmt.Errorf("coding questions %s: %s: question %q has an empty answer word", path, tr.Name, q.Q)
				}
				if strings.Contains(strings.ToLower(q.Q), strings.ToLower(w)) {
					return set, fmt.Errorf("coding questions %s: %s: answer word %q is in the question %q itself; answer words come from the answer", path, tr.Name, w, q.Q)
				}
			}
		}
	}
	return set, nil
}

// CodingOptions configure a coding-session run.
type CodingOptions struct {
	// Binary is the recollect executable each step runs, as a user runs it.
	Binary string
	// Set is the question set; Transcripts the folder its paths are under.
	Set         CodingSet
	Transcripts string
	// Work is where homes and stores are built (a temporary folder when
	// empty, removed afterwards).
	Work string
	// Progress, when set, receives a line as each transcript starts.
	Progress func(string)
}

// CodingReport is what a coding-session run measured.
type CodingReport struct {
	// Steps says how each store was built and asked, in the commands run.
	Steps       []string       `json:"steps"`
	Transcripts []CodingResult `json:"transcripts"`
	// Total sums the transcripts.
	Total CodingResult `json:"total"`
}

// CodingResult is one transcript's figures (or the total's).
type CodingResult struct {
	Name     string `json:"name"`
	Kind     string `json:"kind,omitempty"`
	Sessions int    `json:"session_files"`
	Events   int    `json:"events"`
	// Facts counts active facts by kind; "unknown" counts facts of a store
	// without kinds.
	Facts     map[string]int `json:"facts_by_kind"`
	Questions int            `json:"questions"`
	// Answered counts questions whose answer words all sit in one of the
	// top 10 results of recollect search (a fact, a pending fact or an
	// event of an episode); BM25 in one of the top 10 messages of plain
	// BM25; AfterPrune in recollect's top 10 after prune --apply --vacuum.
	Answered   int `json:"answered"`
	BM25       int `json:"bm25_answered"`
	AfterPrune int `json:"answered_after_prune"`
	// PromptAdded counts questions the prompt hook added context for,
	// PromptAnswered those whose added context holds every answer word.
	PromptAdded    int `json:"prompt_hook_added"`
	PromptAnswered int `json:"prompt_hook_answered"`
	// Pruned is the events prune --apply --vacuum removed; FileBefore and
	// FileAfter the store's size around it (0 when not measured).
	Pruned     int   `json:"events_pruned"`
	FileBefore int64 `json:"file_bytes_before_prune,omitempty"`
	FileAfter  int64 `json:"file_bytes_after_prune,omitempty"`
	// SessionStart lists the sections of the session-start context of a
	// new session in the project and how many items each holds;
	// SessionStartText is that context whole.
	SessionStart     []ContextSection `json:"session_start_sections,omitempty"`
	SessionStartText string           `json:"session_start_text,omitempty"`
	// Results are the questions one by one.
	Results []QuestionResult `json:"questions_detail,omitempty"`
}

// ContextSection is one "## " section of an added context.
type ContextSection struct {
	Name  string `json:"name"`
	Items int    `json:"items"`
}

// QuestionResult is one question's outcome on each reader.
type QuestionResult struct {
	Q              string `json:"q"`
	Recollect      bool   `json:"recollect"`
	BM25           bool   `json:"bm25"`
	AfterPrune     bool   `json:"after_prune"`
	PromptAdded    bool   `json:"prompt_hook_added"`
	PromptAnswered bool   `json:"prompt_hook_answered"`
}

// codingSteps are the commands each store is built and asked with.
var codingSteps = []string{
	"recollect init --yes --mode copy --source KIND --home HOME [--cwd CWD] --data STORE (a home holding only the project's files)",
	"recollect settings set intelligence.provider heuristic; recollect settings set context.prompt true (the prompt hook is opt-in)",
	"recollect consolidate --all (as init says to take in existing transcripts)",
	"recollect search QUESTION --limit 10 --json",
	`recollect hooks user-prompt with {"prompt": QUESTION, "cwd": CWD}; recollect hooks session-start with {"source": "startup"}`,
	"recollect prune --apply --vacuum, then search again",
	"plain BM25 (k1 1.2, b 0.75) over the store's user and assistant text messages, one document a message",
}

// RunCoding builds one store per transcript through the user's path — the
// recollect binary run as a user runs it, over an agent home that holds
// only that project's files — and asks each question of recollect search
// (limit 10), of the prompt hook, and after prune --apply --vacuum again;
// beside it, plain BM25 over the same store's user and assistant text
// messages, one document a message.
func RunCoding(ctx context.Context, opts CodingOptions) (CodingReport, error) {
	rep := CodingReport{Steps: codingSteps}
	rep.Total = CodingResult{Name: "total", Facts: map[string]int{}}
	if opts.Binary == "" {
		return rep, errors.New("coding bench: no recollect binary to run")
	}
	work := opts.Work
	if work == "" {
		dir, err := os.MkdirTemp("", "recollect-bench-coding-")
		if err != nil {
			return rep, fmt.Errorf("coding bench: %w", err)
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	for i, tr := range opts.Set.Transcripts {
		if opts.Progress != nil {
			opts.Progress(fmt.Sprintf("coding: %s (%d of %d)", tr.Name, i+1, len(opts.Set.Transcripts)))
		}
		res, err := runCodingTranscript(ctx, filepath.Join(work, fmt.Sprint(i)), opts, tr)
		if err != nil {
			return rep, fmt.Errorf("coding bench: %s: %w", tr.Name, err)
		}
		rep.Transcripts = append(rep.Transcripts, res)
		t := &rep.Total
		t.Sessions += res.Sessions
		t.Events += res.Events
		t.Questions += res.Questions
		t.Answered += res.Answered
		t.BM25 += res.BM25
		t.AfterPrune += res.AfterPrune
		t.PromptAdded += res.PromptAdded
		t.PromptAnswered += res.PromptAnswered
		t.Pruned += res.Pruned
		t.FileBefore += res.FileBefore
		t.FileAfter += res.FileAfter
		for k, n := range res.Facts {
			t.Facts[k] += n
		}
	}
	return rep, nil
}

// agentHome lays a project's session files out in a home of their agent's
// kind, where copy mode looks for them.
func agentHome(home, kind string, srcs []string) error {
	for i, src := range srcs {
		base := filepath.Base(src)
		var dst string
		switch kind {
		case "claude-code":
			dst = filepath.Join(home, "projects", "-bench-project", base)
		case "codex":
			if !strings.HasPrefix(base, "rollout-") {
				base = fmt.Sprintf("rollout-2026-01-01T00-00-%02d-%s", i, base)
			}
			dst = filepath.Join(home, "sessions", "2026", "01", "01", base)
		case "gemini":
			dst = filepath.Join(home, "tmp", "bench-project", "chats", fmt.Sprintf("session-%02d%s", i, filepath.Ext(base)))
		default:
			return fmt.Errorf("source kind %q: the coding bench lays out %s homes", kind, strings.Join(codingKinds, ", "))
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return fmt.Errorf("read transcript: %w", err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return fmt.Errorf("lay out %s: %w", dst, err)
		}
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			return fmt.Errorf("lay out %s: %w", dst, err)
		}
	}
	return nil
}

// userCLI runs the recollect binary on one store as a user runs it: its
// own HOME, no RECOLLECT_ variable of the caller's, --data named.
type userCLI struct {
	bin, data string
	env       []string
}

func newUserCLI(bin, data, home string) userCLI {
	env := []string{"HOME=" + home}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || strings.HasPrefix(k, "RECOLLECT_") || strings.HasPrefix(k, "XDG_") || k == "CLAUDE_CONFIG_DIR" || k == "CODEX_HOME" {
			continue
		}
		env = append(env, kv)
	}
	return userCLI{bin: bin, data: data, env: env}
}

// run runs one command with stdin and returns its stdout; a failure, or a
// context hook's line on stderr, is an error that quotes stderr.
func (u userCLI) run(ctx context.Context, stdin string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, u.bin, append([]string{"--data", u.data}, args...)...)
	cmd.Env = u.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("recollect %s: %w: %s", strings.Join(args, " "), err, lastLine(errOut.String()))
	}
	if args[0] == "hooks" && errOut.Len() > 0 {
		return nil, fmt.Errorf("recollect %s: %s", strings.Join(args, " "), lastLine(errOut.String()))
	}
	return out.Bytes(), nil
}

func runCodingTranscript(ctx context.Context, dir string, opts CodingOptions, tr CodingTranscript) (CodingResult, error) {
	res := CodingResult{Name: tr.Name, Kind: tr.Kind, Sessions: len(tr.Paths), Facts: map[string]int{}, Questions: len(tr.Questions)}
	home, user, data := filepath.Join(dir, "agent"), filepath.Join(dir, "user"), filepath.Join(dir, "store")
	var srcs []string
	for _, p := range tr.Paths {
		srcs = append(srcs, filepath.Join(opts.Transcripts, p))
	}
	if err := agentHome(home, tr.Kind, srcs); err != nil {
		return res, err
	}
	if err := os.MkdirAll(user, 0o700); err != nil {
		return res, fmt.Errorf("make the user's home: %w", err)
	}
	u := newUserCLI(opts.Binary, data, user)
	initArgs := []string{"init", "--yes", "--mode", "copy", "--source", tr.Kind, "--home", home}
	if tr.Cwd != "" {
		initArgs = append(initArgs, "--cwd", tr.Cwd)
	}
	steps := [][]string{initArgs,
		{"settings", "set", "intelligence.provider", "heuristic"},
		{"settings", "set", "context.prompt", "true"},
		{"consolidate", "--all"}}
	for _, args := range steps {
		if _, err := u.run(ctx, "", args...); err != nil {
			return res, err
		}
	}

	msgs, err := readStore(ctx, data, &res)
	if err != nil {
		return res, err
	}
	if res.Events == 0 {
		return res, fmt.Errorf("copy took no event from %s; is cwd %q the one the transcripts record?", strings.Join(tr.Paths, ", "), tr.Cwd)
	}
	bm := newBM25(msgs)

	start, err := hookContext(ctx, u, "session-start", map[string]string{"hook_event_name": "SessionStart", "source": "startup", "session_id": "bench-next-session", "cwd": tr.Cwd})
	if err != nil {
		return res, err
	}
	res.SessionStartText = start
	res.SessionStart = contextSections(start)

	for _, q := range tr.Questions {
		r := QuestionResult{Q: q.Q}
		if r.Recollect, err = searchAnswers(ctx, u, q); err != nil {
			return res, err
		}
		r.BM25 = holdsAll(bm.top(q.Q, 10), q.Answer)
		added, err := hookContext(ctx, u, "user-prompt", map[string]string{"hook_event_name": "UserPromptSubmit", "session_id": "bench-next-session", "cwd": tr.Cwd, "prompt": q.Q})
		if err != nil {
			return res, err
		}
		r.PromptAdded = added != ""
		r.PromptAnswered = r.PromptAdded && containsAll(added, q.Answer)
		res.Results = append(res.Results, r)
	}

	out, err := u.run(ctx, "", "prune", "--apply", "--vacuum", "--json")
	if err != nil {
		return res, err
	}
	var pr pipeline.PruneReport
	if err := json.Unmarshal(out, &pr); err != nil {
		return res, fmt.Errorf("read prune --json: %w", err)
	}
	res.Pruned = pr.Events
	if pr.FileBefore != nil && pr.FileAfter != nil {
		res.FileBefore, res.FileAfter = *pr.FileBefore, *pr.FileAfter
	}
	for i, q := range tr.Questions {
		if res.Results[i].AfterPrune, err = searchAnswers(ctx, u, q); err != nil {
			return res, err
		}
	}
	for _, r := range res.Results {
		res.Answered += b2i(r.Recollect)
		res.BM25 += b2i(r.BM25)
		res.AfterPrune += b2i(r.AfterPrune)
		res.PromptAdded += b2i(r.PromptAdded)
		res.PromptAnswered += b2i(r.PromptAnswered)
	}
	return res, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readStore counts the store's events and active facts by kind, and
// returns its user and assistant text messages: the BM25 documents.
func readStore(ctx context.Context, data string, res *CodingResult) ([]string, error) {
	db, err := sqlite.OpenReader(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("open the built store: %w", err)
	}
	defer db.Close()
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM session_events`).Scan(&res.Events); err != nil {
		return nil, fmt.Errorf("count events: %w", err)
	}
	if err := factsByKind(ctx, db, res.Facts); err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT content FROM session_events WHERE event_type = 'message' AND role IN ('user', 'assistant') AND content_type = 'text' ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("read messages: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("read messages: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// factsByKind counts active facts by their kind column; a store whose
// facts have no kind column counts them all as "unknown", and a fact
// without a kind counts as "unknown" too.
func factsByKind(ctx context.Context, db *store.DB, into map[string]int) error {
	q := `SELECT COALESCE(NULLIF(kind, ''), 'unknown'), count(*) FROM facts WHERE status = 'active' GROUP BY 1`
	if _, err := db.ExecContext(ctx, `SELECT kind FROM facts LIMIT 0`); err != nil {
		q = `SELECT 'unknown', count(*) FROM facts WHERE status = 'active'`
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("count facts by kind: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return fmt.Errorf("count facts by kind: %w", err)
		}
		if n > 0 {
			into[k] += n
		}
	}
	return rows.Err()
}

// hookContext runs a context hook with a Claude Code payload and returns
// the context it adds ("" when it adds none).
func hookContext(ctx context.Context, u userCLI, hook string, payload map[string]string) (string, error) {
	in, err := json.Marshal(payload)
	if err != nil {
		return "", err
	}
	out, err := u.run(ctx, string(in), "hooks", hook)
	if err != nil {
		return "", err
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return "", nil
	}
	var hj struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &hj); err != nil {
		return "", fmt.Errorf("read hooks %s output: %w", hook, err)
	}
	return hj.HookSpecificOutput.AdditionalContext, nil
}

// contextSections lists the "## " sections of an added context with the
// "- " items each holds.
func contextSections(text string) []ContextSection {
	var out []ContextSection
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			out = append(out, ContextSection{Name: strings.TrimPrefix(line, "## ")})
		case strings.HasPrefix(line, "- ") && len(out) > 0:
			out[len(out)-1].Items++
		}
	}
	return out
}

// searchAnswers runs recollect search for q (limit 10) and reports whether
// one result — a fact, a pending fact, or an event of an episode — holds
// every answer word.
func searchAnswers(ctx context.Context, u userCLI, q CodingQuestion) (bool, error) {
	out, err := u.run(ctx, "", "search", "--limit", "10", "--json", "--", q.Q)
	if err != nil {
		return false, err
	}
	var ans graph.Answer
	if err := json.Unmarshal(out, &ans); err != nil {
		return false, fmt.Errorf("read search --json: %w", err)
	}
	var texts []string
	for _, h := range ans.Results {
		texts = append(texts, h.Content)
	}
	for _, h := range ans.Pending {
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

// bm25 is plain Okapi BM25 (k1 1.2, b 0.75) over documents split into
// lowercase letter-and-digit words, a run of Chinese or Japanese
// characters into its character pairs and single characters as
// recollect's index splits it (text.IndexText); queries are split the
// same way (text.QueryWords), so the baseline reads CJK questions as
// recollect does.
type bm25 struct {
	docs  []string
	terms []map[string]int
	lens  []int
	df    map[string]int
	avg   float64
}

func bm25Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(text.IndexText(s)), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func bm25QueryWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out = append(out, text.QueryWords(w)...)
	}
	return out
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
	for _, w := range bm25QueryWords(query) {
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

// PrintCoding writes the report as a table, then per transcript the
// session-start context's sections and the questions recollect missed.
func PrintCoding(w io.Writer, rep CodingReport) {
	fmt.Fprintln(w, "Coding sessions: questions answered in the top 10 (all answer words in one result)")
	fmt.Fprintf(w, "%-30s %6s %6s %6s %9s %6s %11s %13s %7s\n", "transcript", "files", "events", "facts", "recollect", "bm25", "after prune", "prompt hook", "pruned")
	row := func(r CodingResult) {
		facts := 0
		for _, n := range r.Facts {
			facts += n
		}
		fmt.Fprintf(w, "%-30s %6d %6d %6d %9s %6s %11s %13s %7d\n", r.Name, r.Sessions, r.Events, facts, frac(r.Answered, r.Questions), frac(r.BM25, r.Questions),
			frac(r.AfterPrune, r.Questions), frac(r.PromptAnswered, r.Questions), r.Pruned)
	}
	for _, r := range rep.Transcripts {
		row(r)
	}
	row(rep.Total)
	fmt.Fprintln(w, "prompt hook: questions whose added context holds the answer (it added context for "+frac(rep.Total.PromptAdded, rep.Total.Questions)+")")
	for _, r := range append(rep.Transcripts, rep.Total) {
		fmt.Fprintf(w, "%s: facts by kind: %s\n", r.Name, kindList(r.Facts))
	}
	if rep.Total.FileBefore > 0 {
		fmt.Fprintf(w, "prune --apply --vacuum: %d events, stores %s → %s\n", rep.Total.Pruned, mib(rep.Total.FileBefore), mib(rep.Total.FileAfter))
	}
	for _, r := range rep.Transcripts {
		var parts []string
		for _, s := range r.SessionStart {
			parts = append(parts, fmt.Sprintf("%s %d", s.Name, s.Items))
		}
		if len(parts) == 0 {
			parts = []string{"nothing added"}
		}
		fmt.Fprintf(w, "%s: session-start context (%d bytes): %s\n", r.Name, len(r.SessionStartText), strings.Join(parts, "; "))
		for _, q := range r.Results {
			var lost []string
			if !q.Recollect {
				lost = append(lost, "recollect")
			}
			if q.Recollect && !q.AfterPrune {
				lost = append(lost, "after prune")
			}
			if len(lost) > 0 {
				fmt.Fprintf(w, "%s: missed by %s (bm25 %s): %s\n", r.Name, strings.Join(lost, ", "), bm25Said(q.BM25), q.Q)
			}
		}
	}
}

func kindList(m map[string]int) string {
	var kinds []string
	for k := range m {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func bm25Said(b bool) string {
	if b {
		return "found it"
	}
	return "missed it too"
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func frac(n, d int) string {
	if d == 0 {
		return "—"
	}
	return fmt.Sprintf("%d/%d", n, d)
}

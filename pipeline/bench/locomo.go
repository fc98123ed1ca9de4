// Package bench measures recollect against baselines run in the same
// process: the LoCoMo retrieval benchmark (recall of evidence turns through
// graph.Search beside plain BM25), and the systems table (notify, copy,
// follow, search, daemon idle). Every figure it prints is measured in that
// run; a figure it could not measure is reported as such, never as zero.
//
// It owns no storage and no ranking; it drives the real store, integrate
// and graph code through their public APIs, and the real recollect binary
// for whole-process figures.
package bench

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// LocomoOptions configure a LoCoMo run.
type LocomoOptions struct {
	// Path is locomo10.json.
	Path string
	// WorkDir holds the temporary stores; a fresh temporary directory when
	// empty. Each conversation's store is removed after it is scored.
	WorkDir string
	// Conversations limits the run to the first N conversations (0 = all).
	Conversations int
	// Progress, when set, receives one line per conversation.
	Progress func(string)
	// Embedding, when its provider is set, names the embedding host: every
	// fact is embedded and a hybrid system (search with the question's
	// vector) is scored beside the others. Getenv reads its API key.
	Embedding config.Embedding
	Getenv    func(string) string
	// extra adds retrieval systems to score beside the standard ones.
	extra      func(db *store.DB, dia map[int64]string, byFact map[int64][]string) map[string]retriever
	extraNames []string
}

// Depth is how many results are scored per question (recall@10, MRR@10).
const Depth = 10

// The systems scored side by side.
const (
	SystemRecollect = "recollect keyword"
	SystemHybrid    = "recollect hybrid"
	SystemBM25Plain = "BM25 plain"
	SystemBM25Stem  = "BM25 porter"
)

// LocomoReport is the outcome of a LoCoMo run.
type LocomoReport struct {
	Dataset       string   `json:"dataset"`
	Conversations int      `json:"conversations"`
	Turns         int      `json:"turns"`
	DuplicateTurn int      `json:"duplicate_turns"`
	Facts         int      `json:"facts"`
	Questions     int      `json:"questions_scored"`
	Cleaning      Cleaning `json:"evidence_cleaning"`
	// Ingest is the wall time to store every turn as events, write them as
	// facts and integrate them (entities, graph) — all conversations.
	Ingest time.Duration `json:"ingest_ns"`
	// Embed is the wall time to embed every fact (hybrid runs only).
	Embed time.Duration `json:"embed_ns,omitempty"`
	// Hybrid says why the hybrid system was not scored; "" when it was.
	Hybrid   string        `json:"hybrid_not_run,omitempty"`
	Systems  []SystemScore `json:"systems"`
	Protocol string        `json:"protocol"`
}

// SystemScore is one retrieval system's figures.
type SystemScore struct {
	Name       string        `json:"name"`
	Overall    Score         `json:"overall"`
	ByCategory map[int]Score `json:"by_category"`
	Latency    Latency       `json:"latency"`
}

// Score is recall@5, recall@10 and MRR@10 of the evidence turns over N
// questions. Recall of a question is the share of its evidence turns found
// in the top k; MRR is 1/rank of the first result holding any evidence
// turn, 0 when none is in the top 10.
type Score struct {
	N          int     `json:"n"`
	RecallAt5  float64 `json:"recall_at_5"`
	RecallAt10 float64 `json:"recall_at_10"`
	MRR        float64 `json:"mrr"`
}

// LocomoProtocol says in words what RunLocomo does; it is printed with the
// figures.
const LocomoProtocol = `one fresh store per conversation (its questions are about that conversation only); ` +
	`every dialog turn is a recorded event and one fact "Speaker: text" (speaker set, said_at = the session date) ` +
	`integrated by the heuristic integrator (entities, graph); every question of categories 1-4 (5 is adversarial) ` +
	`searched with limit 10; evidence ids cleaned (split, repaired, junk and missing ids dropped); ` +
	`BM25 plain = FTS5 unicode61 over the same facts, every question word OR-ed; ` +
	`BM25 porter = the store's porter index, every question word OR-ed; ` +
	`recollect hybrid (with an embedding host) = the same search with the question embedded, every fact embedded after ingest ` +
	`(its latency includes embedding the question)`

// HybridNotRun is the report's line when no embedding host is configured.
const HybridNotRun = "not run: no embedding host configured; pass --embedding-provider ollama --embedding-model MODEL " +
	"[--embedding-url URL] (or provider http for an OpenAI-compatible host)"

// RunLocomo runs the benchmark.
func RunLocomo(ctx context.Context, opts LocomoOptions) (LocomoReport, error) {
	rep := LocomoReport{Dataset: opts.Path, Protocol: LocomoProtocol}
	convs, cl, err := LoadLocomo(opts.Path)
	if err != nil {
		return rep, err
	}
	rep.Cleaning = cl
	if opts.Conversations > 0 && opts.Conversations < len(convs) {
		convs = convs[:opts.Conversations]
	}
	work := opts.WorkDir
	if work == "" {
		work, err = os.MkdirTemp("", "recollect-locomo-")
		if err != nil {
			return rep, fmt.Errorf("create work directory: %w", err)
		}
		defer os.RemoveAll(work)
	}
	names := []string{SystemRecollect, SystemBM25Stem, SystemBM25Plain}
	var emb integrate.Embedder
	if opts.Embedding.Provider == "" {
		rep.Hybrid = HybridNotRun
	} else {
		if emb, err = integrate.NewEmbedder(opts.Embedding, opts.Getenv); err != nil {
			return rep, err
		}
		names = append(names, SystemHybrid)
	}
	acc := newAccumulator(append(names, opts.extraNames...)...)
	for _, c := range convs {
		if err := runConversation(ctx, work, c, &rep, acc, emb, opts); err != nil {
			return rep, fmt.Errorf("conversation %s: %w", c.ID, err)
		}
		if opts.Progress != nil {
			opts.Progress(fmt.Sprintf("%s: %d turns, %d questions", c.ID, countTurns(c), len(c.Questions)))
		}
	}
	rep.Conversations = len(convs)
	rep.Systems = acc.scores()
	if len(rep.Systems) > 0 {
		rep.Questions = rep.Systems[0].Overall.N
	}
	return rep, nil
}

func countTurns(c Conversation) int {
	n := 0
	for _, s := range c.Sessions {
		n += len(s.Turns)
	}
	return n
}

// retriever returns, per rank, the dia ids a result cites.
type retriever func(ctx context.Context, question string) ([][]string, error)

func runConversation(ctx context.Context, work string, c Conversation, rep *LocomoReport, acc *accumulator, emb integrate.Embedder, opts LocomoOptions) error {
	dir := filepath.Join(work, c.ID)
	db, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	defer db.Close()
	start := time.Now()
	dia, dups, err := ingest(ctx, db, c)
	if err != nil {
		return err
	}
	rep.Ingest += time.Since(start)
	rep.Turns += countTurns(c)
	rep.DuplicateTurn += dups
	byFact, err := factDias(ctx, db, dia)
	if err != nil {
		return err
	}
	rep.Facts += len(byFact)
	if err := buildPlainIndex(ctx, db); err != nil {
		return err
	}
	search := func(ctx context.Context, q graph.Query) ([][]string, error) {
		ans, err := graph.Search(ctx, db, q)
		if err != nil {
			return nil, err
		}
		out := make([][]string, 0, len(ans.Results))
		for _, h := range ans.Results {
			var ids []string
			for _, seq := range h.EventIDs {
				ids = append(ids, dia[seq])
			}
			out = append(out, ids)
		}
		return out, nil
	}
	systems := map[string]retriever{
		SystemRecollect: func(ctx context.Context, q string) ([][]string, error) {
			return search(ctx, graph.Query{Text: q, Limit: Depth})
		},
		SystemBM25Stem:  ftsRetriever(db, "facts_fts", byFact),
		SystemBM25Plain: ftsRetriever(db, "bench_plain", byFact),
	}
	if emb != nil {
		start := time.Now()
		er := integrate.EmbedMissing(ctx, db, emb, opts.Embedding.BatchSize)
		if er.Error != "" {
			return fmt.Errorf("embed the turns: %s", er.Error)
		}
		if er.Missing != 0 {
			return fmt.Errorf("embed the turns: %d facts still have no vector in %s", er.Missing, er.Space)
		}
		rep.Embed += time.Since(start)
		systems[SystemHybrid] = func(ctx context.Context, q string) ([][]string, error) {
			vecs, sp, err := emb.Embed(ctx, []string{q})
			if err != nil {
				return nil, fmt.Errorf("embed the question: %w", err)
			}
			if len(vecs) != 1 {
				return nil, fmt.Errorf("embed the question: the host returned %d vectors for one text", len(vecs))
			}
			return search(ctx, graph.Query{Text: q, Limit: Depth, Vector: vecs[0], Space: sp})
		}
	}
	if opts.extra != nil {
		extra := opts.extra(db, dia, byFact)
		for _, name := range opts.extraNames {
			systems[name] = extra[name]
		}
	}
	for _, q := range c.Questions {
		if q.Category < 1 || q.Category > 4 || len(q.Evidence) == 0 {
			continue
		}
		for name, r := range systems {
			t0 := time.Now()
			ranked, err := r(ctx, q.Text)
			if err != nil {
				return fmt.Errorf("%s: question %q: %w", name, q.Text, err)
			}
			acc.add(name, q, ranked, time.Since(t0))
		}
	}
	return nil
}

// ingest stores every turn as an event and a pending fact, then integrates.
// It returns the event seq → dia id map and how many turns repeated a turn
// of the same session word for word (stored once, as the schema wants).
func ingest(ctx context.Context, db *store.DB, c Conversation) (map[int64]string, int, error) {
	dia := map[int64]string{}
	dups := 0
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		for _, s := range c.Sessions {
			session := fmt.Sprintf("%s/session_%d", c.ID, s.Number)
			date := s.Date
			for _, t := range s.Turns {
				content := t.Speaker + ": " + t.Text
				ev := store.Event{SessionID: session, Source: "record", Role: "user", Speaker: t.Speaker,
					EventType: "message", ContentType: "text", Content: content, OccurredAt: &date,
					Metadata: []byte(fmt.Sprintf(`{"dia_id":%q}`, t.DiaID))}
				seq, _, err := store.InsertEvent(ctx, tx, &ev)
				if err != nil {
					return err
				}
				dia[seq] = t.DiaID
				ok, err := extract.InsertSessionFact(ctx, tx, session, "capture", "", extract.Candidate{
					Content: content, Confidence: 1, Importance: 0.5, EventIDs: []int64{seq},
					SpeakerRole: "user", Speaker: t.Speaker, SaidAt: &date})
				if err != nil {
					return err
				}
				if !ok {
					dups++
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("store turns: %w", err)
	}
	in := &integrate.Integrator{DB: db, Config: config.Default(), Actor: "bench"}
	if _, err := in.Run(ctx); err != nil {
		return nil, 0, fmt.Errorf("integrate turns: %w", err)
	}
	return dia, dups, nil
}

// factDias maps every active fact to the dia ids its provenance cites.
func factDias(ctx context.Context, db *store.DB, dia map[int64]string) (map[int64][]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT p.fact_id, p.event_seq FROM fact_provenance p
		JOIN facts f ON f.id = p.fact_id WHERE f.status = 'active' AND p.event_seq IS NOT NULL ORDER BY p.fact_id, p.event_seq`)
	if err != nil {
		return nil, fmt.Errorf("read provenance: %w", err)
	}
	defer rows.Close()
	out := map[int64][]string{}
	for rows.Next() {
		var fact, seq int64
		if err := rows.Scan(&fact, &seq); err != nil {
			return nil, fmt.Errorf("read provenance: %w", err)
		}
		out[fact] = append(out[fact], dia[seq])
	}
	return out, rows.Err()
}

// buildPlainIndex indexes the same facts without stemming: the plain BM25
// baseline.
func buildPlainIndex(ctx context.Context, db *store.DB) error {
	_, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE bench_plain USING fts5(content, tokenize='unicode61');
		INSERT INTO bench_plain(rowid, content) SELECT id, content FROM facts WHERE status = 'active'`)
	if err != nil {
		return fmt.Errorf("build plain BM25 index: %w", err)
	}
	return nil
}

// ftsRetriever ranks facts by FTS5's bm25 over table with every word of
// the question OR-ed: no stopwords, no fusion, no entities.
func ftsRetriever(db *store.DB, table string, byFact map[int64][]string) retriever {
	query := `SELECT rowid FROM ` + table + ` WHERE ` + table + ` MATCH ? ORDER BY bm25(` + table + `) LIMIT ?`
	return func(ctx context.Context, q string) ([][]string, error) {
		var words []string
		for _, w := range AllWords(q) {
			words = append(words, `"`+w+`"`)
		}
		if len(words) == 0 {
			return nil, nil
		}
		rows, err := db.QueryContext(ctx, query, strings.Join(words, " OR "), Depth)
		if err != nil {
			return nil, fmt.Errorf("bm25 over %s: %w", table, err)
		}
		defer rows.Close()
		var out [][]string
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return nil, fmt.Errorf("bm25 over %s: %w", table, err)
			}
			out = append(out, byFact[id])
		}
		return out, rows.Err()
	}
}

// AllWords is every distinct lowercase word of text, stopwords included:
// the baseline's query.
func AllWords(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !('a' <= r && r <= 'z') && !('0' <= r && r <= '9') && r < 128
	}) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

type accumulator struct {
	order []string
	sums  map[string]map[int]*Score
	lat   map[string][]time.Duration
}

func newAccumulator(names ...string) *accumulator {
	a := &accumulator{order: names, sums: map[string]map[int]*Score{}, lat: map[string][]time.Duration{}}
	for _, n := range names {
		a.sums[n] = map[int]*Score{}
	}
	return a
}

func (a *accumulator) add(name string, q Question, ranked [][]string, took time.Duration) {
	r5, r10, rr := ScoreRanking(q.Evidence, ranked)
	for _, cat := range []int{0, q.Category} {
		s := a.sums[name][cat]
		if s == nil {
			s = &Score{}
			a.sums[name][cat] = s
		}
		s.N++
		s.RecallAt5 += r5
		s.RecallAt10 += r10
		s.MRR += rr
	}
	a.lat[name] = append(a.lat[name], took)
}

func (a *accumulator) scores() []SystemScore {
	var out []SystemScore
	for _, name := range a.order {
		ss := SystemScore{Name: name, ByCategory: map[int]Score{}, Latency: Percentiles(a.lat[name])}
		for cat, s := range a.sums[name] {
			avg := Score{N: s.N}
			if s.N > 0 {
				avg.RecallAt5, avg.RecallAt10, avg.MRR = s.RecallAt5/float64(s.N), s.RecallAt10/float64(s.N), s.MRR/float64(s.N)
			}
			if cat == 0 {
				ss.Overall = avg
			} else {
				ss.ByCategory[cat] = avg
			}
		}
		out = append(out, ss)
	}
	return out
}

// ScoreRanking scores one question: recall@5, recall@10 and reciprocal
// rank of the evidence ids in ranked (the dia ids each result cites).
func ScoreRanking(evidence []string, ranked [][]string) (r5, r10, rr float64) {
	if len(evidence) == 0 {
		return 0, 0, 0
	}
	want := map[string]bool{}
	for _, e := range evidence {
		want[e] = true
	}
	found := map[string]bool{}
	for i, ids := range ranked {
		if i >= Depth {
			break
		}
		for _, id := range ids {
			if want[id] {
				if rr == 0 {
					rr = 1 / float64(i+1)
				}
				found[id] = true
			}
		}
		if i == 4 {
			r5 = float64(len(found)) / float64(len(want))
		}
	}
	r10 = float64(len(found)) / float64(len(want))
	if len(ranked) < 5 {
		r5 = r10
	}
	return r5, r10, rr
}

// Latency is the median and 95th percentile of a set of timings.
type Latency struct {
	N   int           `json:"n"`
	P50 time.Duration `json:"p50_ns"`
	P95 time.Duration `json:"p95_ns"`
}

// Percentiles computes a Latency; N = 0 means nothing was measured.
func Percentiles(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	pick := func(p float64) time.Duration {
		i := int(p*float64(len(s)-1) + 0.5)
		return s[i]
	}
	return Latency{N: len(s), P50: pick(0.50), P95: pick(0.95)}
}

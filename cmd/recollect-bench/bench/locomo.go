// Package bench measures recollect against baselines run in the same
// process: the LoCoMo retrieval benchmark (recall of evidence turns through
// graph.Search beside plain BM25), and the systems table (notify, copy,
// follow, search, daemon idle). Every figure it prints is measured in that
// run; a figure it could not measure is reported as such, never as zero.
//
// It owns no storage and no ranking; it drives the real store, integrate
// and graph code through their public APIs, and the real recollect binary
// for whole-process figures.
//
// It lives under cmd/recollect-bench because that binary is its only
// user: the shipped recollect does not link it (cmd/recollect's
// arch_test.go pins that), and a harness beside its front end is where a
// reader of the benchmark's command looks for it. It is a package of its
// own, not part of package main, so the front end stays a thin layer of
// flags and the harness's tests run without going through the CLI.
package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/postgres"
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
	// Routes are the ingest routes to score (Routes when empty).
	Routes []string
	// Progress, when set, receives one line per conversation and route.
	Progress func(string)
	// Embedding, when its provider is set, names the embedding host: every
	// fact is embedded and a hybrid system (search with the question's
	// vector) is scored beside the others. Getenv reads its API key and
	// the environment a user's pipeline reads (RECOLLECT_PROVIDER).
	Embedding config.Embedding
	Getenv    func(string) string
	// Storage is where each conversation's store lives, as a user's
	// config.json says it (sqlite when its provider is empty); a postgres
	// store gets a schema of its own per conversation and route, dropped
	// after it is scored.
	Storage config.Storage
	// run names this run's postgres schemas apart from any other run's.
	run string
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

// The ingest routes. RouteCapture is what an agent's capture_fact gives a
// store: one fact per turn whose text carries the date and the speaker
// ("[8 May 2023] Caroline: …") and nothing else. RouteMetadata records
// every turn as an event and stores its fact with the speaker and said_at
// set and the event cited, as an importer that knows them would.
const (
	RouteCapture  = "capture"
	RouteMetadata = "metadata"
)

// Routes are the ingest routes, the headline first.
var Routes = []string{RouteCapture, RouteMetadata}

// LocomoReport is the outcome of a LoCoMo run.
type LocomoReport struct {
	Dataset       string   `json:"dataset"`
	Conversations int      `json:"conversations"`
	Turns         int      `json:"turns"`
	Questions     int      `json:"questions_scored"`
	Cleaning      Cleaning `json:"evidence_cleaning"`
	// Hybrid says why the hybrid system was not scored; "" when it was.
	Hybrid   string        `json:"hybrid_not_run,omitempty"`
	Routes   []RouteReport `json:"routes"`
	Protocol string        `json:"protocol"`
}

// RouteReport is one ingest route's figures.
type RouteReport struct {
	Route string `json:"route"`
	// DuplicateTurn counts turns whose stored text repeated another turn
	// of the same session word for word (stored once, as the schema wants).
	DuplicateTurn int `json:"duplicate_turns"`
	// Facts counts the facts integration made (active and superseded);
	// Active those still believed, the ones search ranks.
	Facts  int `json:"facts"`
	Active int `json:"active_facts"`
	// Superseded counts the facts integration marked superseded. In
	// ordinary chat almost nothing is replaced, so a large share means
	// unrelated turns hid each other.
	Superseded int `json:"superseded"`
	// Ingest is the wall time to store every turn and consolidate — all
	// conversations.
	Ingest time.Duration `json:"ingest_ns"`
	// Embed is the wall time to embed every fact (hybrid runs only).
	Embed   time.Duration `json:"embed_ns,omitempty"`
	Systems []SystemScore `json:"systems"`
}

// SupersededShare is Superseded over Facts; -1 when no fact was made.
func (r RouteReport) SupersededShare() float64 {
	if r.Facts == 0 {
		return -1
	}
	return float64(r.Superseded) / float64(r.Facts)
}

// System returns the route's scores of the named system.
func (r RouteReport) System(name string) (SystemScore, bool) {
	for _, s := range r.Systems {
		if s.Name == name {
			return s, true
		}
	}
	return SystemScore{}, false
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
const LocomoProtocol = `one fresh store per conversation and route (its questions are about that conversation only), ` +
	`default config, ingested through the pipeline a user's store runs: ` +
	`route capture = every dialog turn captured as capture_fact does, content "[8 May 2023] Speaker: text", ` +
	`one capture session per dialog session, no speaker or event (its time is the date the text opens with); ` +
	`route metadata = every turn a recorded event and a fact "Speaker: text" with speaker and said_at set, citing its event; ` +
	`then one consolidate (integrate with the model router, supersession included, heuristic provider unless RECOLLECT_PROVIDER says otherwise); ` +
	`every question of categories 1-4 (5 is adversarial) searched with limit 10; a result counts the turns of every capture merged into it; ` +
	`evidence ids cleaned (split, repaired, junk and missing ids dropped); ` +
	`BM25 plain = FTS5 unicode61 over the same active facts, every question word OR-ed; ` +
	`BM25 porter = the store's porter index over them, question stopwords dropped, every other word OR-ed; ` +
	`recollect hybrid (with an embedding host) = the same search with the question embedded, every fact embedded after ingest ` +
	`(its latency includes embedding the question)`

// HybridNotRun is the report's line when no embedding host is configured.
const HybridNotRun = "not run: no embedding host configured; pass --embedding-provider ollama --embedding-model MODEL " +
	"[--embedding-url URL] (or provider http for an OpenAI-compatible host)"

// RunLocomo runs the benchmark.
func RunLocomo(ctx context.Context, opts LocomoOptions) (LocomoReport, error) {
	rep := LocomoReport{Dataset: opts.Path, Protocol: LocomoProtocol}
	routes := opts.Routes
	if len(routes) == 0 {
		routes = Routes
	}
	for _, r := range routes {
		if !slices.Contains(Routes, r) {
			return rep, fmt.Errorf("unknown route %q; the routes are %s", r, strings.Join(Routes, ", "))
		}
	}
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
	var run [4]byte
	if _, err := rand.Read(run[:]); err != nil {
		return rep, fmt.Errorf("name the run: %w", err)
	}
	opts.run = hex.EncodeToString(run[:])
	names := []string{SystemRecollect, SystemBM25Stem, SystemBM25Plain}
	var emb model.Embedder
	if opts.Embedding.Provider == "" {
		rep.Hybrid = HybridNotRun
	} else {
		if emb, err = model.NewEmbedder(opts.Embedding, opts.Getenv); err != nil {
			return rep, err
		}
		names = append(names, SystemHybrid)
	}
	for _, c := range convs {
		rep.Turns += countTurns(c)
	}
	for _, route := range routes {
		rr := RouteReport{Route: route}
		acc := newAccumulator(names...)
		for _, c := range convs {
			if err := runConversation(ctx, work, route, c, &rr, acc, emb, opts); err != nil {
				return rep, fmt.Errorf("route %s, conversation %s: %w", route, c.ID, err)
			}
			if opts.Progress != nil {
				opts.Progress(fmt.Sprintf("%s %s: %d turns, %d questions", route, c.ID, countTurns(c), len(c.Questions)))
			}
		}
		rr.Systems = acc.scores()
		if len(rr.Systems) > 0 {
			rep.Questions = rr.Systems[0].Overall.N
		}
		rep.Routes = append(rep.Routes, rr)
	}
	rep.Conversations = len(convs)
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

func runConversation(ctx context.Context, work, route string, c Conversation, rr *RouteReport, acc *accumulator, emb model.Embedder, opts LocomoOptions) error {
	dir := filepath.Join(work, route+"-"+c.ID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create store directory: %w", err)
	}
	defer os.RemoveAll(dir)
	if opts.Storage.Provider == "postgres" {
		cfg := config.Default()
		cfg.Storage = opts.Storage
		cfg.Storage.Postgres.Schema = postgres.DefaultSchema("locomo-" + opts.run + "-" + route + "-" + c.ID)
		if err := config.Write(dir, cfg); err != nil {
			return err
		}
	}
	p, err := pipeline.Open(ctx, dir, pipeline.Options{Getenv: opts.Getenv, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	defer p.Close()
	if opts.Storage.Provider == "postgres" {
		defer postgres.DropSchema(context.WithoutCancel(ctx), p.Store())
	}
	start := time.Now()
	byCapture, dups, err := ingest(ctx, p.Store(), route, c)
	if err != nil {
		return err
	}
	sum, err := p.Run(ctx, pipeline.RunOptions{Steps: pipeline.Steps{Integrate: true}, Trigger: "bench"})
	if err != nil {
		return fmt.Errorf("consolidate: %w", err)
	}
	if err := noneLeft(ctx, p.Store()); err != nil {
		return err
	}
	rr.Ingest += time.Since(start)
	rr.DuplicateTurn += dups
	if sum.Integrate != nil {
		rr.Superseded += sum.Integrate.Superseded
	}
	db := p.Store()
	byFact, facts, err := factDias(ctx, db, byCapture)
	if err != nil {
		return err
	}
	rr.Facts += facts
	rr.Active += len(byFact)
	if err := buildPlainIndex(ctx, db); err != nil {
		return err
	}
	search := func(ctx context.Context, q graph.Query) ([][]string, error) {
		ans, err := p.Reader.Search(ctx, q)
		if err != nil {
			return nil, err
		}
		out := make([][]string, 0, len(ans.Results))
		for _, h := range ans.Results {
			out = append(out, byFact[h.ID])
		}
		return out, nil
	}
	systems := map[string]retriever{
		SystemRecollect: func(ctx context.Context, q string) ([][]string, error) {
			return search(ctx, graph.Query{Text: q, Limit: Depth})
		},
		SystemBM25Stem:  ftsRetriever(db, store.FactText, text.Terms, byFact),
		SystemBM25Plain: ftsRetriever(db, store.PlainFactText, AllWords, byFact),
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
		rr.Embed += time.Since(start)
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

// CaptureDate is how the capture route writes a session's date in front of
// each turn.
const CaptureDate = "2 January 2006"

// ingest stores every turn by route and returns the captured fact id
// (session_facts) → dia ids map, and how many turns repeated a turn of the
// same session word for word (stored once, as the schema wants).
func ingest(ctx context.Context, db *store.DB, route string, c Conversation) (map[int64][]string, int, error) {
	byCapture := map[int64][]string{}
	dups := 0
	err := db.Tx(ctx, func(tx *store.Tx) error {
		for _, s := range c.Sessions {
			session := fmt.Sprintf("%s/session_%d", c.ID, s.Number)
			date := s.Date
			for _, t := range s.Turns {
				var cand extract.Candidate
				switch route {
				case RouteCapture:
					cand = extract.Candidate{Content: "[" + date.Format(CaptureDate) + "] " + t.Speaker + ": " + t.Text,
						Confidence: pipeline.CaptureConfidence, Importance: pipeline.CaptureImportance}
				default:
					content := t.Speaker + ": " + t.Text
					ev := store.Event{SessionID: session, Source: "record", Role: "user", Speaker: t.Speaker,
						EventType: "message", ContentType: "text", Content: content, OccurredAt: &date,
						Metadata: []byte(fmt.Sprintf(`{"dia_id":%q}`, t.DiaID))}
					seq, _, err := store.InsertEvent(ctx, tx, &ev)
					if err != nil {
						return err
					}
					cand = extract.Candidate{Content: content, Confidence: 1, Importance: 0.5, EventIDs: []int64{seq},
						SpeakerRole: "user", Speaker: t.Speaker, SaidAt: &date}
				}
				ok, err := extract.InsertSessionFact(ctx, tx, session, "capture", "", cand)
				if err != nil {
					return err
				}
				if !ok {
					dups++
				}
				var id int64
				if err := tx.QueryRowContext(ctx, `SELECT id FROM session_facts WHERE session_id = ? AND digest = ?`,
					session, store.Digest(strings.TrimSpace(cand.Content))).Scan(&id); err != nil {
					return fmt.Errorf("find the stored turn %s: %w", t.DiaID, err)
				}
				byCapture[id] = append(byCapture[id], t.DiaID)
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("store turns: %w", err)
	}
	return byCapture, dups, nil
}

// noneLeft checks that the one consolidate integrated every stored turn.
func noneLeft(ctx context.Context, db *store.DB) error {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM session_facts WHERE status IN ('pending','claimed')`).Scan(&n); err != nil {
		return fmt.Errorf("count pending facts: %w", err)
	}
	if n > 0 {
		return fmt.Errorf("consolidate left %d stored turns pending", n)
	}
	return nil
}

// factDias maps every active fact to the dia ids of the captures merged
// into it, and counts every fact integration made.
func factDias(ctx context.Context, db *store.DB, byCapture map[int64][]string) (map[int64][]string, int, error) {
	var facts int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM facts`).Scan(&facts); err != nil {
		return nil, 0, fmt.Errorf("count facts: %w", err)
	}
	rows, err := db.QueryContext(ctx, `SELECT p.fact_id, p.session_fact_id FROM fact_provenance p
		JOIN facts f ON f.id = p.fact_id WHERE f.status = 'active' AND p.session_fact_id IS NOT NULL ORDER BY p.fact_id, p.session_fact_id`)
	if err != nil {
		return nil, 0, fmt.Errorf("read provenance: %w", err)
	}
	defer rows.Close()
	out := map[int64][]string{}
	for rows.Next() {
		var fact, sf int64
		if err := rows.Scan(&fact, &sf); err != nil {
			return nil, 0, fmt.Errorf("read provenance: %w", err)
		}
		for _, d := range byCapture[sf] {
			if !slices.Contains(out[fact], d) {
				out[fact] = append(out[fact], d)
			}
		}
	}
	return out, facts, rows.Err()
}

// buildPlainIndex indexes the same facts without stemming: the plain BM25
// baseline.
func buildPlainIndex(ctx context.Context, db *store.DB) error {
	if err := db.Engine().IndexPlainFacts(ctx, db); err != nil {
		return fmt.Errorf("build plain BM25 index: %w", err)
	}
	return nil
}

// ftsRetriever ranks the active facts by the engine's BM25 over index ix
// with the words split takes from the question OR-ed: no fusion, no
// entities, no context.
func ftsRetriever(db *store.DB, ix store.TextIndex, split func(string) []string, byFact map[int64][]string) retriever {
	eng := db.Engine()
	query := `SELECT f.id FROM ` + eng.TextMatches(ix) + ` k JOIN facts f ON f.id = k.id WHERE f.status = 'active'
		ORDER BY k.score DESC, f.id LIMIT ?`
	return func(ctx context.Context, q string) ([][]string, error) {
		words := store.TextQuery(split(q))
		if len(words) == 0 {
			return nil, nil
		}
		rows, err := db.QueryContext(ctx, query, eng.TextQuery(words), Depth)
		if err != nil {
			return nil, fmt.Errorf("bm25 over index %d: %w", ix, err)
		}
		defer rows.Close()
		var out [][]string
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return nil, fmt.Errorf("bm25 over index %d: %w", ix, err)
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

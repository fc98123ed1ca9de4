package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/sqlite"
)

// SearchResult compares graph.Search with a raw FTS5 MATCH of the same
// query on the same file.
type SearchResult struct {
	Facts   int           `json:"facts"`
	Queries int           `json:"queries"`
	Build   time.Duration `json:"build_ns"`
	Hybrid  Latency       `json:"hybrid"`
	Raw     Latency       `json:"raw_fts5"`
	// Arms lists the arms graph.Search ran on text alone.
	Arms []string `json:"arms"`
	// Vectors is the same queries with a query vector beside the text,
	// every fact holding a synthetic VectorDim-component vector, so the
	// semantic arm runs too; VectorArms lists the arms that ran.
	Vectors    Latency  `json:"with_vectors"`
	VectorArms []string `json:"vector_arms"`
	// P50Ratio is hybrid p50 over raw p50.
	P50Ratio float64 `json:"p50_ratio"`
	// VectorRatio is the p50 with vectors over the text-only p50.
	VectorRatio float64 `json:"vector_ratio"`
	// FirstVector is the median, over FirstRuns new handles of the store,
	// of opening one and answering its first search with a vector: what a
	// new process pays, code index included, before it is warm.
	// WarmVector is the median of the same searches on the warm reader,
	// each timed just before its new handle's.
	FirstVector time.Duration `json:"first_vector_ns"`
	WarmVector  time.Duration `json:"warm_vector_ns"`
	FirstRuns   int           `json:"first_runs"`
	// Recall is the sign-code stage's recall@RecallK against exact cosine
	// over every vector, for each of RecallCandidates, averaged over
	// RecallQueries query vectors.
	Recall        []float64 `json:"recall_at_10"`
	RecallQueries int       `json:"recall_queries"`
}

// FirstRuns is how many new handles BenchSearch opens to time a first
// search with a vector.
const FirstRuns = 60

// RecallQueries caps the query vectors of the recall table: the exact
// answer reads every vector once per batch of them.
const RecallQueries = 50

// factSentences gathers the sentences of the fixtures' conversation text:
// the material of the synthetic knowledge base.
func factSentences(fixtures string) ([]string, error) {
	lines, _, err := fixtureLines(fixtures)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, l := range lines {
		m, err := sources.Map(sources.ClaudeCode, "fixture.jsonl", l)
		if err != nil {
			continue
		}
		for _, ev := range m.Events {
			if ev.EventType != "message" {
				continue
			}
			for _, s := range strings.FieldsFunc(ev.Content, func(r rune) bool { return r == '.' || r == '\n' || r == '?' || r == '!' }) {
				s = strings.TrimSpace(s)
				if n := len(strings.Fields(s)); n >= 5 && n <= 40 && !seen[s] {
					seen[s] = true
					out = append(out, s+".")
				}
			}
		}
	}
	if len(out) < 50 {
		return nil, fmt.Errorf("only %d sentences in the fixtures under %s; pass --fixtures DIR with the real transcripts", len(out), fixtures)
	}
	return out, nil
}

// buildFacts writes n active facts made of pairs of fixture sentences, in
// sessions of 40, with provenance and heuristic entity links, straight
// into the store (integrating 100k facts one by one would time the
// integrator, not search). It commits every buildBatch facts, so no
// transaction outlives a batch, and writes each table's rows many to a
// statement (insertRows).
func buildFacts(ctx context.Context, db *store.DB, sentences []string, n int) error {
	return buildFactsIn(ctx, db, sentences, n, buildBatch, statementParams)
}

// buildFactsIn is buildFacts committing every batch facts, with at most
// params placeholders in a statement.
func buildFactsIn(ctx context.Context, db *store.DB, sentences []string, n, batch, params int) error {
	b := factBuilder{rng: rand.New(rand.NewPCG(7, 8)), sentences: sentences, entities: map[string]int64{}, now: store.Now(), params: params}
	for from := 0; from < n; from += batch {
		to := min(from+batch, n)
		if err := db.Tx(ctx, func(tx *store.Tx) error { return b.write(ctx, tx, from, to) }); err != nil {
			return fmt.Errorf("build facts %d–%d of %d: %w", from+1, to, n, err)
		}
	}
	return nil
}

// buildBatch is how many facts buildFacts writes in one transaction.
const buildBatch = 10000

// statementParams caps the placeholders of one of buildFacts' statements:
// well under both engines' limits (SQLite's 32,766, PostgreSQL's 65,535).
const statementParams = 6000

// factBuilder holds what buildFacts carries from one batch to the next:
// the content generator and the entities already written, by fold key.
type factBuilder struct {
	rng       *rand.Rand
	sentences []string
	entities  map[string]int64
	now       string
	params    int
}

// write inserts facts from+1 … to: the facts, their provenance, the
// entities they name for the first time, and their links.
func (b *factBuilder) write(ctx context.Context, tx *store.Tx, from, to int) error {
	speakers := [...]string{"user", "assistant", "Ana", "Ben"}
	contents := make([]string, 0, to-from)
	rows := make([][]any, 0, to-from)
	for i := from; i < to; i++ {
		content := b.sentences[b.rng.IntN(len(b.sentences))] + " " + b.sentences[b.rng.IntN(len(b.sentences))]
		contents = append(contents, content)
		rows = append(rows, []any{content, store.Digest(content), speakers[i%len(speakers)], benchSession(i), b.now, b.now})
	}
	ids := make([]int64, 0, len(rows))
	if err := insertRows(ctx, tx, b.params, `INSERT INTO facts(content, digest, producer, speaker, session_id, said_at, recorded_at) VALUES `,
		`(?,?,'heuristic',?,?,?,?)`, ` RETURNING id`, rows, func(r *sql.Rows) error {
			var id int64
			if err := r.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
			return nil
		}); err != nil {
		return fmt.Errorf("build facts: %w", err)
	}
	// Each statement numbers its rows in the order of its VALUES on both
	// engines; the order RETURNING lists them in is not promised.
	slices.Sort(ids)
	if len(ids) != len(rows) {
		return fmt.Errorf("%d facts inserted, %d ids returned", len(rows), len(ids))
	}
	rows = rows[:0]
	for k, id := range ids {
		rows = append(rows, []any{id, from + k + 1, benchSession(from + k), b.now, b.now})
	}
	if err := insertRows(ctx, tx, b.params, `INSERT INTO fact_provenance(fact_id, event_seq, session_id, said_at, added_at) VALUES `,
		`(?,?,?,?,?)`, ``, rows, nil); err != nil {
		return fmt.Errorf("build provenance: %w", err)
	}
	type link struct {
		fact int64
		key  string
	}
	var links []link
	var fresh [][]any
	pending := map[string]bool{}
	for k, content := range contents {
		for _, m := range integrate.HeuristicMentions(content) {
			key := integrate.Fold(m.Name)
			if key == "" {
				continue
			}
			if _, ok := b.entities[key]; !ok && !pending[key] {
				pending[key] = true
				fresh = append(fresh, []any{m.Type, m.Name, integrate.Canonical(m.Name) + "#" + key, key, store.Now()})
			}
			links = append(links, link{ids[k], key})
		}
	}
	// A fold key ends the canonical name after its last '#', so the new
	// entities' names differ from each other and from the earlier ones';
	// each is matched to its id by its fold.
	if err := insertEntities(ctx, tx, b.params, fresh, b.entities); err != nil {
		return err
	}
	rows = rows[:0]
	for _, l := range links {
		rows = append(rows, []any{l.fact, b.entities[l.key]})
	}
	if err := insertRows(ctx, tx, b.params, `INSERT INTO fact_entities(fact_id, entity_id, role) VALUES `,
		`(?,?,'mention')`, ` ON CONFLICT DO NOTHING`, rows, nil); err != nil {
		return fmt.Errorf("build entities: %w", err)
	}
	return nil
}

// benchSession is the session of the synthetic fact i (from 0).
func benchSession(i int) string { return fmt.Sprintf("bench-%d", i/40) }

// insertEntities inserts rows (type, name, canonical, fold, created_at) in
// their order and records each one's id under its fold in ids.
func insertEntities(ctx context.Context, tx *store.Tx, params int, rows [][]any, ids map[string]int64) error {
	err := insertRows(ctx, tx, params, `INSERT INTO entities(type, name, canonical, fold, created_at) VALUES `, `(?,?,?,?,?)`,
		` ON CONFLICT(canonical, type) DO UPDATE SET fold = excluded.fold RETURNING id, fold`, rows, func(r *sql.Rows) error {
			var id int64
			var fold string
			if err := r.Scan(&id, &fold); err != nil {
				return err
			}
			ids[fold] = id
			return nil
		})
	if err != nil {
		return fmt.Errorf("build entities: %w", err)
	}
	return nil
}

// insertRows inserts rows, each filling the placeholders of tuple, in
// statements of head, as many tuples as params placeholders allow, and tail.
// When scan is not nil, tail returns columns and scan reads each row of
// them.
func insertRows(ctx context.Context, tx *store.Tx, params int, head, tuple, tail string, rows [][]any, scan func(*sql.Rows) error) error {
	for len(rows) > 0 {
		chunk := rows[:min(len(rows), max(1, params/len(rows[0])))]
		rows = rows[len(chunk):]
		q := head + valuesList(tuple, len(chunk)) + tail
		args := make([]any, 0, len(chunk)*len(chunk[0]))
		for _, r := range chunk {
			args = append(args, r...)
		}
		if scan == nil {
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return err
			}
			continue
		}
		got, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		for got.Next() {
			if err := scan(got); err != nil {
				got.Close()
				return err
			}
		}
		if err := errors.Join(got.Err(), got.Close()); err != nil {
			return err
		}
	}
	return nil
}

// valuesList repeats tuple n times, comma-separated.
func valuesList(tuple string, n int) string {
	var b strings.Builder
	b.Grow(n * (len(tuple) + 1))
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(tuple)
	}
	return b.String()
}

// benchQueries picks queries of two to four content words from random
// sentences: what a person types to find something said.
func benchQueries(sentences []string, n int) []string {
	rng := rand.New(rand.NewPCG(9, 10))
	var out []string
	for len(out) < n {
		terms := text.Terms(sentences[rng.IntN(len(sentences))])
		if len(terms) < 2 {
			continue
		}
		k := 2 + rng.IntN(3)
		rng.Shuffle(len(terms), func(i, j int) { terms[i], terms[j] = terms[j], terms[i] })
		out = append(out, strings.Join(terms[:min(k, len(terms))], " "))
	}
	return out
}

// BenchSearch builds a store of n facts in the engine stores opens and
// times graph.Search (limit 20) beside the engine's raw full-text best 20
// of the same sanitised query (FTS5 MATCH … ORDER BY rank on SQLite,
// ts_rank over the GIN index on PostgreSQL), alternating the two so load
// spikes hit both, each going first for every other query (timeSearch).
func BenchSearch(ctx context.Context, work, fixtures string, n, queries int, stores Stores) (SearchResult, error) {
	res := SearchResult{Facts: n, Queries: queries}
	start := time.Now()
	sentences, err := factSentences(fixtures)
	if err != nil {
		return res, err
	}
	dir, name := filepath.Join(work, fmt.Sprintf("search-%d", n)), fmt.Sprintf("search-%d", n)
	db, closeDB, err := stores.open(ctx, dir, name)
	if err != nil {
		return res, err
	}
	defer closeDB()
	if err := buildFacts(ctx, db, sentences, n); err != nil {
		return res, err
	}
	if err := addVectors(ctx, db, n); err != nil {
		return res, err
	}
	if err := settle(ctx, db); err != nil {
		return res, err
	}
	res.Build = time.Since(start)
	vecs, err := queryVectors(ctx, db, n, queries)
	if err != nil {
		return res, err
	}
	reader := graph.NewReader(db)
	defer reader.Close()
	var hybrid, raw, withVec []time.Duration
	for i, q := range benchQueries(sentences, queries) {
		h, r, arms, err := timeSearch(ctx, reader, q, i%2 == 1)
		if err != nil {
			return res, err
		}
		v, varms, err := timeSearchWithVector(ctx, reader, q, vecs[i])
		if err != nil {
			return res, err
		}
		hybrid, raw, withVec = append(hybrid, h), append(raw, r), append(withVec, v)
		if i == 0 {
			res.Arms, res.VectorArms = arms, varms
		}
	}
	res.Hybrid, res.Raw, res.Vectors = Percentiles(hybrid), Percentiles(raw), Percentiles(withVec)
	if res.Raw.P50 > 0 {
		res.P50Ratio = float64(res.Hybrid.P50) / float64(res.Raw.P50)
	}
	if res.Hybrid.P50 > 0 {
		res.VectorRatio = float64(res.Vectors.P50) / float64(res.Hybrid.P50)
	}
	// Each new handle's first search is timed beside a warm one of the
	// same query, so load on the machine falls on both.
	runs := min(FirstRuns, len(vecs))
	qs := benchQueries(sentences, runs)
	var first, warm []time.Duration
	for i := range runs {
		w, _, err := timeSearchWithVector(ctx, reader, qs[i], vecs[i])
		if err != nil {
			return res, err
		}
		d, err := timeFirstSearch(ctx, stores, dir, name, qs[i], vecs[i])
		if err != nil {
			return res, err
		}
		first, warm = append(first, d), append(warm, w)
	}
	res.FirstVector, res.WarmVector, res.FirstRuns = Percentiles(first).P50, Percentiles(warm).P50, len(first)
	res.RecallQueries = min(len(vecs), RecallQueries)
	if res.Recall, err = candidateRecall(ctx, reader, vecs[:res.RecallQueries]); err != nil {
		return res, err
	}
	return res, nil
}

// timeFirstSearch opens the store through a new handle and a new reader,
// as a new process does, and times that with its first search (q with
// vec), until the answer.
func timeFirstSearch(ctx context.Context, stores Stores, dir, name, q string, vec []float32) (time.Duration, error) {
	t0 := time.Now()
	db, err := stores.reopen(ctx, dir, name)
	if err != nil {
		return 0, fmt.Errorf("open the search store again: %w", err)
	}
	defer db.Close()
	r := graph.NewReader(db)
	defer r.Close()
	if _, err := r.Search(ctx, graph.Query{Text: q, Limit: 20, Vector: vec, Space: benchSpace}); err != nil {
		return 0, fmt.Errorf("first search %q with a vector: %w", q, err)
	}
	return time.Since(t0), nil
}

// buildSearchStore opens a store in dir and fills it with n synthetic
// facts made of the fixtures' sentences (see buildFacts). It returns the
// sentences too: the material of the benchmark's queries.
func buildSearchStore(ctx context.Context, dir, fixtures string, n int) (*store.DB, []string, error) {
	sentences, err := factSentences(fixtures)
	if err != nil {
		return nil, nil, err
	}
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	if err := buildFacts(ctx, db, sentences, n); err != nil {
		db.Close()
		return nil, nil, err
	}
	// The build is one transaction of tens of megabytes, all of it still in
	// the write-ahead log; a store at rest has checkpointed it, and a read
	// through a log that size pays a lookup per page (raw FTS5 as much as
	// search).
	if _, err := db.Checkpoint(ctx); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("checkpoint the search store: %w", err)
	}
	return db, sentences, nil
}

// timeSearch runs one query as a search (limit 20) and as the raw
// full-text baseline, and returns both durations and the arms the search
// ran. The second of the two finds the query's index and table pages in
// the processor's caches where the first left them (at 10k facts on
// PostgreSQL the raw query ran 0.1–0.2 ms faster second than first), so
// callers alternate which goes first (rawFirst) and neither is always
// favoured.
func timeSearch(ctx context.Context, r *graph.Reader, q string, rawFirst bool) (hybrid, raw time.Duration, arms []string, err error) {
	timeRaw := func() error {
		t0 := time.Now()
		if err := rawMatch(ctx, r.Store(), text.Analyze(q).Query()); err != nil {
			return err
		}
		raw = time.Since(t0)
		return nil
	}
	if rawFirst {
		if err := timeRaw(); err != nil {
			return 0, 0, nil, err
		}
	}
	t0 := time.Now()
	ans, err := r.Search(ctx, graph.Query{Text: q, Limit: 20})
	if err != nil {
		return 0, 0, nil, fmt.Errorf("search %q: %w", q, err)
	}
	hybrid = time.Since(t0)
	for _, a := range ans.Arms {
		arms = append(arms, string(a))
	}
	if !rawFirst {
		if err := timeRaw(); err != nil {
			return 0, 0, nil, err
		}
	}
	return hybrid, raw, arms, nil
}

func rawMatch(ctx context.Context, db *store.DB, q store.TextQuery) error {
	if _, err := db.Engine().RawTextTop(ctx, db, store.FactText, q, 20); err != nil {
		return fmt.Errorf("raw full-text query: %w", err)
	}
	return nil
}

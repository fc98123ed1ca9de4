// Package graph owns reading knowledge: ranked search over facts, entity and
// context lookup over the entity graph, and the briefing. It is the one
// implementation behind both the CLI and the MCP tools, and it renders the
// text both show, so the two never disagree about what an answer means.
//
// Every read goes through a Reader, built once per store handle, which
// owns the handle, the in-memory index of vector sign codes and its
// statements. It reads the K layer (and, for pending facts and episodes,
// the I and D layers); it never writes — sign codes and their code files
// are integrate's. It runs no model: a query vector for the semantic arm
// is computed by the caller and passed in.
package graph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/recollect/recollect/store"
)

// DefaultLimit is how many results a search returns when no limit is given.
const DefaultLimit = 20

// MaxQueryTerms caps the words of a query that are searched; the rest are
// ignored and the answer says so. A pasted 10 kB log stays a fast query.
const MaxQueryTerms = 64

// Order is the order of a search's results.
type Order string

// The result orders.
const (
	// OrderRelevance ranks by fused score (the default).
	OrderRelevance Order = ""
	// OrderChronological returns the chosen set in time order, ties by id,
	// with a digest of the rendered block so a prompt built from it is
	// byte-stable.
	OrderChronological Order = "chronological"
)

// Query is a search request.
type Query struct {
	Text string
	// Limit caps the results; DefaultLimit when 0. Ignored when Budget is
	// set: the budget decides how many fit.
	Limit int
	// Domain biases ranking toward one domain; it never filters.
	Domain string
	// AsOf answers what the store believed at that instant (bitemporal);
	// zero means now.
	AsOf time.Time
	// History includes superseded facts themselves, marked.
	History bool
	// Budget fills about this many tokens (see EstimateTokens) instead of a
	// fixed count, skipping what does not fit rather than stopping at it.
	Budget int
	Order  Order
	// Vector and Space are the query's embedding, computed by the caller;
	// nil means the semantic arm does not run.
	Vector []float32
	Space  Space
}

// Arm names a retrieval list that can find a fact.
type Arm string

// The retrieval arms.
const (
	ArmKeyword  Arm = "keyword"
	ArmEntity   Arm = "entity"
	ArmDomain   Arm = "domain"
	ArmSemantic Arm = "semantic"
)

// Match records that an arm found a hit, and at which rank (1-based).
type Match struct {
	Arm  Arm `json:"arm"`
	Rank int `json:"rank"`
	// Via is set when the arm found a superseded fact and this hit is its
	// current successor.
	Via int64 `json:"via,omitempty"`
	// Detail says what matched: the entity names, the domain, the cosine.
	Detail string `json:"detail,omitempty"`
}

// PendingHit is a captured fact not yet integrated: keyword-matched only,
// never ranked with knowledge.
type PendingHit struct {
	ID         int64   `json:"id"`
	SessionID  string  `json:"session_id"`
	Content    string  `json:"content"`
	Producer   string  `json:"producer"`
	Confidence float64 `json:"confidence"`
	CreatedAt  string  `json:"created_at"`
}

// BudgetReport says how a token budget was filled.
type BudgetReport struct {
	Budget  int `json:"budget"`
	Used    int `json:"used"`
	Skipped int `json:"skipped"`
}

// Answer is a search answer. Results, Pending and Episodes never mix:
// only Results is knowledge.
type Answer struct {
	Query string `json:"query"`
	// Arms lists the retrieval arms that ran.
	Arms     []Arm         `json:"arms"`
	Results  []Hit         `json:"results"`
	Pending  []PendingHit  `json:"pending"`
	Episodes []Episode     `json:"episodes"`
	Budget   *BudgetReport `json:"budget,omitempty"`
	Order    string        `json:"order"`
	// Block and Digest are set in chronological order: Block is the exact
	// text of the chosen facts, Digest its sha256.
	Block  string `json:"block,omitempty"`
	Digest string `json:"digest,omitempty"`
	// Notes explain an empty or degraded answer in words.
	Notes []string `json:"notes,omitempty"`
}

// Search ranks facts for q by Reciprocal Rank Fusion of its arms, brings
// the current successor of any superseded hit, and applies the gentle
// factor of Adjust. See Query for the options.
func (r *Reader) Search(ctx context.Context, q Query) (Answer, error) {
	db := r.db
	ans := Answer{Query: q.Text, Arms: []Arm{}, Results: []Hit{}, Pending: []PendingHit{}, Episodes: []Episode{},
		Order: string(OrderRelevance)}
	if q.Order == OrderChronological {
		ans.Order = string(q.Order)
	} else if q.Order != OrderRelevance {
		return ans, fmt.Errorf("search: unknown order %q; use chronological or leave it empty", q.Order)
	}
	if q.Limit <= 0 {
		q.Limit = DefaultLimit
	}
	terms := Terms(q.Text)
	if len(terms) > MaxQueryTerms {
		ans.Notes = append(ans.Notes, fmt.Sprintf("the query has %d words; only the first %d were searched", len(terms), MaxQueryTerms))
		terms = terms[:MaxQueryTerms]
	}
	match := Sanitize(strings.Join(terms, " "))
	if match == "" && len(q.Vector) == 0 {
		ans.Notes = append(ans.Notes, "the query holds no searchable word (letters or digits)")
		return ans, nil
	}
	sc := newScope(q.AsOf)
	depth := max(3*q.Limit, 60)
	if q.Budget > 0 {
		depth = 200
	}
	f := newFusion()
	if err := runArms(ctx, r, q, sc, match, terms, depth, f, &ans); err != nil {
		return ans, err
	}
	want := q.Limit
	if q.Budget > 0 {
		want = 0 // the budget needs every candidate's length
	}
	// Pending facts are searched on a second connection while the fused
	// candidates are resolved.
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pending := async(func() ([]PendingHit, error) {
		if match == "" || sc.asOf != "" {
			return []PendingHit{}, nil
		}
		return searchPending(pctx, db, match, min(q.Limit, 10))
	})
	hits, err := f.resolve(ctx, db, sc, q.History, want)
	if err != nil {
		cancel() // the answer failed: the pending search need not finish
	}
	var perr error
	ans.Pending, perr = pending()
	if err := errors.Join(err, perr); err != nil {
		return ans, err
	}
	ans.Results = choose(hits, q, &ans)
	if q.Order == OrderChronological {
		sortChronological(ans.Results)
		ans.Block = Block(ans.Results)
		ans.Digest = Digest(ans.Block)
	}
	if len(ans.Results) == 0 && match != "" {
		if ans.Episodes, err = searchEpisodes(ctx, db, match, sc); err != nil {
			return ans, err
		}
	}
	return ans, nil
}

// runArms runs every arm that applies and feeds its list to f. The arms
// run in one errgroup on a derived context: the first to fail cancels the
// others, and runArms returns only once every one has returned, so no
// query outlives the search.
func runArms(ctx context.Context, r *Reader, q Query, sc scope, match string, terms []string, depth int, f *fusion, ans *Answer) error {
	db := r.db
	g, gctx := errgroup.WithContext(ctx)
	// The semantic arm reads only its own tables, so it runs on a
	// connection of its own beside the others.
	var (
		semIDs    []int64
		semDetail func(int64) string
		semNote   string
	)
	if len(q.Vector) > 0 {
		g.Go(func() (err error) {
			semIDs, semDetail, semNote, err = semanticArm(gctx, db, r.vectors, sc, q.Vector, q.Space, depth)
			return err
		})
	}
	var (
		kr   KeywordRanking
		ents entityHits
	)
	if match != "" {
		a := Analyze(q.Text)
		g.Go(func() error {
			speakers, err := knownSpeakers(gctx, db, a.Names)
			if err != nil {
				return err
			}
			// The entity arm needs only the speakers, so it runs on a
			// second connection while the keyword arm runs.
			g.Go(func() (err error) {
				ents, err = entityArm(gctx, db, sc, withoutSpeakers(terms, speakers), depth)
				return err
			})
			cond, args := sc.candidate()
			kr, err = rankKeyword(gctx, db, a, speakers, cond, args, depth)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if match != "" {
		ans.Arms = append(ans.Arms, ArmKeyword, ArmEntity)
		f.addKeyword(kr)
		f.addWeighted(ArmEntity, ents.ids, ents.detail, func(id int64) float64 { return EntityWeight * ents.weight[id] })
		f.keepFirst(kr)
	}
	if len(q.Vector) > 0 {
		if semNote != "" {
			ans.Notes = append(ans.Notes, semNote)
		} else {
			ans.Arms = append(ans.Arms, ArmSemantic)
			f.add(ArmSemantic, semIDs, semDetail)
		}
	}
	if q.Domain != "" {
		ids, err := f.domainList(ctx, db, q.Domain)
		if err != nil {
			return err
		}
		ans.Arms = append(ans.Arms, ArmDomain)
		f.add(ArmDomain, ids, func(int64) string { return q.Domain })
	}
	return nil
}

// async runs fn in its own goroutine; the function it returns waits for
// fn's result. Every caller waits, so no query outlives the search.
func async[T any](fn func() (T, error)) func() (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := fn()
		done <- result{v, err}
	}()
	return func() (T, error) {
		r := <-done
		return r.v, r.err
	}
}

// choose applies the limit or the budget to hits ranked by score.
func choose(hits []*Hit, q Query, ans *Answer) []Hit {
	out := []Hit{}
	if q.Budget > 0 {
		rep := &BudgetReport{Budget: q.Budget}
		for _, h := range hits {
			t := EstimateTokens(*h)
			if rep.Used+t > q.Budget {
				rep.Skipped++
				continue
			}
			rep.Used += t
			out = append(out, *h)
		}
		ans.Budget = rep
		return out
	}
	for _, h := range hits {
		if len(out) == q.Limit {
			break
		}
		out = append(out, *h)
	}
	return out
}

// EstimateTokens estimates what a hit costs in a prompt: about four bytes
// a token for its content, plus a dozen for the line carrying its ids and
// labels. It is an estimate; no tokenizer runs.
func EstimateTokens(h Hit) int {
	return (len(h.Content)+3)/4 + 12
}

// Adjustment weights: importance moves a score by at most ±3%, recency
// adds at most 3%, halving every RecencyHalfLife.
const (
	ImportanceWeight = 0.06
	RecencyWeight    = 0.03
	RecencyHalfLife  = 90 * 24 * time.Hour
)

// Adjust is the gentle factor applied after fusion:
//
//	1 + ImportanceWeight·(importance − 0.5) + RecencyWeight·0.5^(age/RecencyHalfLife)
//
// where age is measured from the newest fact among the candidates (not the
// wall clock, so the same store gives the same order tomorrow). The factor
// stays within [0.97, 1.06]: it breaks near-ties between hits found at
// similar ranks, and never lifts a hit found by one arm over one found at
// the same rank by two.
func Adjust(importance float64, age time.Duration) float64 {
	if age < 0 {
		age = 0
	}
	rec := math.Pow(0.5, float64(age)/float64(RecencyHalfLife))
	imp := math.Max(0, math.Min(1, importance))
	return 1 + ImportanceWeight*(imp-0.5) + RecencyWeight*rec
}

func sortChronological(hits []Hit) {
	sort.SliceStable(hits, func(i, j int) bool {
		ti, tj := hits[i].Time(), hits[j].Time()
		if ti != tj {
			return ti < tj
		}
		return hits[i].ID < hits[j].ID
	})
}

func searchPending(ctx context.Context, db *store.DB, match string, limit int) ([]PendingHit, error) {
	rows, err := db.QueryContext(ctx, `SELECT s.id, s.session_id, s.content, s.producer, s.confidence, s.created_at
		FROM session_facts_fts JOIN session_facts s ON s.id = session_facts_fts.rowid
		WHERE session_facts_fts MATCH ? AND s.status IN ('pending','claimed')
		ORDER BY bm25(session_facts_fts), s.id LIMIT ?`, match, limit)
	if err != nil {
		return nil, fmt.Errorf("pending search: %w", err)
	}
	defer rows.Close()
	out := []PendingHit{}
	for rows.Next() {
		var p PendingHit
		if err := rows.Scan(&p.ID, &p.SessionID, &p.Content, &p.Producer, &p.Confidence, &p.CreatedAt); err != nil {
			return nil, fmt.Errorf("pending search: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

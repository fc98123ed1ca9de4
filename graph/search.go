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
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/graph/vector"
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
	Space  vector.Space
	// Kinds, when set, keeps only facts of these kinds (store.Kinds).
	Kinds []string
	// KnowledgeOnly skips the event log: no episodes, for callers that read
	// only Results (the prompt hook, context, forget candidates).
	KnowledgeOnly bool
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
	terms := text.Terms(q.Text)
	if len(terms) > MaxQueryTerms {
		ans.Notes = append(ans.Notes, fmt.Sprintf("the query has %d words; only the first %d were searched", len(terms), MaxQueryTerms))
		terms = terms[:MaxQueryTerms]
	}
	text := text.Sanitize(strings.Join(terms, " "))
	if len(text) == 0 && len(q.Vector) == 0 {
		ans.Notes = append(ans.Notes, "the query holds no searchable word (letters or digits)")
		return ans, nil
	}
	match := r.db.Engine().TextQuery(text)
	sc := r.scope(q.AsOf)
	depth := max(3*q.Limit, 60)
	if q.Budget > 0 {
		depth = 200
	}
	f := newFusion(2 * depth) // room for the keyword and entity arms' lists
	if err := runArms(ctx, r, q, sc, match, terms, depth, f, &ans); err != nil {
		return ans, err
	}
	want := q.Limit
	if q.Budget > 0 || len(q.Kinds) > 0 {
		want = 0 // the budget needs every candidate's length; a kind filter every candidate's kind
	}
	// Pending facts are searched on a second connection while the fused
	// candidates are resolved.
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pending := maybeAsync(r.parallel(), func() ([]PendingHit, error) {
		if match == "" || sc.asOf != "" {
			return []PendingHit{}, nil
		}
		return searchPending(pctx, preparedQuerier{r}, match, min(q.Limit, 10))
	})
	// So are the event log's hits, which episodes are made from.
	withEpisodes := match != "" && !q.KnowledgeOnly
	events := maybeAsync(r.parallel(), func() ([]eventHit, error) {
		if !withEpisodes {
			return nil, nil
		}
		return eventHits(pctx, db, match, sc)
	})
	hits, err := resolve(ctx, preparedQuerier{r}, sc, f, q.History, want)
	if err != nil {
		cancel() // the answer failed: the other searches need not finish
	}
	var perr error
	ans.Pending, perr = pending()
	found, eerr := events()
	if err := errors.Join(err, perr, eerr); err != nil {
		return ans, err
	}
	ans.Results = choose(hits, q, &ans)
	r.searched.Store(true)
	if len(found) > 0 {
		// Raw passages fill in where knowledge is thin, and compete with
		// facts for the limit when no fact holds every word of the query:
		// a long message's passage may answer what the facts only touch.
		stems := queryStems(q.Text)
		n := episodesWanted(len(ans.Results), q)
		if q.Budget == 0 && !holdsEvery(ans.Results, stems) {
			n = max(n, EpisodeHits)
		}
		if n > 0 {
			eps, err := searchEpisodes(ctx, db, found, sc, n, citedEvents(ans.Results), stems)
			if err != nil {
				return ans, err
			}
			if q.Budget > 0 {
				ans.Episodes = eps
			} else {
				ans.Results, ans.Episodes = compete(ans.Results, eps, stems, q.Limit)
			}
		}
	}
	if q.Order == OrderChronological {
		sortChronological(ans.Results)
		ans.Block = Block(ans.Results)
		ans.Digest = Digest(ans.Block)
	}
	return ans, nil
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

// maybeAsync is async when parallel, and otherwise runs fn now and
// returns its result.
func maybeAsync[T any](parallel bool, fn func() (T, error)) func() (T, error) {
	if parallel {
		return async(fn)
	}
	v, err := fn()
	return func() (T, error) { return v, err }
}

// holdsEvery reports whether one of the results holds every query stem.
func holdsEvery(results []Hit, stems map[string]bool) bool {
	for _, h := range results {
		if coverage(h.Content, stems) == 1 {
			return true
		}
	}
	return false
}

// choose applies the limit or the budget to hits ranked by score.
func choose(hits []*Hit, q Query, ans *Answer) []Hit {
	if len(q.Kinds) > 0 {
		kept := hits[:0:0]
		for _, h := range hits {
			if slices.Contains(q.Kinds, h.Kind) {
				kept = append(kept, h)
			}
		}
		hits = kept
	}
	out := make([]Hit, 0, len(hits))
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

func sortChronological(hits []Hit) {
	sort.SliceStable(hits, func(i, j int) bool {
		ti, tj := hits[i].Time(), hits[j].Time()
		if ti != tj {
			return ti < tj
		}
		return hits[i].ID < hits[j].ID
	})
}

func searchPending(ctx context.Context, db querier, match string, limit int) ([]PendingHit, error) {
	rows, err := db.QueryContext(ctx, `SELECT s.id, s.session_id, s.content, s.producer, s.confidence, s.created_at
		FROM `+db.Engine().TextMatches(store.PendingText)+` k JOIN session_facts s ON s.id = k.id
		WHERE s.status IN ('pending','claimed')
		ORDER BY k.score DESC, s.id LIMIT ?`, match, limit)
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

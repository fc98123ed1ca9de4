package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/sqlite"
)

// IntegrateBatch is how many user messages the integrate bench records
// and extracts before timing their integration.
const IntegrateBatch = 300

// IntegrateResult is the cost of integrating new facts into a store that
// already holds Facts, beside the store-wide keyword query near duplicates
// used to come from (an FTS5 OR over the new fact's rarest words, ordered
// by bm25), timed for the same facts on the same store.
type IntegrateResult struct {
	Facts int           `json:"stored_facts"`
	New   int           `json:"new_facts"`
	Build time.Duration `json:"build_ns"`
	// PerFact is the median of Rounds, each the cost per fact of one
	// integrate run into its own copy of the store.
	PerFact time.Duration   `json:"integrate_per_fact_ns"`
	Rounds  []time.Duration `json:"integrate_rounds_ns,omitempty"`
	// Lookup is the near-duplicate lookup through the signature index,
	// OR the store-wide query it replaced, each per new fact.
	Lookup time.Duration `json:"lookup_per_fact_ns"`
	OR     time.Duration `json:"or_query_per_fact_ns"`
}

// BenchIntegrate builds a store of n facts (as the search bench does,
// signed for near-duplicate lookup as integrate signs its own), records
// batch user messages made of fixture sentences, extracts them with the
// heuristic and times the integrate step, per integrated fact: one round.
// With lookups set it first times the near-duplicate lookups alone (the
// index's and the old store-wide query's). With keep set, the built store
// is kept there (integrate-N) and copied for later runs instead of built
// again: a 1M store takes many minutes to build.
func BenchIntegrate(ctx context.Context, work, keep, fixtures string, n, batch int, lookups bool) (IntegrateResult, error) {
	res := IntegrateResult{Facts: n}
	start := time.Now()
	dir := filepath.Join(work, fmt.Sprintf("integrate-%d", n))
	sentences, err := integrateStore(ctx, dir, keep, fixtures, n)
	if err != nil {
		return res, err
	}
	res.Build = time.Since(start)

	heuristic := func(k string) string {
		if k == model.EnvProvider {
			return "heuristic"
		}
		return ""
	}
	p, err := pipeline.Open(ctx, dir, pipeline.Options{Getenv: heuristic})
	if err != nil {
		return res, err
	}
	defer p.Close()
	rng := rand.New(rand.NewPCG(21, 22))
	evs := make([]store.Event, batch)
	for i := range evs {
		evs[i] = store.Event{SessionID: fmt.Sprintf("new-%d", i/20), Source: "record", Role: "user", EventType: "message", ContentType: "text",
			Content: "We decided that " + sentences[rng.IntN(len(sentences))]}
	}
	if _, err := p.Record(ctx, evs); err != nil {
		return res, err
	}
	if _, err := p.Run(ctx, pipeline.RunOptions{Steps: pipeline.Steps{Extract: true}, Extract: extract.Options{All: true}, Trigger: "bench"}); err != nil {
		return res, err
	}
	pending, err := pendingContents(ctx, p.Store())
	if err != nil {
		return res, err
	}
	if len(pending) == 0 {
		return res, fmt.Errorf("the heuristic extracted no fact from %d messages; nothing to time", batch)
	}
	// The lookups alone, before the new facts join the store: the index's,
	// then the old store-wide query's, each over every pending fact. Not
	// alternating: at 1M facts the store-wide query reads enough of the
	// file to push the index's pages out of the connection's cache, which
	// no integrate run does (it no longer runs that query).
	if lookups {
		var look, or time.Duration
		for _, c := range pending {
			t := time.Now()
			if _, err := integrate.NearDuplicateIDs(ctx, p.Store(), c, "general"); err != nil {
				return res, err
			}
			look += time.Since(t)
		}
		for _, c := range pending {
			t := time.Now()
			if err := orQuery(ctx, p.Store(), c); err != nil {
				return res, err
			}
			or += time.Since(t)
		}
		res.Lookup, res.OR = look/time.Duration(len(pending)), or/time.Duration(len(pending))
	}
	t0 := time.Now()
	sum, err := p.Run(ctx, pipeline.RunOptions{Steps: pipeline.Steps{Integrate: true}, Trigger: "bench"})
	if err != nil {
		return res, err
	}
	took := time.Since(t0)
	if res.New = sum.Integrate.Claimed; res.New == 0 {
		return res, fmt.Errorf("integrate claimed none of the %d pending facts", len(pending))
	}
	res.PerFact = took / time.Duration(res.New)
	res.Rounds = []time.Duration{res.PerFact}
	return res, nil
}

// IntegrateRounds is how many times the integrate part times each store
// size by default: a run of a few hundred facts takes about a second, so
// one burst of other work on a shared machine could double one figure.
const IntegrateRounds = 3

// benchIntegrateRounds times integrate into each of sizes rounds times,
// the sizes in turn within a round (so load that comes and goes meets
// them alike), each round on fresh copies of the stores; the lookups are
// timed in the first round only. Each result's PerFact is the median of
// its rounds. A size that fails in any round is reported in failed alone.
func benchIntegrateRounds(ctx context.Context, work, keep, fixtures string, sizes []int, rounds int, say func(string), failed map[string]string) []IntegrateResult {
	rounds = max(rounds, 1)
	results := make([]*IntegrateResult, len(sizes))
	for round := range rounds {
		for i, n := range sizes {
			key := fmt.Sprintf("integrate %d", n)
			if _, ok := failed[key]; ok {
				continue
			}
			say(fmt.Sprintf("integrate: %d new messages into %d facts (round %d of %d)", IntegrateBatch, n, round+1, rounds))
			r, err := BenchIntegrate(ctx, filepath.Join(work, "integrate"), keep, fixtures, n, IntegrateBatch, round == 0)
			os.RemoveAll(filepath.Join(work, "integrate"))
			switch {
			case err != nil:
				failed[key], results[i] = err.Error(), nil
			case results[i] == nil:
				results[i] = &r
			default:
				results[i].Rounds = append(results[i].Rounds, r.PerFact)
			}
		}
	}
	var out []IntegrateResult
	for _, r := range results {
		if r != nil {
			sorted := slices.Clone(r.Rounds)
			slices.Sort(sorted)
			r.PerFact = sorted[len(sorted)/2]
			out = append(out, *r)
		}
	}
	return out
}

// integrateStore puts the integrate bench's store of n facts in dir:
// built there, or with keep set copied from keep/integrate-N (see
// keptStore). It returns the fixture sentences.
func integrateStore(ctx context.Context, dir, keep, fixtures string, n int) ([]string, error) {
	if keep == "" {
		return buildIntegrateStore(ctx, dir, fixtures, n)
	}
	build := func(part string) error {
		_, err := buildIntegrateStore(ctx, part, fixtures, n)
		return err
	}
	if err := keptStore(ctx, dir, filepath.Join(keep, fmt.Sprintf("integrate-%d", n)), build, upgradeKept); err != nil {
		return nil, fmt.Errorf("keep the integrate store: %w", err)
	}
	return factSentences(fixtures)
}

// keptStore copies the store kept in kept into dir, building it there
// first (into kept.part, renamed once closed, so a build that did not
// finish is never reused) when absent, and bringing it up to this binary
// with upgrade before the copy.
func keptStore(ctx context.Context, dir, kept string, build func(dir string) error, upgrade func(context.Context, string) error) error {
	if _, err := os.Stat(filepath.Join(kept, store.DBFile)); errors.Is(err, fs.ErrNotExist) {
		part := kept + ".part"
		if err := os.RemoveAll(part); err != nil {
			return fmt.Errorf("remove the unfinished store %s: %w", part, err)
		}
		if err := build(part); err != nil {
			return err
		}
		if err := os.Rename(part, kept); err != nil {
			return fmt.Errorf("rename %s: %w", part, err)
		}
	} else if err != nil {
		return fmt.Errorf("read the kept store: %w", err)
	}
	if err := upgrade(ctx, kept); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := copyStoreFile(filepath.Join(kept, store.DBFile), filepath.Join(dir, store.DBFile)); err != nil {
		return fmt.Errorf("copy the kept store %s: %w", kept, err)
	}
	return nil
}

// upgradeKept brings a kept store built by an earlier binary to what this
// one keeps, as a user's store is after its first integrate run: the
// schema migrated and the stored facts signed again when a migration asks
// for it. Done once on the kept store, not in every timed copy of it.
func upgradeKept(ctx context.Context, dir string) error {
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		return fmt.Errorf("open the kept integrate store: %w", err)
	}
	err = integrate.SignStored(ctx, db)
	if err == nil {
		_, err = db.Checkpoint(ctx)
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("upgrade the kept integrate store %s: %w", dir, err)
	}
	return nil
}

// buildIntegrateStore builds the store of n facts in dir, signed as
// integrate signs its own, checkpointed and closed.
func buildIntegrateStore(ctx context.Context, dir, fixtures string, n int) ([]string, error) {
	db, sentences, err := buildSearchStore(ctx, dir, fixtures, n)
	if err != nil {
		return nil, err
	}
	err = db.Tx(ctx, func(tx *store.Tx) error {
		_, err := integrate.SignFacts(ctx, tx, 1, int64(n))
		return err
	})
	if err == nil {
		_, err = db.Checkpoint(ctx)
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("sign the integrate store: %w", err)
	}
	return sentences, nil
}

// copyStoreFile copies the closed store file from to a new file to, 0600,
// and syncs it: unsynced, a 1M store is a gigabyte of dirty pages that
// the timed run's first checkpoint (its fsync) would wait to write out,
// which no user's store makes it do.
func copyStoreFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// pendingContents lists the pending facts' contents.
func pendingContents(ctx context.Context, db *store.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT content FROM session_facts WHERE status = 'pending'`)
	if err != nil {
		return nil, fmt.Errorf("read pending facts: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("read pending facts: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// orQuery is the store-wide lookup near duplicates came from before the
// signature index: any of the fact's signature words, best bm25 first.
func orQuery(ctx context.Context, db *store.DB, content string) error {
	q := text.Analyze(strings.Join(integrate.SignatureWords(content), " ")).Query()
	if len(q) == 0 {
		return nil
	}
	eng := db.Engine()
	rows, err := db.QueryContext(ctx, `SELECT f.id, f.content FROM `+eng.TextMatches(store.FactText)+` k JOIN facts f ON f.id = k.id
		WHERE f.status = 'active' AND f.domain = 'general' ORDER BY k.score DESC LIMIT 20`, eng.TextQuery(q))
	if err != nil {
		return fmt.Errorf("or query: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

package graph

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/recollect/recollect/store"
)

// Context ranking: the keyword arm scores a fact by its own BM25 and by the
// conversation around it, because a conversation states an answer near the
// words of the question, not always in the same turn ("Where did you go?" —
// "Rome, last week.").
const (
	// SpeakerBoost multiplies the score of a fact said by a person the query
	// names: "what did Caroline research" is about what Caroline said.
	SpeakerBoost = 0.5
	// NeighborShare is the share of a hit's score that the fact said just
	// before or after it in the same conversation inherits. A fact that
	// does not itself match inherits only from a hit that asks a question
	// (its text holds a "?"): the answer to "Where did you go?" is the
	// turn after it, while the turns around a statement are about
	// something else ("search Atlas" must not bring the allergy said
	// before the Atlas sentence).
	NeighborShare = 0.7
	// ContextFloor is the least share of the best hit's own score a fact
	// found only as context must inherit to be listed at all.
	ContextFloor = 0.25
	// SessionShare is the share of the best score in a conversation that
	// every candidate from that conversation inherits: a conversation that
	// is about the query lifts all of its candidates.
	SessionShare = 0.5
	// keywordPool is how many BM25 hits are scored; neighborSeeds how many
	// of the best of them lend score to their neighbours.
	keywordPool   = 200
	neighborSeeds = 50
)

// ArmContext labels a fact the keyword arm found only through the
// conversation around a keyword hit: it does not contain the query's words.
const ArmContext Arm = "context"

// KeywordRanking is the keyword arm's answer.
type KeywordRanking struct {
	// IDs are the facts, best first.
	IDs []int64
	// Context holds the ids found only through conversation context.
	Context map[int64]bool
	// Speakers are the names in the query that are speakers of stored
	// facts; the speaker boost stands for them.
	Speakers map[string]bool
}

// OnlyContext reports whether h was found only through conversation
// context, so it does not contain the query's words: a caller acting on
// "facts matching these words" (forget --matching) skips it.
func (h Hit) OnlyContext() bool {
	for _, m := range h.MatchedBy {
		if m.Arm != ArmContext {
			return false
		}
	}
	return len(h.MatchedBy) > 0
}

// candidate is one fact under context ranking.
type candidate struct {
	id      int64
	session string
	speaker string
	own     float64
	lent    float64
	// matched is true for a BM25 hit, false for a fact found as context.
	matched bool
}

// RankKeyword is the keyword arm: BM25 over the facts' full-text index for
// the analysed query, re-scored by speaker and conversation context (see
// SpeakerBoost, NeighborShare, SessionShare). f restricts the facts the arm
// may return. It returns at most depth ids, best first, ties by id.
func (r *Reader) RankKeyword(ctx context.Context, a Analysis, f Filter, depth int) (KeywordRanking, error) {
	speakers, err := knownSpeakers(ctx, r.db, a.Names)
	if err != nil {
		return KeywordRanking{Context: map[int64]bool{}}, err
	}
	cond, args := f.where()
	return rankKeyword(ctx, r.db, a, speakers, cond, args, depth)
}

// rankKeyword is RankKeyword with the query's speakers already known.
func rankKeyword(ctx context.Context, db *store.DB, a Analysis, speakers map[string]bool, cond string, args []any, depth int) (KeywordRanking, error) {
	kr := KeywordRanking{Context: map[int64]bool{}, Speakers: speakers}
	match := a.withoutNames(speakers).Match()
	if match == "" {
		return kr, nil
	}
	if cond == "" {
		cond = "1"
	}
	order, err := bm25Pool(ctx, db, match, cond, args, keywordPool)
	if err != nil {
		return kr, err
	}
	if len(order) < keywordPool {
		// cond may have turned some of the best matches away: the pool
		// is the best keywordPool that pass among twice as many matches.
		more, err := matchesMoreThan(ctx, db, match, keywordPool)
		if err != nil {
			return kr, err
		}
		if more {
			if order, err = bm25Pool(ctx, db, match, cond, args, 2*keywordPool); err != nil {
				return kr, err
			}
		}
	}
	cands := map[int64]*candidate{}
	for _, c := range order {
		if speakers[c.speaker] {
			c.own *= 1 + SpeakerBoost
		}
		cands[c.id] = c
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].own > order[j].own })
	if err := lendToNeighbors(ctx, db, order, cands, speakers, cond, args); err != nil {
		return kr, err
	}
	kr.IDs = contextOrder(cands, speakers, depth)
	for _, id := range kr.IDs {
		if !cands[id].matched {
			kr.Context[id] = true
		}
	}
	return kr, nil
}

// bm25Pool reads the best keywordPool facts that pass cond among the
// ranked best matches of the FTS5 query, best first, ties by id. FTS5
// ranks alone first, then only the ranked are joined with facts (as the
// outer loop: CROSS JOIN): joining every match before sorting costs a row
// read per match. bm25() is the same score as the rank column, but ORDER BY
// rank makes FTS5 prepare and run a second, sorting statement of its own:
// at 100k facts that costs about a quarter of the query. The few hundred
// joined rows are sorted here; a sorter in SQLite costs more.
func bm25Pool(ctx context.Context, db *store.DB, match, cond string, args []any, ranked int) ([]*candidate, error) {
	rows, err := db.QueryContext(ctx, `SELECT f.id, r.score, COALESCE(f.session_id, ''), COALESCE(f.speaker, '')
		FROM (SELECT rowid AS id, -bm25(facts_fts) AS score FROM facts_fts WHERE facts_fts MATCH ? ORDER BY score DESC, id LIMIT ?) r
		CROSS JOIN facts f WHERE f.id = r.id AND `+cond, append([]any{match, ranked}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	defer rows.Close()
	var out []*candidate
	for rows.Next() {
		c := &candidate{matched: true}
		if err := rows.Scan(&c.id, &c.own, &c.session, &c.speaker); err != nil {
			return nil, fmt.Errorf("keyword search: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	slices.SortFunc(out, func(a, b *candidate) int {
		if a.own != b.own {
			return cmp.Compare(b.own, a.own)
		}
		return cmp.Compare(a.id, b.id)
	})
	return out[:min(len(out), keywordPool)], nil
}

// matchesMoreThan reports whether the FTS5 query matches more than n facts
// (it counts no further than n+1, and ranks none).
func matchesMoreThan(ctx context.Context, db *store.DB, match string, n int) (bool, error) {
	var got int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM facts_fts WHERE facts_fts MATCH ? LIMIT ?)`,
		match, n+1).Scan(&got); err != nil {
		return false, fmt.Errorf("keyword search: count matches: %w", err)
	}
	return got > n, nil
}

// lendToNeighbors gives the facts said just before and after each of the
// best hits (in the same session) NeighborShare of that hit's score. When
// the query names speakers, only their facts inherit.
func lendToNeighbors(ctx context.Context, db *store.DB, order []*candidate, cands map[int64]*candidate, speakers map[string]bool, cond string, args []any) error {
	seeds := map[int64]*candidate{}
	for i, c := range order {
		if i == neighborSeeds {
			break
		}
		if c.session != "" {
			seeds[c.id] = c
		}
	}
	if len(seeds) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(seeds))
	for id := range seeds {
		ids = append(ids, id)
	}
	in, inArgs := store.InList(ids)
	rows, err := db.QueryContext(ctx, neighborQuery(in, cond), append(inArgs, args...)...)
	if err != nil {
		return fmt.Errorf("conversation context: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, n int64
		var session, sp string
		var asks bool
		if err := rows.Scan(&id, &session, &n, &sp, &asks); err != nil {
			return fmt.Errorf("conversation context: %w", err)
		}
		seed := seeds[id]
		if seed == nil || seed.session != session || (len(speakers) > 0 && !speakers[sp]) {
			continue
		}
		got := cands[n]
		if got == nil && !asks {
			continue // only a question's exchange is context for words it lacks
		}
		if got == nil {
			got = &candidate{id: n, session: seed.session, speaker: sp}
			cands[n] = got
		}
		got.lent = max(got.lent, NeighborShare*seed.own)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("conversation context: %w", err)
	}
	return nil
}

// neighborQuery reads the neighbours of each seed fact (seeds is their IN
// list) in its session's order — the order of its events (two seeks on
// fact_provenance(session_id, event_seq, fact_id)), or for a fact captured
// without an event the order of capture (two seeks on the partial index
// fact_provenance_session_capture) — with the neighbour's speaker and
// whether the seed asks a question, kept to the facts cond allows.
func neighborQuery(seeds, cond string) string {
	return `WITH adj AS MATERIALIZED (SELECT p.fact_id AS seed, p.session_id AS session,
			CASE WHEN p.event_seq IS NOT NULL THEN
				(SELECT q.fact_id FROM fact_provenance q WHERE q.session_id = p.session_id AND q.event_seq < p.event_seq
					ORDER BY q.event_seq DESC LIMIT 1)
			ELSE (SELECT q.fact_id FROM fact_provenance q WHERE q.session_id = p.session_id AND q.event_seq IS NULL
					AND q.session_fact_id < p.session_fact_id ORDER BY q.session_fact_id DESC LIMIT 1) END AS prev,
			CASE WHEN p.event_seq IS NOT NULL THEN
				(SELECT q.fact_id FROM fact_provenance q WHERE q.session_id = p.session_id AND q.event_seq > p.event_seq
					ORDER BY q.event_seq LIMIT 1)
			ELSE (SELECT q.fact_id FROM fact_provenance q WHERE q.session_id = p.session_id AND q.event_seq IS NULL
					AND q.session_fact_id > p.session_fact_id ORDER BY q.session_fact_id LIMIT 1) END AS next
		FROM fact_provenance p WHERE p.fact_id IN (` + seeds + `) AND p.session_id IS NOT NULL
			AND (p.event_seq IS NOT NULL OR p.session_fact_id IS NOT NULL))
		SELECT a.seed, a.session, f.id, COALESCE(f.speaker, ''),
			COALESCE((SELECT instr(s.content, '?') > 0 FROM facts s WHERE s.id = a.seed), 0)
		FROM adj a JOIN facts f ON f.id IN (a.prev, a.next)
		WHERE f.id != a.seed AND ` + cond
}

// contextOrder adds the session share and sorts.
func contextOrder(cands map[int64]*candidate, speakers map[string]bool, depth int) []int64 {
	best := map[string]float64{}
	top := 0.0
	for _, c := range cands {
		best[c.session] = max(best[c.session], c.own)
		top = max(top, c.own)
	}
	type scored struct {
		id    int64
		score float64
	}
	all := make([]scored, 0, len(cands))
	for id, c := range cands {
		if !c.matched && c.lent < ContextFloor*top {
			continue
		}
		s := c.own + c.lent
		if c.session != "" && (len(speakers) == 0 || speakers[c.speaker]) {
			s += SessionShare * best[c.session]
		}
		all = append(all, scored{id, s})
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		return cmp.Compare(a.id, b.id)
	})
	ids := make([]int64, 0, min(len(all), depth))
	for _, s := range all[:min(len(all), depth)] {
		ids = append(ids, s.id)
	}
	return ids
}

// knownSpeakers returns which of the query's names are speakers of stored
// facts.
func knownSpeakers(ctx context.Context, db *store.DB, names []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, n := range names {
		var one int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM facts WHERE speaker = ? LIMIT 1)`, n).Scan(&one)
		if err != nil {
			return nil, fmt.Errorf("look up speaker %q: %w", n, err)
		}
		if one > 0 {
			out[n] = true
		}
	}
	return out, nil
}

// withoutNames drops the words of the given names from the terms: the
// speaker boost already stands for them, and as words they would match
// every turn that greets that person. If nothing would remain, the
// analysis is returned unchanged.
func (a Analysis) withoutNames(names map[string]bool) Analysis {
	if len(names) == 0 {
		return a
	}
	drop := map[string]bool{}
	for n := range names {
		for _, w := range tokens(n) {
			drop[Stem(w)] = true
		}
	}
	var out Analysis = a
	out.Terms, out.Stems = nil, nil
	for i, t := range a.Terms {
		if !drop[a.Stems[i]] {
			out.Terms = append(out.Terms, t)
			out.Stems = append(out.Stems, a.Stems[i])
		}
	}
	if len(out.Terms) == 0 && len(out.Phrases) == 0 {
		return a
	}
	return out
}

// addKeyword feeds the keyword arm's ranking to the fusion: one list, so a
// fact found through conversation context keeps the rank the context gave
// it, labelled ArmContext instead of ArmKeyword.
func (f *fusion) addKeyword(kr KeywordRanking) {
	f.add(ArmKeyword, kr.IDs, nil)
	for id := range kr.Context {
		for i, m := range f.matches[id] {
			if m.Arm == ArmKeyword {
				f.matches[id][i].Arm = ArmContext
			}
		}
	}
}

// WithoutSpeakers drops the words of the ranking's speaker names from
// terms, unless nothing would remain: a person who speaks in the store is
// found by the speaker boost, and as an entity she is named mostly by the
// people talking to her.
func (kr KeywordRanking) WithoutSpeakers(terms []string) []string {
	return withoutSpeakers(terms, kr.Speakers)
}

func withoutSpeakers(terms []string, speakers map[string]bool) []string {
	if len(speakers) == 0 {
		return terms
	}
	drop := map[string]bool{}
	for n := range speakers {
		for _, w := range tokens(n) {
			drop[w] = true
		}
	}
	var out []string
	for _, t := range terms {
		if !drop[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return terms
	}
	return out
}

// EntityWeight scales the entity arm's vote in the fusion. The arm lists
// every fact that names an entity of the query, in an order that knows
// nothing of the query's other words; at a quarter of a keyword vote its
// first hit (0.25/61) sits below the keyword arm's sixtieth (1/120), so it
// lifts keyword hits that name the entity and adds facts only where the
// words found few. Each fact's vote is scaled again by its entity weight
// (see entityWeights): an entity named by half the store votes nothing.
// Chosen when the arm listed every fact of every matched entity: on LoCoMo
// (first three conversations, recall@10) weight 1 gave 0.62, 0.25 gave
// 0.76, no entity arm 0.76.
const EntityWeight = 0.25

// addWeighted is add with the arm's contribution to each fact scaled by
// w(id).
func (f *fusion) addWeighted(arm Arm, ids []int64, detail func(int64) string, w func(int64) float64) {
	before := map[int64]float64{}
	for _, id := range ids {
		before[id] = f.score[id]
	}
	f.add(arm, ids, detail)
	for _, id := range ids {
		f.score[id] = before[id] + w(id)*(f.score[id]-before[id])
	}
}

// keepFirst keeps the keyword arm's first hit first against the entity
// arm: naming an entity of the query never lifts another keyword hit above
// the best keyword match (a hit found by the keyword arm below it scores
// at most just under it). It runs after the keyword and entity lists are
// added, before any other arm.
func (f *fusion) keepFirst(kr KeywordRanking) {
	var first int64
	for _, id := range kr.IDs {
		if !kr.Context[id] {
			first = id
			break
		}
	}
	if first == 0 {
		return
	}
	top := f.score[first]
	for i, id := range kr.IDs {
		if id != first && f.score[id] >= top {
			// keep the keyword arm's own order below the first
			f.score[id] = math.Nextafter(top, 0) - float64(i)*1e-12
		}
	}
}

package graph

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/recollect/recollect/store"
)

// RRFK is the Reciprocal Rank Fusion constant: an arm's hit at rank r adds
// 1/(RRFK + r) to the fact's score.
const RRFK = 60

// Floors of the semantic arm: a fact is kept when its cosine with the query
// is at least MinCosine and at least RelativeCosine times the best cosine.
const (
	MinCosine      = 0.3
	RelativeCosine = 0.8
)

// fusion accumulates ranked lists into RRF scores.
type fusion struct {
	order   []int64
	score   map[int64]float64
	matches map[int64][]Match
}

func newFusion() *fusion {
	return &fusion{score: map[int64]float64{}, matches: map[int64][]Match{}}
}

func (f *fusion) add(arm Arm, ids []int64, detail func(int64) string) {
	for i, id := range ids {
		if _, seen := f.score[id]; !seen {
			f.order = append(f.order, id)
		}
		f.score[id] += 1 / float64(RRFK+i+1)
		m := Match{Arm: arm, Rank: i + 1}
		if detail != nil {
			m.Detail = detail(id)
		}
		f.matches[id] = append(f.matches[id], m)
	}
}

// ranked is the ids found so far, best fused score first.
func (f *fusion) ranked() []int64 {
	ids := append([]int64(nil), f.order...)
	sort.SliceStable(ids, func(i, j int) bool {
		if f.score[ids[i]] != f.score[ids[j]] {
			return f.score[ids[i]] > f.score[ids[j]]
		}
		return ids[i] < ids[j]
	})
	return ids
}

// domainList ranks the facts other arms found that lie in domain, in their
// fused order: a bias toward the domain that can never add a fact no other
// arm found.
func (f *fusion) domainList(ctx context.Context, db *store.DB, domain string) ([]int64, error) {
	ranked := f.ranked()
	if len(ranked) == 0 {
		return nil, nil
	}
	in, args := store.InList(ranked)
	rows, err := db.QueryContext(ctx, `SELECT id FROM facts WHERE id IN (`+in+`) AND lower(domain) = lower(trim(?))`,
		append(args, domain)...)
	if err != nil {
		return nil, fmt.Errorf("domain list: %w", err)
	}
	inDomain, err := scanIDs(rows, "domain list")
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, id := range ranked {
		if contains(inDomain, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// chainLink is one fact's place in a supersession chain, with what the
// ranking after fusion needs of it (see Adjust): importance and time.
type chainLink struct {
	next       int64
	live       bool
	importance float64
	// when is the fact's Time, recorded its recorded_at.
	when, recorded string
}

// links reads superseded_by, liveness, importance and times for ids not yet
// in known.
func links(ctx context.Context, db *store.DB, sc scope, ids []int64, known map[int64]chainLink) error {
	var want []int64
	for _, id := range ids {
		if _, ok := known[id]; !ok && id != 0 {
			want = append(want, id)
		}
	}
	if len(want) == 0 {
		return nil
	}
	live, largs := sc.live()
	in, args := store.InList(want)
	rows, err := db.QueryContext(ctx, `SELECT f.id, COALESCE(f.superseded_by, 0), CASE WHEN `+live+` THEN 1 ELSE 0 END,
		f.importance, COALESCE(f.said_at, ''), COALESCE(f.valid_from, ''), f.recorded_at
		FROM facts f WHERE f.id IN (`+in+`)`, append(largs, args...)...)
	if err != nil {
		return fmt.Errorf("read supersession: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var l chainLink
		var said, from string
		if err := rows.Scan(&id, &l.next, &l.live, &l.importance, &said, &from, &l.recorded); err != nil {
			return fmt.Errorf("read supersession: %w", err)
		}
		l.when = Hit{SaidAt: said, ValidFrom: from, RecordedAt: l.recorded}.Time()
		known[id] = l
	}
	for _, id := range want {
		if _, ok := known[id]; !ok {
			known[id] = chainLink{}
		}
	}
	return rows.Err()
}

// successors maps each fact that is not believed to its believed successor
// (the end of its superseded_by chain), or 0 when there is none.
func successors(ctx context.Context, db *store.DB, sc scope, ids []int64) (map[int64]chainLink, map[int64]int64, error) {
	known := map[int64]chainLink{}
	if err := links(ctx, db, sc, ids, known); err != nil {
		return nil, nil, err
	}
	cur := map[int64]int64{}
	for _, id := range ids {
		if !known[id].live {
			cur[id] = id
		}
	}
	succ := map[int64]int64{}
	for step := 0; step < 64 && len(cur) > 0; step++ {
		var next []int64
		for _, at := range cur {
			next = append(next, known[at].next)
		}
		if err := links(ctx, db, sc, next, known); err != nil {
			return nil, nil, err
		}
		for id, at := range cur {
			n := known[at].next
			switch {
			case n == 0 || n == id:
				succ[id] = 0
				delete(cur, id)
			case known[n].live:
				succ[id] = n
				delete(cur, id)
			default:
				cur[id] = n
			}
		}
	}
	return known, succ, nil
}

// resolve turns fused ids into hits: a hit on a fact no longer believed
// passes its matches to its current successor (labelled with Via), and
// appears itself only with history. The successor ranks where the best of
// itself and its predecessors ranked — the maximum of their scores, never
// the sum — so it takes its predecessor's place but never rises above a
// stronger direct hit by collecting several predecessors' matches. Scores are adjusted and
// ranked from the light columns links reads; only the best want facts (all
// when want is 0) are loaded in full.
func (f *fusion) resolve(ctx context.Context, db *store.DB, sc scope, history bool, want int) ([]*Hit, error) {
	known, succ, err := successors(ctx, db, sc, f.order)
	if err != nil {
		return nil, err
	}
	score := map[int64]float64{}
	matches := map[int64][]Match{}
	via := map[int64][]int64{}
	var keep []int64
	for _, id := range f.order {
		if known[id].live || history {
			score[id] = max(score[id], f.score[id])
			matches[id] = append(matches[id], f.matches[id]...)
			keep = append(keep, id)
		}
		if s := succ[id]; !known[id].live && s != 0 {
			score[s] = max(score[s], f.score[id])
			for _, m := range f.matches[id] {
				m.Via = id
				matches[s] = append(matches[s], m)
			}
			via[s] = append(via[s], id)
			keep = append(keep, s)
		}
	}
	keep = rankAdjusted(dedupe(keep), score, known)
	if want > 0 {
		keep = roomForDirect(keep, matches, want)
	}
	load := append([]int64(nil), keep...)
	for _, id := range keep {
		load = append(load, via[id]...)
	}
	all, err := loadHits(ctx, db, dedupe(load))
	if err != nil {
		return nil, err
	}
	var out []*Hit
	for _, id := range keep {
		h := all[id]
		if h == nil {
			continue
		}
		h.Score, h.MatchedBy = score[id], sortMatches(matches[id])
		for _, old := range via[id] {
			if o := all[old]; o != nil {
				h.Supersedes = append(h.Supersedes, HistoryRef{ID: old, Content: o.Content})
			}
		}
		out = append(out, h)
	}
	return out, nil
}

// roomForDirect picks the first want of ranked ids, where hits found only
// as conversation context take at most half the places while direct hits
// remain to fill the rest: context never crowds out what matched.
func roomForDirect(ranked []int64, matches map[int64][]Match, want int) []int64 {
	onlyContext := func(id int64) bool { return Hit{MatchedBy: matches[id]}.OnlyContext() }
	direct := 0
	for _, id := range ranked {
		if !onlyContext(id) {
			direct++
		}
	}
	out := make([]int64, 0, want)
	context := 0
	for _, id := range ranked {
		if len(out) == want {
			break
		}
		if onlyContext(id) {
			if context >= want/2 && direct > 0 {
				continue
			}
			context++
		} else {
			direct--
		}
		out = append(out, id)
	}
	return out
}

// rankAdjusted applies Adjust to the scores of ids, with ages measured from
// the newest of them, and returns the ids best first, ties by id.
func rankAdjusted(ids []int64, score map[int64]float64, known map[int64]chainLink) []int64 {
	var ref time.Time
	times := make(map[int64]time.Time, len(ids))
	for _, id := range ids {
		t, err := store.ParseTime(known[id].when)
		if err != nil {
			t, _ = store.ParseTime(known[id].recorded)
		}
		times[id] = t
		if t.After(ref) {
			ref = t
		}
	}
	type scored struct {
		id    int64
		score float64
	}
	all := make([]scored, len(ids))
	for i, id := range ids {
		score[id] *= Adjust(known[id].importance, ref.Sub(times[id]))
		all[i] = scored{id, score[id]}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		return cmp.Compare(a.id, b.id)
	})
	for i, s := range all {
		ids[i] = s.id
	}
	return ids
}

var armOrder = map[Arm]int{ArmKeyword: 0, ArmContext: 1, ArmEntity: 2, ArmSemantic: 3, ArmDomain: 4}

func sortMatches(ms []Match) []Match {
	if ms == nil {
		return []Match{}
	}
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].Via != ms[j].Via {
			return ms[i].Via < ms[j].Via
		}
		if armOrder[ms[i].Arm] != armOrder[ms[j].Arm] {
			return armOrder[ms[i].Arm] < armOrder[ms[j].Arm]
		}
		return ms[i].Rank < ms[j].Rank
	})
	return ms
}

func dedupe(ids []int64) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func scanIDs(rows *sql.Rows, what string) ([]int64, error) {
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return ids, nil
}

// semanticArm ranks the facts of the query's space by exact cosine, kept
// above both floors, best first. In a space of more than ExactUpTo
// vectors it scores only the candidates the sign codes pick (see
// vectorIndex); while some vectors have no code yet it scores them all. A
// note explains when the arm cannot run.
func semanticArm(ctx context.Context, db *store.DB, index *vectorIndex, sc scope, vec []float32, space Space, depth int) ([]int64, func(int64) string, string, error) {
	if len(vec) != space.Dim {
		return nil, nil, fmt.Sprintf("the query vector has %d components but its space %s says %d; similarity arm skipped", len(vec), space, space.Dim), nil
	}
	cs, err := index.codes(ctx, db, space)
	if err != nil {
		return nil, nil, "", fmt.Errorf("similarity search: %w", err)
	}
	cond, args := sc.candidate()
	query := `SELECT e.fact_id, e.vector FROM embeddings e JOIN facts f ON f.id = e.fact_id
		WHERE e.provider = ? AND e.model = ? AND e.dim = ? AND ` + cond
	qargs := append([]any{space.Provider, space.Model, space.Dim}, args...)
	if n := max(ExactUpTo, Oversample*depth); cs.missing == 0 && len(cs.IDs) > n {
		ids, err := json.Marshal(cs.nearest(vec, n))
		if err != nil {
			return nil, nil, "", fmt.Errorf("similarity search: %w", err)
		}
		// Driven from the candidate list (CROSS JOIN fixes the order), so
		// SQLite looks up each candidate instead of walking every active fact.
		query = `SELECT e.fact_id, e.vector FROM json_each(?) j CROSS JOIN embeddings e CROSS JOIN facts f
			WHERE e.fact_id = j.value AND e.provider = ? AND e.model = ? AND e.dim = ? AND f.id = e.fact_id AND ` + cond
		qargs = append([]any{string(ids), space.Provider, space.Model, space.Dim}, args...)
	}
	rows, err := db.QueryContext(ctx, query, qargs...)
	if err != nil {
		return nil, nil, "", fmt.Errorf("similarity search: %w", err)
	}
	defer rows.Close()
	type scored struct {
		id  int64
		cos float64
	}
	var all []scored
	best := -1.0
	for rows.Next() {
		var id int64
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, nil, "", fmt.Errorf("similarity search: %w", err)
		}
		v, err := DecodeVector(blob)
		if err != nil {
			continue // a damaged vector is skipped, never compared
		}
		c, err := Cosine(space, vec, Space{Provider: space.Provider, Model: space.Model, Dim: len(v)}, v)
		if err != nil {
			continue
		}
		all = append(all, scored{id, c})
		best = max(best, c)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, "", fmt.Errorf("similarity search: %w", err)
	}
	if len(all) == 0 {
		return nil, nil, fmt.Sprintf("no fact has a vector in %s yet; run consolidate to embed them", space), nil
	}
	floor := max(MinCosine, RelativeCosine*best)
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].cos != all[j].cos {
			return all[i].cos > all[j].cos
		}
		return all[i].id < all[j].id
	})
	cos := map[int64]float64{}
	var ids []int64
	for _, s := range all {
		if s.cos < floor || len(ids) == depth {
			break
		}
		ids = append(ids, s.id)
		cos[s.id] = s.cos
	}
	return ids, func(id int64) string { return "cosine " + strconv.FormatFloat(cos[id], 'f', 3, 64) }, "", nil
}

// entityHits is the entity arm's list with the names that matched each fact.
type entityHits struct {
	ids    []int64
	detail func(int64) string
	// weight is each fact's entity weight (see entityWeights), summed over
	// the entities of the query it names, at most 1.
	weight map[int64]float64
}

// entityArm matches query words (and runs of two or three words) against
// entity names and aliases, and returns the facts linked to those entities:
// most matched entities first, then facts about them, then importance.
func entityArm(ctx context.Context, db *store.DB, sc scope, terms []string, depth int) (entityHits, error) {
	grams := termGrams(terms)
	if len(grams) == 0 {
		return entityHits{}, nil
	}
	in, args := store.InList(grams)
	rows, err := db.QueryContext(ctx, `SELECT id, name FROM entities WHERE fold IN (`+in+`)
		UNION SELECT e.id, e.name FROM entity_aliases a JOIN entities e ON e.id = a.entity_id WHERE a.fold IN (`+in+`)`,
		append(args, args...)...)
	if err != nil {
		return entityHits{}, fmt.Errorf("entity match: %w", err)
	}
	names := map[int64]string{}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			rows.Close()
			return entityHits{}, fmt.Errorf("entity match: %w", err)
		}
		names[id] = name
	}
	rows.Close()
	if len(names) == 0 {
		return entityHits{}, nil
	}
	weights, err := entityWeights(ctx, db, names)
	if err != nil {
		return entityHits{}, err
	}
	if len(names) == 0 {
		return entityHits{}, nil
	}
	return entityFacts(ctx, db, sc, names, weights, depth)
}

// entityWeights gives each entity a weight that falls with how many facts
// name it, like a word's inverse document frequency: 1 for an entity one
// fact names, 0 for one named by half the store or more — a name on every
// other fact (the person talking) says nothing about which fact is meant.
// With n facts in the store and d naming the entity, the weight is
// log(n/2d) / log(n/2), at least 0. Entities of weight 0 are dropped from
// names. The count stops at EntityCountCap, so an entity past it is
// weighed as if it had that many facts.
func entityWeights(ctx context.Context, db *store.DB, names map[int64]string) (map[int64]float64, error) {
	var n float64
	// The highest fact id stands for the store's size: one seek, where
	// counting the active facts reads them all.
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(max(id), 0) FROM facts`).Scan(&n); err != nil {
		return nil, fmt.Errorf("entity weights: %w", err)
	}
	out := map[int64]float64{}
	half := n / 2
	for id := range names {
		var d float64
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM fact_entities WHERE entity_id = ? LIMIT ?)`,
			id, min(int64(half)+1, EntityCountCap)).Scan(&d); err != nil {
			return nil, fmt.Errorf("entity weights: %w", err)
		}
		w := 0.0
		if half > 1 && d > 0 && d < half {
			w = math.Log(half/d) / math.Log(half)
		}
		if w <= 0 {
			delete(names, id)
			continue
		}
		out[id] = w
	}
	return out, nil
}

// EntityCountCap bounds how many facts of one entity entityWeights counts.
const EntityCountCap = 20000

// EntityFactCap is how many facts of one entity the entity arm reads: the
// ones whose subject it is first, then the newest. An entity named by
// thousands of facts ("the project", a word taken for a name) would cost a
// row read for each, to order them by nothing the query said; its newest
// few hundred are the ones worth lending a vote.
const EntityFactCap = 256

func entityFacts(ctx context.Context, db *store.DB, sc scope, names map[int64]string, weights map[int64]float64, depth int) (entityHits, error) {
	var ents []int64
	for id := range names {
		ents = append(ents, id)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i] < ents[j] })
	cond, cargs := sc.candidate()
	var parts []string
	var args []any
	for _, e := range ents {
		parts = append(parts, `SELECT * FROM (SELECT fe.fact_id, fe.entity_id, fe.is_subject, f.importance, ? AS w
			FROM fact_entities fe JOIN facts f ON f.id = fe.fact_id
			WHERE fe.entity_id = ? AND `+cond+` ORDER BY fe.is_subject DESC, fe.fact_id DESC LIMIT ?)`)
		args = append(append(append(args, weights[e], e), cargs...), EntityFactCap)
	}
	rows, err := db.QueryContext(ctx, `SELECT fact_id, sum(w) ws, max(is_subject) s, max(importance) imp,
		group_concat(DISTINCT entity_id)
		FROM (`+strings.Join(parts, " UNION ALL ")+`)
		GROUP BY fact_id ORDER BY ws DESC, s DESC, imp DESC, fact_id DESC LIMIT ?`,
		append(args, depth)...)
	if err != nil {
		return entityHits{}, fmt.Errorf("entity facts: %w", err)
	}
	defer rows.Close()
	detail := map[int64]string{}
	out := entityHits{weight: map[int64]float64{}}
	for rows.Next() {
		var id int64
		var subj int
		var ws, imp float64
		var list string
		if err := rows.Scan(&id, &ws, &subj, &imp, &list); err != nil {
			return entityHits{}, fmt.Errorf("entity facts: %w", err)
		}
		out.ids = append(out.ids, id)
		out.weight[id] = min(ws, 1)
		var ns []string
		for _, s := range strings.Split(list, ",") {
			if eid, err := strconv.ParseInt(s, 10, 64); err == nil && !contains(ns, names[eid]) {
				ns = append(ns, names[eid])
			}
		}
		sort.Strings(ns)
		detail[id] = strings.Join(ns, ", ")
	}
	out.detail = func(id int64) string { return detail[id] }
	return out, rows.Err()
}

// termGrams folds runs of one to three query words into entity fold keys
// ("acme corp" → "acmecorp"); one-letter keys are dropped.
func termGrams(terms []string) []string {
	var out []string
	seen := map[string]bool{}
	for n := 1; n <= 3; n++ {
		for i := 0; i+n <= len(terms); i++ {
			g := Fold(strings.Join(terms[i:i+n], ""))
			if len([]rune(g)) < 2 || seen[g] {
				continue
			}
			seen[g] = true
			out = append(out, g)
		}
	}
	return out
}

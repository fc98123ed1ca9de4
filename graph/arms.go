package graph

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store"
)

// The retrieval arms live here, each answering the same armList: the
// keyword arm (BM25 re-scored by speaker and conversation context, see
// conversation.go), the entity arm, the semantic arm and the domain bias.
// fusion.go fuses their lists; supersession.go turns the fused ids into
// hits.

// Arm names a retrieval list that can find a fact.
type Arm string

// The retrieval arms.
const (
	ArmKeyword  Arm = "keyword"
	ArmEntity   Arm = "entity"
	ArmDomain   Arm = "domain"
	ArmSemantic Arm = "semantic"
)

// ArmContext labels a fact the keyword arm found only through the
// conversation around a keyword hit: it does not contain the query's words.
const ArmContext Arm = "context"

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

// armList is what every arm answers: the facts it found, best first, and
// what the fusion needs to count and label its votes.
type armList struct {
	arm Arm
	ids []int64
	// detail says what matched a fact (entity names, the cosine, the
	// domain); nil for none.
	detail func(int64) string
	// weight scales each fact's vote; nil is a full vote for every fact.
	weight map[int64]float64
	// context marks the facts the keyword arm found only through the
	// conversation around a hit: they are labelled ArmContext.
	context map[int64]bool
}

// runArms runs every arm that applies and feeds its list to f. The arms
// run in one errgroup on a derived context: the first to fail cancels the
// others, and runArms returns only once every one has returned, so no
// query outlives the search.
func runArms(ctx context.Context, r *Reader, q Query, sc scope, match string, terms []string, depth int, f *fusion, ans *Answer) error {
	db := r.db
	g, gctx := newArmGroup(ctx, r.parallel())
	// The semantic arm reads only its own tables, so it runs on a
	// connection of its own beside the others.
	var (
		sem     armList
		semNote string
	)
	if len(q.Vector) > 0 {
		g.Go(func() (err error) {
			sem, semNote, err = semanticArm(gctx, r, sc, q.Vector, q.Space, depth)
			return err
		})
	}
	var keyword, entity armList
	var events []armList
	if match != "" {
		a := text.Analyze(q.Text)
		named := text.Events(q.Text)
		events = make([]armList, len(named))
		g.Go(func() error {
			speakers, err := knownSpeakers(gctx, db, a.Names)
			if err != nil {
				return err
			}
			// The entity arm needs only the speakers, so it runs on a
			// second connection while the keyword arm runs.
			g.Go(func() (err error) {
				entity, err = entityArm(gctx, db, sc, withoutSpeakers(terms, speakers), depth)
				return err
			})
			keyword, err = keywordArm(gctx, r, a, speakers, sc, depth)
			if err != nil {
				return err
			}
			// Each event a question of order names is searched on its
			// own, for its best match (see fusion.placeEvents).
			for i, e := range named {
				if events[i], err = keywordArm(gctx, r, text.Analyze(e), speakers, sc, eventDepth); err != nil {
					return err
				}
				detail := fmt.Sprintf("the best match of %q", e)
				events[i].detail = func(int64) string { return detail }
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if match != "" {
		ans.Arms = append(ans.Arms, ArmKeyword, ArmEntity)
		f.add(keyword)
		votes, found := entity.splitFound(keyword)
		f.add(votes)
		f.note(found)
		f.keepFirst(keyword)
	}
	if len(q.Vector) > 0 {
		if semNote != "" {
			ans.Notes = append(ans.Notes, semNote)
		} else {
			ans.Arms = append(ans.Arms, ArmSemantic)
			f.add(sem)
		}
	}
	if q.Domain != "" {
		dom, err := domainArm(ctx, db, f.ranked(), q.Domain)
		if err != nil {
			return err
		}
		ans.Arms = append(ans.Arms, ArmDomain)
		f.add(dom)
	}
	f.placeEvents(events, q.Limit)
	return nil
}

// eventDepth is how many facts the keyword arm reads for each event a
// question of order names: only its best direct match is used.
const eventDepth = 10

// armGroup runs the arms: in an errgroup when they run side by side, or
// each at once, in the order they are started, when they run one after
// another (Reader.parallel); then the first error stops the rest.
type armGroup struct {
	g   *errgroup.Group
	err error
}

func newArmGroup(ctx context.Context, parallel bool) (*armGroup, context.Context) {
	if !parallel {
		return &armGroup{}, ctx
	}
	g, gctx := errgroup.WithContext(ctx)
	return &armGroup{g: g}, gctx
}

// Go runs fn beside the others, or now.
func (a *armGroup) Go(fn func() error) {
	if a.g != nil {
		a.g.Go(fn)
		return
	}
	if a.err != nil {
		return
	}
	// An arm started from inside another (the entity arm, from the
	// keyword arm's function) may fail before the outer one returns.
	if err := fn(); err != nil && a.err == nil {
		a.err = err
	}
}

// Wait returns the first error once every arm has returned.
func (a *armGroup) Wait() error {
	if a.g != nil {
		return a.g.Wait()
	}
	return a.err
}

// keywordArm is the keyword arm's list: rankKeyword over the facts an arm
// may find, with the facts found only as conversation context marked.
func keywordArm(ctx context.Context, r *Reader, a text.Analysis, speakers map[string]bool, sc scope, depth int) (armList, error) {
	cond, args := sc.candidate()
	kr, err := rankKeyword(ctx, r, a, speakers, cond, args, depth)
	if err != nil {
		return armList{}, err
	}
	return armList{arm: ArmKeyword, ids: kr.IDs, context: kr.Context}, nil
}

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

// RankKeyword is the keyword arm: BM25 over the facts' full-text index for
// the analysed query, re-scored by speaker and conversation context (see
// SpeakerBoost, NeighborShare, SessionShare). f restricts the facts the arm
// may return. It returns at most depth ids, best first, ties by id.
func (r *Reader) RankKeyword(ctx context.Context, a text.Analysis, f Filter, depth int) (KeywordRanking, error) {
	speakers, err := knownSpeakers(ctx, r.db, a.Names)
	if err != nil {
		return KeywordRanking{Context: map[int64]bool{}}, err
	}
	cond, args := r.where(f)
	return rankKeyword(ctx, r, a, speakers, cond, args, depth)
}

// rankKeyword is RankKeyword with the query's speakers already known.
func rankKeyword(ctx context.Context, r *Reader, a text.Analysis, speakers map[string]bool, cond string, args []any, depth int) (KeywordRanking, error) {
	db := r.db
	kr := KeywordRanking{Context: map[int64]bool{}, Speakers: speakers}
	text := a.WithoutNames(speakers).KeywordQuery()
	match := db.Engine().TextQuery(text)
	if match == "" {
		return kr, nil
	}
	if cond == "" {
		cond = "1 = 1"
	}
	// Where each statement is a round trip, the pool's statement reads
	// its seeds' neighbours too.
	remote := db.Engine().Remote()
	carrier, _ := db.Engine().(store.FactTopCarrier)
	var near []neighbor
	pool := func(ranked int) (order []*candidate, err error) {
		if remote {
			order, near, err = poolWithNeighbors(ctx, r, text, cond, args, ranked, speakers, carrier)
			return order, err
		}
		return bm25Pool(ctx, r, text, cond, args, ranked)
	}
	order, err := pool(keywordPool)
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
			if order, err = pool(2 * keywordPool); err != nil {
				return kr, err
			}
		}
	}
	if len(a.Self) > 0 && !a.AsksYou {
		if err := weighFirstPerson(ctx, r, order[:min(len(order), neighborSeeds)]); err != nil {
			return kr, err
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
	aboutAsker := len(a.Self) > 0 && !a.AsksYou
	if err := lendToNeighbors(ctx, r, order, cands, speakers, aboutAsker, cond, args, near, !remote); err != nil {
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
// ranked best matches of the full-text query, best first, ties by id. The
// index ranks alone first (store.Engine.TopText, which on SQLite reads a
// common word's facts only when they can enter the best ranked), then only
// the ranked are joined with facts (as the outer loop: CROSS JOIN):
// joining every match before sorting costs a row read per match. The few
// hundred joined rows are sorted here; a sorter in SQLite costs more.
func bm25Pool(ctx context.Context, r *Reader, text store.TextQuery, cond string, args []any, ranked int) ([]*candidate, error) {
	top, targs, err := r.db.Engine().TopText(ctx, r.db, store.FactText, text, ranked)
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	// The statement's text is one of a few (the engine's sources, the
	// scope's conditions), so the reader keeps it prepared.
	rows, err := preparedQuerier{r}.QueryContext(ctx, `SELECT f.id, r.score, COALESCE(f.session_id, ''), COALESCE(f.speaker, '')
		FROM `+top+` r CROSS JOIN facts f WHERE f.id = r.id AND `+cond, append(targs, args...)...)
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
	sortPool(out)
	return out[:min(len(out), keywordPool)], nil
}

// sortPool orders keyword matches by score, best first, ties by id.
func sortPool(pool []*candidate) {
	slices.SortFunc(pool, func(a, b *candidate) int {
		if a.own != b.own {
			return cmp.Compare(b.own, a.own)
		}
		return cmp.Compare(a.id, b.id)
	})
}

// matchesMoreThan reports whether the full-text query matches more than n
// facts (it counts no further than n+1).
func matchesMoreThan(ctx context.Context, db *store.DB, match string, n int) (bool, error) {
	var got int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM `+db.Engine().TextHits(store.FactText)+` k LIMIT ?) m`,
		match, n+1).Scan(&got); err != nil {
		return false, fmt.Errorf("keyword search: count matches: %w", err)
	}
	return got > n, nil
}

// splitFound divides the entity arm's list l by what the keyword arm kr
// found by its words. Those facts keep the entity arm's label (found,
// ranked as in l) but get no vote: the keyword arm's BM25 already counted
// the entity's name among the query's words, and a second vote for the
// same words lifts every fact that names it over facts holding the
// question's other words. The rest (facts about the entity that do not
// spell its name as the query does, or found only as context) vote, ranked
// among themselves.
func (l armList) splitFound(kr armList) (votes, found armList) {
	byWords := make(map[int64]bool, len(kr.ids))
	for _, id := range kr.ids {
		if !kr.context[id] {
			byWords[id] = true
		}
	}
	votes, found = l, l
	votes.ids, found.ids = nil, make([]int64, len(l.ids))
	for i, id := range l.ids {
		if byWords[id] {
			found.ids[i] = id
		} else {
			votes.ids = append(votes.ids, id)
		}
	}
	return votes, found
}

// EntityWeight scales the entity arm's vote in the fusion. The arm lists
// every fact that names an entity of the query, in an order that knows
// nothing of the query's other words; at a quarter of a keyword vote its
// first hit (0.25/61) sits below the keyword arm's sixtieth (1/120), so it
// adds facts only where the words found few. It votes only for facts the
// words did not find (splitFound). Each fact's vote is scaled again by its entity weight
// (see entityWeights): an entity named by half the store votes nothing.
// Chosen when the arm listed every fact of every matched entity: on LoCoMo
// (first three conversations, recall@10) weight 1 gave 0.62, 0.25 gave
// 0.76, no entity arm 0.76.
const EntityWeight = 0.25

// entityArm matches query words (and runs of two or three words) against
// entity names and aliases, and returns the facts linked to those entities:
// most matched entities first, then facts about them, then importance.
// Each fact's vote weighs EntityWeight times its entity weight.
func entityArm(ctx context.Context, db *store.DB, sc scope, terms []string, depth int) (armList, error) {
	grams := termGrams(terms)
	if len(grams) == 0 {
		return armList{arm: ArmEntity}, nil
	}
	if db.Engine().Remote() {
		return entityArmOneStatement(ctx, db, sc, grams, depth)
	}
	return entityArmApart(ctx, db, sc, grams, depth)
}

// entityArmApart is entityArm in a statement per step: the entities the
// grams name, their weights (entityWeights), their facts (entityFacts).
func entityArmApart(ctx context.Context, db *store.DB, sc scope, grams []string, depth int) (armList, error) {
	in, args := store.InList(grams)
	rows, err := db.QueryContext(ctx, `SELECT id, name FROM entities WHERE fold IN (`+in+`)
		UNION SELECT e.id, e.name FROM entity_aliases a JOIN entities e ON e.id = a.entity_id WHERE a.fold IN (`+in+`)`,
		append(args, args...)...)
	if err != nil {
		return armList{arm: ArmEntity}, fmt.Errorf("entity match: %w", err)
	}
	names := map[int64]string{}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			rows.Close()
			return armList{arm: ArmEntity}, fmt.Errorf("entity match: %w", err)
		}
		names[id] = name
	}
	rows.Close()
	if len(names) == 0 {
		return armList{arm: ArmEntity}, nil
	}
	weights, err := entityWeights(ctx, db, names)
	if err != nil {
		return armList{arm: ArmEntity}, err
	}
	if len(names) == 0 {
		return armList{arm: ArmEntity}, nil
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
	// One statement counts every entity's facts, each count stopping past
	// half the store (or at EntityCountCap).
	ids := make([]int64, 0, len(names))
	for id := range names {
		ids = append(ids, id)
	}
	parts := make([]string, len(ids))
	args := make([]any, 0, 3*len(ids))
	for i, id := range ids {
		parts[i] = `SELECT CAST(? AS BIGINT), (SELECT count(*) FROM (SELECT 1 FROM fact_entities WHERE entity_id = ? LIMIT ?) s)`
		args = append(args, id, id, min(int64(half)+1, EntityCountCap))
	}
	rows, err := db.QueryContext(ctx, strings.Join(parts, " UNION ALL "), args...)
	if err != nil {
		return nil, fmt.Errorf("entity weights: %w", err)
	}
	defer rows.Close()
	counts := map[int64]float64{}
	for rows.Next() {
		var id int64
		var d float64
		if err := rows.Scan(&id, &d); err != nil {
			return nil, fmt.Errorf("entity weights: %w", err)
		}
		counts[id] = d
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("entity weights: %w", err)
	}
	for _, id := range ids {
		d := counts[id]
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

// entityArmOneStatement is entityArm in one statement, where each
// statement is a round trip to the server: the entities the grams name,
// their weights (entityWeights' formula, counted the same way), their
// facts (entityFacts' rows) and, as rows of their own, their names.
// Reading them apart took four round trips while the keyword arm's
// statement ran on the other connection.
func entityArmOneStatement(ctx context.Context, db *store.DB, sc scope, grams []string, depth int) (armList, error) {
	in, args := store.InList(grams)
	cond, cargs := sc.candidate()
	eng := db.Engine()
	args = append(append(append(append(args, args...), EntityCountCap, weightUnit), cargs...), EntityFactCap, depth)
	// w: each named entity with its weight, log(n/2d) / log(n/2) with n the
	// highest fact id and d its facts counted up to past n/2 (or the cap).
	rows, err := db.QueryContext(ctx, `WITH m AS MATERIALIZED (SELECT id, name FROM entities WHERE fold IN (`+in+`)
			UNION SELECT e.id, e.name FROM entity_aliases a JOIN entities e ON e.id = a.entity_id WHERE a.fold IN (`+in+`)),
		h AS MATERIALIZED (SELECT CAST(COALESCE(max(id), 0) AS DOUBLE PRECISION) / 2 AS half FROM facts),
		c AS MATERIALIZED (SELECT m.id, m.name, h.half, (SELECT count(*) FROM (SELECT 1 FROM fact_entities
				WHERE entity_id = m.id LIMIT LEAST(CAST(floor(h.half) AS BIGINT) + 1, ?)) s) AS d
			FROM m CROSS JOIN h),
		w AS MATERIALIZED (SELECT id, name, CAST(round(ln(half / d) / ln(half) * ?) AS BIGINT) AS w FROM c WHERE half > 1 AND d > 0 AND d < half),
		x AS (SELECT fe.fact_id, fe.entity_id, fe.is_subject, fe.importance, w.w FROM w CROSS JOIN LATERAL (
			SELECT fe.fact_id, fe.entity_id, fe.is_subject, f.importance
			FROM fact_entities fe JOIN facts f ON f.id = fe.fact_id
			WHERE fe.entity_id = w.id AND `+cond+` ORDER BY fe.is_subject DESC, fe.fact_id DESC LIMIT ?) fe WHERE w.w > 0)
		SELECT * FROM (SELECT 0 AS k, fact_id, CAST(sum(w) AS BIGINT) ws, max(is_subject) s, max(importance) imp, `+eng.JoinText("entity_id", ",")+` AS list
			FROM x GROUP BY fact_id ORDER BY ws DESC, s DESC, imp DESC, fact_id DESC LIMIT ?) t
		UNION ALL SELECT 1, id, w, 0, 0, name FROM w WHERE w > 0`, args...)
	if err != nil {
		return armList{arm: ArmEntity}, fmt.Errorf("entity match: %w", err)
	}
	defer rows.Close()
	names := map[int64]string{}
	lists := map[int64]string{}
	out := armList{arm: ArmEntity, weight: map[int64]float64{}}
	for rows.Next() {
		var kind, id, ws, subj int64
		var imp float64
		var text string
		if err := rows.Scan(&kind, &id, &ws, &subj, &imp, &text); err != nil {
			return armList{arm: ArmEntity}, fmt.Errorf("entity match: %w", err)
		}
		if kind == 1 {
			names[id] = text
			continue
		}
		out.ids = append(out.ids, id)
		out.weight[id] = EntityWeight * min(float64(ws)/weightUnit, 1)
		lists[id] = text
	}
	if err := rows.Err(); err != nil {
		return armList{arm: ArmEntity}, fmt.Errorf("entity match: %w", err)
	}
	if len(out.ids) == 0 {
		return armList{arm: ArmEntity}, nil
	}
	detail := make(map[int64]string, len(lists))
	for id, list := range lists {
		detail[id] = entityDetail(list, names)
	}
	out.detail = func(id int64) string { return detail[id] }
	return out, nil
}

// entityDetail names the entities of list (their ids, comma-separated),
// each name once, sorted.
func entityDetail(list string, names map[int64]string) string {
	var ns []string
	for _, s := range strings.Split(list, ",") {
		if eid, err := strconv.ParseInt(s, 10, 64); err == nil && !contains(ns, names[eid]) {
			ns = append(ns, names[eid])
		}
	}
	sort.Strings(ns)
	return strings.Join(ns, ", ")
}

// weightUnit is the step entity weights are counted in when the entity
// arm sums them: a fact's weight is the sum of its entities', and as
// floating point the sum of the same weights depends on the order it is
// taken in, which the database does not keep, so facts naming the same
// entities came out a last bit apart and were ordered by that instead of
// newest first. Whole billionths sum exactly in any order.
const weightUnit = 1e9

// weightUnits is w in whole weightUnits, rounded as PostgreSQL rounds a
// double (half to even), where the one-statement arm computes it.
func weightUnits(w float64) int64 { return int64(math.RoundToEven(w * weightUnit)) }

// EntityCountCap bounds how many facts of one entity entityWeights counts.
const EntityCountCap = 20000

// EntityFactCap is how many facts of one entity the entity arm reads: the
// ones whose subject it is first, then the newest. An entity named by
// thousands of facts ("the project", a word taken for a name) would cost a
// row read for each, to order them by nothing the query said; its newest
// few hundred are the ones worth lending a vote.
const EntityFactCap = 256

// entityFacts lists the facts of the named entities, at most EntityFactCap
// of each, weighed by the entities they name.
func entityFacts(ctx context.Context, db *store.DB, sc scope, names map[int64]string, weights map[int64]float64, depth int) (armList, error) {
	var ents []int64
	for id := range names {
		ents = append(ents, id)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i] < ents[j] })
	cond, cargs := sc.candidate()
	var parts []string
	var args []any
	for _, e := range ents {
		parts = append(parts, `SELECT * FROM (SELECT fe.fact_id, fe.entity_id, fe.is_subject, f.importance, CAST(? AS BIGINT) AS w
			FROM fact_entities fe JOIN facts f ON f.id = fe.fact_id
			WHERE fe.entity_id = ? AND `+cond+` ORDER BY fe.is_subject DESC, fe.fact_id DESC LIMIT ?) x`)
		args = append(append(append(args, weightUnits(weights[e]), e), cargs...), EntityFactCap)
	}
	rows, err := db.QueryContext(ctx, `SELECT fact_id, CAST(sum(w) AS BIGINT) ws, max(is_subject) s, max(importance) imp,
		`+db.Engine().JoinText("entity_id", ",")+`
		FROM (`+strings.Join(parts, " UNION ALL ")+`) u
		GROUP BY fact_id ORDER BY ws DESC, s DESC, imp DESC, fact_id DESC LIMIT ?`,
		append(args, depth)...)
	if err != nil {
		return armList{}, fmt.Errorf("entity facts: %w", err)
	}
	defer rows.Close()
	detail := map[int64]string{}
	out := armList{arm: ArmEntity, weight: map[int64]float64{}}
	for rows.Next() {
		var id, ws int64
		var subj int
		var imp float64
		var list string
		if err := rows.Scan(&id, &ws, &subj, &imp, &list); err != nil {
			return armList{}, fmt.Errorf("entity facts: %w", err)
		}
		out.ids = append(out.ids, id)
		out.weight[id] = EntityWeight * min(float64(ws)/weightUnit, 1)
		detail[id] = entityDetail(list, names)
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

// domainArm ranks the facts other arms found (ranked, in their fused
// order) that lie in domain: a bias toward the domain that can never add a
// fact no other arm found.
func domainArm(ctx context.Context, db *store.DB, ranked []int64, domain string) (armList, error) {
	list := armList{arm: ArmDomain, detail: func(int64) string { return domain }}
	if len(ranked) == 0 {
		return list, nil
	}
	in, args := store.InList(ranked)
	rows, err := db.QueryContext(ctx, `SELECT id FROM facts WHERE id IN (`+in+`) AND lower(domain) = lower(trim(?))`,
		append(args, domain)...)
	if err != nil {
		return list, fmt.Errorf("domain list: %w", err)
	}
	inDomain, err := scanIDs(rows, "domain list")
	if err != nil {
		return list, err
	}
	for _, id := range ranked {
		if contains(inDomain, id) {
			list.ids = append(list.ids, id)
		}
	}
	return list, nil
}

package graph

import (
	"cmp"
	"context"
	"fmt"
	"maps"
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
			speakers, err := knownSpeakers(gctx, r, a.Names)
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
	speakers, err := knownSpeakers(ctx, r, a.Names)
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
	names := slices.Sorted(maps.Keys(speakers))
	// The engine writes the pool's statement (store.Engine.KeywordPool);
	// where it reads the seeds' neighbours too, they are not read again.
	var near []neighbor
	var readNear, texts bool
	var ranked int
	pool := func(size int) (order []*candidate, err error) {
		st, err := db.Engine().KeywordPool(ctx, db, store.PoolQuery{Text: text, Cond: cond, Args: args, Ranked: size,
			Size: keywordPool, Speakers: names, Boost: 1 + SpeakerBoost, Seeds: neighborSeeds})
		if err != nil {
			return nil, fmt.Errorf("keyword search: %w", err)
		}
		order, near, ranked, err = readPool(ctx, r, st)
		readNear, texts = !st.Neighbours, st.Texts
		return order, err
	}
	order, err := pool(keywordPool)
	if err != nil {
		return kr, err
	}
	if len(order) < keywordPool {
		// cond may have turned some of the best matches away: the pool
		// is the best keywordPool that pass among twice as many matches.
		// The statement may have said how many it ranked: fewer than it
		// was asked for are all there are.
		more := ranked >= keywordPool
		if ranked < 0 {
			if more, err = matchesMoreThan(ctx, db, match, keywordPool); err != nil {
				return kr, err
			}
		}
		if more {
			if order, err = pool(2 * keywordPool); err != nil {
				return kr, err
			}
		}
	}
	if err := weighTexts(ctx, r, order[:min(len(order), neighborSeeds)], texts, askedStems(a), len(a.Self) > 0 && !a.AsksYou); err != nil {
		return kr, err
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
	asking, err := lendToNeighbors(ctx, r, order, cands, speakers, aboutAsker, cond, args, near, readNear)
	if err != nil {
		return kr, err
	}
	if err := lendAcross(ctx, r, order, cands, speakers, aboutAsker, cond, args, asking); err != nil {
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
// Each fact's vote weighs EntityWeight times its entity weight
// (store.EntityIDF: an entity named by half the store weighs nothing).
// The engine reads the rows (store.Engine.EntityFacts).
func entityArm(ctx context.Context, db *store.DB, sc scope, terms []string, depth int) (armList, error) {
	grams := termGrams(terms)
	if len(grams) == 0 {
		return armList{arm: ArmEntity}, nil
	}
	rows, err := db.Engine().EntityFacts(ctx, db, entityQuery(sc, grams, depth))
	if err != nil {
		return armList{arm: ArmEntity}, err
	}
	return entityArmList(rows), nil
}

// entityQuery asks for the entity arm's rows of the fold keys grams, at
// most depth facts that sc allows.
func entityQuery(sc scope, grams []string, depth int) store.EntityQuery {
	cond, args := sc.candidate()
	return store.EntityQuery{Folds: grams, Cond: cond, Args: args,
		CountCap: EntityCountCap, FactCap: EntityFactCap, Depth: depth, Unit: weightUnit}
}

// entityArmList is the entity arm's list of rows: each fact's vote is
// EntityWeight times its entities' summed weight (at most 1), its detail
// the entities' names.
func entityArmList(rows store.EntityRows) armList {
	if len(rows.Facts) == 0 {
		return armList{arm: ArmEntity}
	}
	out := armList{arm: ArmEntity, weight: make(map[int64]float64, len(rows.Facts))}
	detail := make(map[int64]string, len(rows.Facts))
	for _, f := range rows.Facts {
		out.ids = append(out.ids, f.ID)
		out.weight[f.ID] = EntityWeight * min(float64(f.Weight)/weightUnit, 1)
		detail[f.ID] = entityDetail(f.Entities, rows.Names)
	}
	out.detail = func(id int64) string { return detail[id] }
	return out
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
// arm sums them (store.EntityQuery.Unit): a fact's weight is the sum of
// its entities', and as floating point the sum of the same weights depends
// on the order it is taken in, which the database does not keep, so facts
// naming the same entities would come out a last bit apart and be ordered
// by that instead of newest first. Whole billionths sum exactly in any
// order.
const weightUnit = 1e9

// EntityCountCap bounds how many facts of one entity are counted for its
// weight: an entity past it is weighed as if it had that many facts.
const EntityCountCap = 20000

// EntityFactCap is how many facts of one entity the entity arm reads: the
// ones whose subject it is first, then the newest. An entity named by
// thousands of facts ("the project", a word taken for a name) would cost a
// row read for each, to order them by nothing the query said; its newest
// few hundred are the ones worth lending a vote.
const EntityFactCap = 256

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

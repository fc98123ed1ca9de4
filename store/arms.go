package store

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The row sources of graph's search arms. Each arm is one algorithm in
// graph over rows described here; each engine reads the rows in its best
// statements (Engine.EntityFacts, Engine.KeywordPool), as it reads
// TopText. The forms here are written in the SQL every engine speaks, one
// statement per step: what SQLite runs, and what PostgreSQL's own forms
// must equal (graph's tests compare them).

// EntityQuery asks for the entity arm's rows: the facts linked to the
// entities whose fold key (entities.fold or an alias's) is one of Folds,
// each weighed by those entities.
type EntityQuery struct {
	// Folds are the fold keys the query's words make.
	Folds []string
	// Cond is a condition on the facts row f (with its ? arguments Args)
	// that every fact listed passes.
	Cond string
	Args []any
	// CountCap bounds how many facts of one entity are counted for its
	// weight; FactCap how many facts of one entity are read, those whose
	// subject it is first, then the newest; Depth how many facts are
	// listed.
	CountCap int64
	FactCap  int
	Depth    int
	// Unit is the step weights are counted in: whole Units sum exactly in
	// any order, which floating point does not.
	Unit float64
}

// EntityRows is the entity arm's rows.
type EntityRows struct {
	// Facts are the facts listed: the highest summed weight first, then
	// those with a subject among the entities, then importance, then the
	// newest (highest id).
	Facts []EntityFact
	// Names names every entity of positive weight by its id.
	Names map[int64]string
}

// EntityFact is one fact of the entity arm's rows.
type EntityFact struct {
	ID int64
	// Weight is the sum of the weights of its entities among those
	// matched, in whole EntityQuery.Units.
	Weight int64
	// Entities lists those entities' ids, comma-separated.
	Entities string
}

// EntityIDF is an entity's weight, which falls with how many facts name
// it, like a word's inverse document frequency: 1 for an entity one fact
// names, 0 for one named by half the store or more. half is half the
// highest fact id (standing for the store's size), d the entity's facts,
// counted to past half or to EntityQuery.CountCap: log(half/d) /
// log(half), at least 0.
func EntityIDF(half, d float64) float64 {
	if half > 1 && d > 0 && d < half {
		return max(math.Log(half/d)/math.Log(half), 0)
	}
	return 0
}

// WeightUnits is w in whole units of unit, rounded half to even (as
// PostgreSQL rounds a double).
func WeightUnits(w, unit float64) int64 { return int64(math.RoundToEven(w * unit)) }

// EntityFactRow is one of an entity's facts as the entity arm reads them:
// at most EntityQuery.FactCap facts of the entity that pass its Cond,
// those whose subject it is first, then the newest.
type EntityFactRow struct {
	Fact int64
	// Subject is fact_entities.is_subject: 1 when the entity is the
	// fact's subject.
	Subject    int64
	Importance float64
}

// EntityLists keeps entities' lists of facts (EntityFactRow) from one
// search to the next while the store does not change, each under the key
// of the query that read it (EntityListKey). An engine keeps them where
// it can tell that nothing committed since they were read.
type EntityLists interface {
	// Held returns the lists held under key, of those of ents it holds.
	Held(key string, ents []int64) map[int64][]EntityFactRow
	// Keep holds lists under key.
	Keep(key string, lists map[int64][]EntityFactRow)
}

// EntityListKey names what an entity's list of facts depends on besides
// the entity and the store: the condition with its arguments, and the
// cap.
func EntityListKey(a EntityQuery) string {
	return fmt.Sprintf("%d\x00%s\x00%#v", a.FactCap, a.Cond, a.Args)
}

// EntityFactsInSteps reads the entity arm's rows in a statement per step:
// the entities the folds name, their weights, their facts. Its statements
// are portable; an engine whose every statement is cheap (SQLite) reads
// the rows this way.
func EntityFactsInSteps(ctx context.Context, q Conn, a EntityQuery) (EntityRows, error) {
	return EntityFactsKept(ctx, q, a, nil)
}

// EntityFactsKept is EntityFactsInSteps taking each entity's list of
// facts from kept where it holds one, reading the others' and handing
// them to kept, and ranking the facts here; with kept nil the store ranks
// them. The rows are the same either way, but for the order of each
// fact's Entities, which here is by entity id.
func EntityFactsKept(ctx context.Context, q Conn, a EntityQuery, kept EntityLists) (EntityRows, error) {
	out := EntityRows{Names: map[int64]string{}}
	if len(a.Folds) == 0 {
		return out, nil
	}
	in, args := InList(a.Folds)
	rows, err := q.QueryContext(ctx, `SELECT id, name FROM entities WHERE fold IN (`+in+`)
		UNION SELECT e.id, e.name FROM entity_aliases a JOIN entities e ON e.id = a.entity_id WHERE a.fold IN (`+in+`)`,
		append(args, args...)...)
	if err != nil {
		return out, fmt.Errorf("entity match: %w", err)
	}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			rows.Close()
			return out, fmt.Errorf("entity match: %w", err)
		}
		out.Names[id] = name
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("entity match: %w", err)
	}
	if len(out.Names) == 0 {
		return out, nil
	}
	weights, err := entityWeights(ctx, q, out.Names, a.CountCap)
	if err != nil {
		return out, err
	}
	if len(out.Names) == 0 {
		return out, nil
	}
	if kept != nil {
		out.Facts, err = entityFactsKept(ctx, q, a, weights, kept)
		return out, err
	}
	out.Facts, err = entityFacts(ctx, q, a, weights)
	return out, err
}

// entityWeights weighs each entity of names (EntityWeight), with the count
// of its facts stopping past half the store or at countCap, and drops the
// entities of weight 0 from names.
func entityWeights(ctx context.Context, q Querier, names map[int64]string, countCap int64) (map[int64]float64, error) {
	var n float64
	// The highest fact id stands for the store's size: one seek, where
	// counting the active facts reads them all.
	if err := q.QueryRowContext(ctx, `SELECT COALESCE(max(id), 0) FROM facts`).Scan(&n); err != nil {
		return nil, fmt.Errorf("entity weights: %w", err)
	}
	half := n / 2
	// One statement counts every entity's facts.
	ids := make([]int64, 0, len(names))
	for id := range names {
		ids = append(ids, id)
	}
	parts := make([]string, len(ids))
	args := make([]any, 0, 3*len(ids))
	for i, id := range ids {
		parts[i] = `SELECT CAST(? AS BIGINT), (SELECT count(*) FROM (SELECT 1 FROM fact_entities WHERE entity_id = ? LIMIT ?) s)`
		args = append(args, id, id, min(int64(half)+1, countCap))
	}
	rows, err := q.QueryContext(ctx, strings.Join(parts, " UNION ALL "), args...)
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
	out := map[int64]float64{}
	for _, id := range ids {
		w := EntityIDF(half, counts[id])
		if w <= 0 {
			delete(names, id)
			continue
		}
		out[id] = w
	}
	return out, nil
}

// entityFacts lists the facts of the weighed entities, at most a.FactCap
// of each.
func entityFacts(ctx context.Context, q Conn, a EntityQuery, weights map[int64]float64) ([]EntityFact, error) {
	ents := make([]int64, 0, len(weights))
	for id := range weights {
		ents = append(ents, id)
	}
	// The statement's parts follow the entities' ids, so its text is the
	// same for the same entities.
	slices.Sort(ents)
	parts := make([]string, 0, len(ents))
	var args []any
	for _, e := range ents {
		parts = append(parts, `SELECT * FROM (SELECT fe.fact_id, fe.entity_id, fe.is_subject, f.importance, CAST(? AS BIGINT) AS w
			FROM fact_entities fe JOIN facts f ON f.id = fe.fact_id
			WHERE fe.entity_id = ? AND `+a.Cond+` ORDER BY fe.is_subject DESC, fe.fact_id DESC LIMIT ?) x`)
		args = append(append(append(args, WeightUnits(weights[e], a.Unit), e), a.Args...), a.FactCap)
	}
	rows, err := q.QueryContext(ctx, `SELECT fact_id, CAST(sum(w) AS BIGINT) ws, max(is_subject) s, max(importance) imp,
		`+q.Engine().JoinText("entity_id", ",")+`
		FROM (`+strings.Join(parts, " UNION ALL ")+`) u
		GROUP BY fact_id ORDER BY ws DESC, s DESC, imp DESC, fact_id DESC LIMIT ?`,
		append(args, a.Depth)...)
	if err != nil {
		return nil, fmt.Errorf("entity facts: %w", err)
	}
	defer rows.Close()
	var out []EntityFact
	for rows.Next() {
		var f EntityFact
		var subj int
		var imp float64
		if err := rows.Scan(&f.ID, &f.Weight, &subj, &imp, &f.Entities); err != nil {
			return nil, fmt.Errorf("entity facts: %w", err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("entity facts: %w", err)
	}
	return out, nil
}

// entityFactsKept is entityFacts over the entities' lists of facts, each
// taken from kept or read (entityLists), ranked as entityFacts's
// statement ranks them: the highest summed weight first, then a subject
// among the entities, then importance, then the newest.
func entityFactsKept(ctx context.Context, q Conn, a EntityQuery, weights map[int64]float64, kept EntityLists) ([]EntityFact, error) {
	ents := make([]int64, 0, len(weights))
	for id := range weights {
		ents = append(ents, id)
	}
	slices.Sort(ents)
	key := EntityListKey(a)
	lists := kept.Held(key, ents)
	if lists == nil {
		lists = map[int64][]EntityFactRow{}
	}
	var missing []int64
	for _, e := range ents {
		if _, ok := lists[e]; !ok {
			missing = append(missing, e)
		}
	}
	if len(missing) > 0 {
		read, err := entityLists(ctx, q, a, missing)
		if err != nil {
			return nil, err
		}
		kept.Keep(key, read)
		for e, l := range read {
			lists[e] = l
		}
	}
	type summed struct {
		EntityFact
		subject    int64
		importance float64
	}
	at := map[int64]int{}
	var facts []summed
	for _, e := range ents {
		w := WeightUnits(weights[e], a.Unit)
		for _, r := range lists[e] {
			i, seen := at[r.Fact]
			if !seen {
				i = len(facts)
				at[r.Fact] = i
				facts = append(facts, summed{EntityFact: EntityFact{ID: r.Fact}, subject: r.Subject, importance: r.Importance})
			}
			f := &facts[i]
			f.Weight += w
			f.subject = max(f.subject, r.Subject)
			f.importance = max(f.importance, r.Importance)
			if f.Entities != "" {
				f.Entities += ","
			}
			f.Entities += strconv.FormatInt(e, 10)
		}
	}
	slices.SortFunc(facts, func(x, y summed) int {
		return cmp.Or(cmp.Compare(y.Weight, x.Weight), cmp.Compare(y.subject, x.subject),
			cmp.Compare(y.importance, x.importance), cmp.Compare(y.ID, x.ID))
	})
	if a.Depth >= 0 && len(facts) > a.Depth {
		facts = facts[:a.Depth]
	}
	var out []EntityFact
	for _, f := range facts {
		out = append(out, f.EntityFact)
	}
	return out, nil
}

// entityLists reads each entity's list of facts (EntityFactRow) in one
// statement: the facts entityFacts's statement ranks, before it sums them.
// Every entity of ents has a list, empty when none of its facts passes
// a.Cond.
func entityLists(ctx context.Context, q Conn, a EntityQuery, ents []int64) (map[int64][]EntityFactRow, error) {
	out := make(map[int64][]EntityFactRow, len(ents))
	parts := make([]string, 0, len(ents))
	var args []any
	for _, e := range ents {
		out[e] = []EntityFactRow{}
		parts = append(parts, `SELECT * FROM (SELECT fe.entity_id, fe.fact_id, fe.is_subject, f.importance
			FROM fact_entities fe JOIN facts f ON f.id = fe.fact_id
			WHERE fe.entity_id = ? AND `+a.Cond+` ORDER BY fe.is_subject DESC, fe.fact_id DESC LIMIT ?) x`)
		args = append(append(append(args, e), a.Args...), a.FactCap)
	}
	rows, err := q.QueryContext(ctx, strings.Join(parts, " UNION ALL "), args...)
	if err != nil {
		return nil, fmt.Errorf("entity facts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var e int64
		var r EntityFactRow
		if err := rows.Scan(&e, &r.Fact, &r.Subject, &r.Importance); err != nil {
			return nil, fmt.Errorf("entity facts: %w", err)
		}
		out[e] = append(out[e], r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("entity facts: %w", err)
	}
	return out, nil
}

// PoolQuery asks for the keyword arm's pool: the best Size facts that
// pass Cond among the Ranked best matches of Text over FactText (TopText),
// and, where the engine reads them in the same statement, the facts said
// next to the pool's best (its seeds, see PoolStatement).
type PoolQuery struct {
	Text TextQuery
	// Cond is a condition on the facts row f (with its ? arguments Args)
	// that every fact of the pool, and every neighbour read from facts,
	// passes.
	Cond string
	Args []any
	// Ranked is how many best matches are ranked; Size how many of those
	// that pass Cond the pool keeps.
	Ranked, Size int
	// The seeds are the first Seeds facts of the pool with a session, the
	// pool ordered by score with the scores of the facts said by one of
	// Speakers (sorted) multiplied by Boost, ties by score, then id.
	Speakers []string
	Boost    float64
	Seeds    int
}

// The kinds of a pool statement's rows (its fifth column, kind).
const (
	// PoolFact is a fact of the pool: id, score, session, speaker.
	PoolFact = 0
	// PoolNeighbour is a fact said next to a seed that asks a question
	// (its text holds a "?"), read from facts (and passing Cond): id the
	// seed, n the neighbour, session the seed's, speaker the neighbour's,
	// asks 1.
	PoolNeighbour = 1
	// PoolAdjacent is a seed that asks nothing, with the facts said just
	// before and after it (n and m, NULL when none) as they are: such a
	// seed lends only to a fact that is a candidate already, whose row the
	// pool or a PoolNeighbour holds. id is the seed, session its.
	PoolAdjacent = 2
	// PoolTurnedAway is a ranked match that Cond turns away: id only. A
	// statement that reads these (PoolStatement.Ranked) tells the caller
	// how many matches it ranked.
	PoolTurnedAway = 3
)

// PoolStatement is the keyword pool's statement, with its arguments. Its
// rows have the columns id, score, session, speaker, kind, n, m, asks (each
// kind fills those it names, the others hold 0 or ”); a statement of the
// pool alone may end after speaker, all its rows being PoolFact. Its pool
// rows come in any order and may be more than Size: the caller orders
// them by score, ties by id, and keeps Size. When Neighbours is false the
// statement reads the pool alone and the caller reads the seeds'
// neighbours apart. When Texts is true each pool row has a ninth and a
// tenth column, the fact's content and its speaker's role (empty for
// none). When Ranked is true the statement returns a PoolTurnedAway row
// for each ranked match outside the pool, so its rows of kinds PoolFact
// and PoolTurnedAway are all the matches it ranked: fewer than
// PoolQuery.Ranked say there are no more.
type PoolStatement struct {
	Query      string
	Args       []any
	Neighbours bool
	Texts      bool
	Ranked     bool
}

// KeywordPoolAlone is the keyword pool's statement reading the pool
// alone: the ranked matches (TopText) joined with facts (as the outer
// loop: CROSS JOIN), since joining every match before ranking costs a row
// read per match. It reads each fact's content and role with its row
// (Texts) and returns the matches Cond turns away as such (Ranked): where
// statements cost little, as in SQLite's process, the caller reads
// neither apart. Its text is one of a few (the engine's sources, the
// condition), so a caller may keep it prepared.
func KeywordPoolAlone(ctx context.Context, q Conn, p PoolQuery) (PoolStatement, error) {
	top, args, err := q.Engine().TopText(ctx, q, FactText, p.Text, p.Ranked)
	if err != nil {
		return PoolStatement{}, err
	}
	return PoolStatement{
		Query: `SELECT r.id, r.score, COALESCE(f.session_id, ''), COALESCE(f.speaker, ''),
			CASE WHEN ` + p.Cond + ` THEN ` + fmt.Sprint(PoolFact) + ` ELSE ` + fmt.Sprint(PoolTurnedAway) + ` END,
			0, 0, 0, COALESCE(f.content, ''), COALESCE(f.speaker_role, '')
		FROM ` + top + ` r CROSS JOIN facts f WHERE f.id = r.id`,
		// Cond's arguments come first: it is in the select list.
		Args:  append(append([]any{}, p.Args...), args...),
		Texts: true, Ranked: true,
	}, nil
}

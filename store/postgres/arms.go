package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/recollect/recollect/store"
)

// EntityFacts reads the entity arm's rows in one statement, where each
// statement is a round trip to the server: the entities the folds name,
// their weights (store.EntityIDF, counted as store.EntityFactsInSteps
// counts them, in whole units rounded half to even), their facts and, as
// rows of their own, their names. Read a step at a time they take four
// round trips.
func (e Engine) EntityFacts(ctx context.Context, c store.Conn, a store.EntityQuery) (store.EntityRows, error) {
	out := store.EntityRows{Names: map[int64]string{}}
	if len(a.Folds) == 0 {
		return out, nil
	}
	in, args := store.InList(a.Folds)
	args = append(append(append(append(args, args...), a.CountCap, a.Unit), a.Args...), a.FactCap, a.Depth)
	// w: each named entity with its weight, log(n/2d) / log(n/2) with n the
	// highest fact id and d its facts counted up to past n/2 (or the cap).
	rows, err := c.QueryContext(ctx, `WITH m AS MATERIALIZED (SELECT id, name FROM entities WHERE fold IN (`+in+`)
			UNION SELECT e.id, e.name FROM entity_aliases a JOIN entities e ON e.id = a.entity_id WHERE a.fold IN (`+in+`)),
		h AS MATERIALIZED (SELECT CAST(COALESCE(max(id), 0) AS DOUBLE PRECISION) / 2 AS half FROM facts),
		c AS MATERIALIZED (SELECT m.id, m.name, h.half, (SELECT count(*) FROM (SELECT 1 FROM fact_entities
				WHERE entity_id = m.id LIMIT LEAST(CAST(floor(h.half) AS BIGINT) + 1, ?)) s) AS d
			FROM m CROSS JOIN h),
		w AS MATERIALIZED (SELECT id, name, CAST(round(ln(half / d) / ln(half) * ?) AS BIGINT) AS w FROM c WHERE half > 1 AND d > 0 AND d < half),
		x AS (SELECT fe.fact_id, fe.entity_id, fe.is_subject, fe.importance, w.w FROM w CROSS JOIN LATERAL (
			SELECT fe.fact_id, fe.entity_id, fe.is_subject, f.importance
			FROM fact_entities fe JOIN facts f ON f.id = fe.fact_id
			WHERE fe.entity_id = w.id AND `+a.Cond+` ORDER BY fe.is_subject DESC, fe.fact_id DESC LIMIT ?) fe WHERE w.w > 0)
		SELECT * FROM (SELECT 0 AS k, fact_id, CAST(sum(w) AS BIGINT) ws, max(is_subject) s, max(importance) imp, `+e.JoinText("entity_id", ",")+` AS list
			FROM x GROUP BY fact_id ORDER BY ws DESC, s DESC, imp DESC, fact_id DESC LIMIT ?) t
		UNION ALL SELECT 1, id, w, 0, 0, name FROM w WHERE w > 0`, args...)
	if err != nil {
		return out, fmt.Errorf("entity match: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, id, ws, subj int64
		var imp float64
		var text string
		if err := rows.Scan(&kind, &id, &ws, &subj, &imp, &text); err != nil {
			return out, fmt.Errorf("entity match: %w", err)
		}
		if kind == 1 {
			out.Names[id] = text
			continue
		}
		out.Facts = append(out.Facts, store.EntityFact{ID: id, Weight: ws, Entities: text})
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("entity match: %w", err)
	}
	return out, nil
}

// KeywordPool reads the pool and its seeds' neighbours in one statement,
// where each statement is a round trip: the pool, with the columns of its
// facts carried through the ranking (topFactsCarrying), and for each seed
// chosen in the statement its neighbours (store.PoolNeighbour,
// store.PoolAdjacent).
//
// Each seed's provenance is read through its own index lookup (the fenced
// LATERAL): in a plan made for the query's values (PostgreSQL's first five
// runs of a statement on each connection), the planner, expecting as many
// seeds as the pool has facts, would hash the whole provenance table
// instead, a scan of every row. Its adjacent facts come with the row
// (Adjacent), so a seed costs that lookup. Only a seed that asks a question
// brings in a neighbour outside the pool, so only its neighbours are read
// from facts; any other seed's row comes back with its two adjacent facts
// as they are, for the caller to look up among the candidates: in the
// caller's process that is a map read, where in the statement it is an
// array search on the server, and a join on the pool is planned as a scan
// of the pool for every neighbour.
func (e Engine) KeywordPool(_ context.Context, _ store.Conn, p store.PoolQuery) (store.PoolStatement, error) {
	asks := `CASE WHEN ` + e.Contains("f.content", "'?'") + ` THEN 1 ELSE 0 END AS asks`
	top, targs := e.topFactsCarrying(p.Text, p.Ranked, carriedColumns(p.Cond))
	poolSQL := `SELECT f.id, f.score, COALESCE(f.session_id, '') AS session, COALESCE(f.speaker, '') AS speaker, ` + asks + `
		FROM ` + top + ` f WHERE ` + p.Cond + ` ORDER BY f.score DESC, f.id LIMIT ?`
	// A speaker matters only as one of the query's (the boost, and whose
	// neighbours count): with none in the query, no speaker is read back.
	boosted, speaker, nbSpeaker := `p.score`, `''`, `''`
	args := append(append(append([]any{}, targs...), p.Args...), p.Size)
	if len(p.Speakers) > 0 {
		speaker, nbSpeaker = `speaker`, `COALESCE(f.speaker, '')`
		in, nargs := store.InList(p.Speakers)
		boosted = `CASE WHEN p.speaker IN (` + in + `) THEN p.score * ? ELSE p.score END`
		args = append(append(args, nargs...), p.Boost)
	}
	args = append(append(args, p.Seeds), p.Args...)
	return store.PoolStatement{Query: `WITH pool AS MATERIALIZED (` + poolSQL + `),
	seeds AS MATERIALIZED (SELECT s.id, s.asks FROM (SELECT p.id, p.session, p.asks,
			row_number() OVER (ORDER BY ` + boosted + ` DESC, p.score DESC, p.id) AS rn FROM pool p) s
		WHERE s.rn <= ? AND s.session <> ''),
	adj AS MATERIALIZED (SELECT p.fact_id AS seed, p.session_id AS session, s.asks, p.prev, p.next
		FROM seeds s CROSS JOIN LATERAL (SELECT p.fact_id, p.session_id, p.event_seq, p.session_fact_id, ` + e.Adjacent("p") + `
			FROM fact_provenance p WHERE p.fact_id = s.id OFFSET 0) p
		WHERE p.session_id IS NOT NULL AND (p.event_seq IS NOT NULL OR p.session_fact_id IS NOT NULL)),
	near AS MATERIALIZED (SELECT a.seed, a.session, a.asks, v.id FROM adj a CROSS JOIN LATERAL (VALUES (a.prev), (a.next)) v(id)
		WHERE a.asks = 1 AND v.id <> a.seed),
	asked AS MATERIALIZED (SELECT n.seed, f.id, n.session, ` + nbSpeaker + ` AS speaker, n.asks
		FROM near n JOIN facts f ON f.id = n.id WHERE ` + p.Cond + `)
	SELECT id, score, session, ` + speaker + ` AS speaker, 0 AS k, 0 AS n, 0 AS m, asks FROM pool
	UNION ALL SELECT seed, 0, session, speaker, 1, id, 0, asks FROM asked
	UNION ALL SELECT seed, 0, session, '', 2, prev, next, asks FROM adj WHERE asks = 0`,
		Args: args, Neighbours: true}, nil
}

// carriedColumns is what the keyword pool reads of a fact: its session,
// speaker and content, and every column of alias f that cond reads (each
// "f." not inside a longer name, then the column's name). Carried through
// the ranking, they spare a lookup of each ranked fact by id.
func carriedColumns(cond string) []string {
	cols := []string{"session_id", "speaker", "content"}
	word := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for i := 0; i+2 < len(cond); i++ {
		if cond[i] != 'f' || cond[i+1] != '.' || i > 0 && word(cond[i-1]) {
			continue
		}
		j := i + 2
		for j < len(cond) && (cond[j] == '_' || cond[j] >= 'a' && cond[j] <= 'z') {
			j++
		}
		if c := cond[i+2 : j]; c != "" && c != "id" && !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
		i = j - 1
	}
	return cols
}

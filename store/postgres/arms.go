package postgres

import (
	"context"
	"fmt"

	"github.com/recollect/recollect/store"
)

// EntityFacts reads the entity arm's rows in one statement, where each
// statement is a round trip to the server: the entities the folds name,
// their weights (store.EntityWeight, counted as store.EntityFactsInSteps
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

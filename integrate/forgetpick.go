package integrate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/recollect/recollect/store"
)

// EventRange picks raw events by when they happened (the transcript's own
// time, else when the event was recorded) and by session; a zero field
// picks every event.
type EventRange struct {
	Before  time.Time
	Session string
}

// Where is r as a condition on session_events, its columns qualified with
// prefix ("" or an alias and a dot), and the condition's arguments; "" when
// r picks every event.
func (r EventRange) Where(prefix string) (string, []any) {
	var where []string
	var args []any
	if !r.Before.IsZero() {
		where = append(where, `COALESCE(`+prefix+`occurred_at, `+prefix+`recorded_at) < ?`)
		args = append(args, r.Before.UTC().Format("2006-01-02T15:04:05.000000000Z"))
	}
	if r.Session != "" {
		where = append(where, prefix+`session_id = ?`)
		args = append(args, r.Session)
	}
	return strings.Join(where, " AND "), args
}

// FactsWithin returns, in id order, the stored facts that rest on r's
// events alone: every event a fact's provenance cites is one r picks. A
// fact citing no event goes by when it was said, and only when r picks by
// time alone. r must pick by something.
func FactsWithin(ctx context.Context, q store.Querier, r EventRange) ([]int64, error) {
	cond, args := r.Where("e.")
	if cond == "" {
		return nil, fmt.Errorf("select facts: the event range picks by nothing")
	}
	facts, err := store.Column[int64](ctx, q, `SELECT f.id FROM facts f WHERE EXISTS (SELECT 1 FROM fact_provenance v JOIN session_events e ON e.seq = v.event_seq WHERE v.fact_id = f.id AND `+cond+`)
		AND NOT EXISTS (SELECT 1 FROM fact_provenance v JOIN session_events e ON e.seq = v.event_seq WHERE v.fact_id = f.id AND NOT (`+cond+`))
		ORDER BY f.id`, append(args, args...)...)
	if err != nil {
		return nil, fmt.Errorf("select facts: %w", err)
	}
	if r.Before.IsZero() || r.Session != "" {
		return facts, nil
	}
	uncited, err := store.Column[int64](ctx, q, `SELECT f.id FROM facts f WHERE NOT EXISTS (SELECT 1 FROM fact_provenance v WHERE v.fact_id = f.id AND v.event_seq IS NOT NULL)
		AND COALESCE(f.said_at, f.recorded_at) < ? ORDER BY f.id`, args[0])
	if err != nil {
		return nil, fmt.Errorf("select facts: %w", err)
	}
	facts = append(facts, uncited...)
	slices.Sort(facts)
	return facts, nil
}

// FactsNaming returns, in id order, the stored facts that name the entity
// called name, matched by its fold or its name in any case.
func FactsNaming(ctx context.Context, q store.Querier, name string) ([]int64, error) {
	facts, err := store.Column[int64](ctx, q, `SELECT DISTINCT fe.fact_id FROM fact_entities fe JOIN entities e ON e.id = fe.entity_id
		WHERE e.fold = ? OR lower(e.name) = lower(?) ORDER BY fe.fact_id`, Fold(name), name)
	if err != nil {
		return nil, fmt.Errorf("select facts naming %q: %w", name, err)
	}
	return facts, nil
}

// FactContent is stored fact id's wording.
func FactContent(ctx context.Context, q store.Querier, id int64) (string, error) {
	var content string
	if err := q.QueryRowContext(ctx, `SELECT content FROM facts WHERE id = ?`, id).Scan(&content); err != nil {
		return "", fmt.Errorf("read fact %d: %w", id, err)
	}
	return content, nil
}

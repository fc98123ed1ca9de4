package integrate

import (
	"context"
	"fmt"
	"time"

	"github.com/recollect/recollect/store"
)

// BeliefClause selects, for facts aliased f, what the store believed at a
// time (bind it twice): recorded on or before it and not retracted by then.
// retracted_at is written only in temporal.mode "bitemporal"; a superseded
// fact without one (superseded in "valid" mode) counts as retracted when
// its successor was recorded — the same rule graph's --as-of applies.
const BeliefClause = `f.status != 'rejected' AND f.recorded_at <= ? AND COALESCE(f.retracted_at,
	(SELECT n.recorded_at FROM facts n WHERE n.id = f.superseded_by), '9999') > ?`

// ValidClause selects, for facts aliased f, those true in the world at a
// time (bind it twice), by valid_from and valid_until; an open end is
// unbounded.
const ValidClause = `f.status != 'rejected' AND (f.valid_from IS NULL OR f.valid_from <= ?) AND (f.valid_until IS NULL OR f.valid_until > ?)`

// BelievedAt lists the ids of facts the store believed at t, oldest first.
func BelievedAt(ctx context.Context, db *store.DB, t time.Time) ([]int64, error) {
	return idsWhere(ctx, db, BeliefClause, store.FormatTime(t))
}

// ValidAt lists the ids of facts valid at t, oldest first.
func ValidAt(ctx context.Context, db *store.DB, t time.Time) ([]int64, error) {
	return idsWhere(ctx, db, ValidClause, store.FormatTime(t))
}

func idsWhere(ctx context.Context, db *store.DB, clause, at string) ([]int64, error) {
	rows, err := db.QueryContext(ctx, `SELECT f.id FROM facts f WHERE `+clause+` ORDER BY f.id`, at, at)
	if err != nil {
		return nil, fmt.Errorf("facts as of %s: %w", at, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("facts as of %s: %w", at, err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

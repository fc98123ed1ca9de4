package postgres

import (
	"context"
	"fmt"

	"github.com/recollect/recollect/store"
)

// Analyze gathers the planner's statistics for every table of the store's
// schema, as autovacuum does some time after a bulk load: for the
// benchmarks' freshly built stores, so they are searched as a store at
// rest is.
func Analyze(ctx context.Context, db *store.DB) error {
	rows, err := db.QueryContext(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`)
	if err != nil {
		return fmt.Errorf("analyze schema: %w", err)
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return fmt.Errorf("analyze schema: %w", err)
		}
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("analyze schema: %w", err)
	}
	for _, t := range tables {
		if _, err := db.DB.ExecContext(ctx, `ANALYZE `+quoteIdent(t)); err != nil {
			return fmt.Errorf("analyze %s: %w", t, err)
		}
	}
	return nil
}

package postgres

import (
	"context"
	"fmt"

	"github.com/recollect/recollect/store"
)

// Settle vacuums every table of the store's schema and gathers the
// planner's statistics, as autovacuum does within a minute or so of a bulk
// load (PostgreSQL 13 and later vacuum after inserts, not only after
// deletes): for the benchmarks' freshly built stores, so they are searched
// as a store at rest is. A vacuum marks the pages whose rows every
// transaction sees; until then an index-only read, such as counting the
// facts, visits every row's page, and each first read of a row checks its
// transaction's outcome.
func (Engine) Settle(ctx context.Context, db *store.DB) error { return vacuumEach(ctx, db, "ANALYZE") }

// vacuumEach runs VACUUM (options) on every table of the store's schema,
// in name order.
func vacuumEach(ctx context.Context, db *store.DB, options string) error {
	rows, err := db.QueryContext(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`)
	if err != nil {
		return fmt.Errorf("vacuum: list tables: %w", err)
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return fmt.Errorf("vacuum: list tables: %w", err)
		}
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("vacuum: list tables: %w", err)
	}
	for _, t := range tables {
		if _, err := db.DB.ExecContext(ctx, `VACUUM (`+options+`) `+quoteIdent(t)); err != nil {
			return fmt.Errorf("vacuum %s: %w", t, err)
		}
	}
	return nil
}

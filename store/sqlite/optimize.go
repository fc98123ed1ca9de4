package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/recollect/recollect/store"
)

// analysisLimit bounds the rows ANALYZE reads per index while Optimize
// runs (PRAGMA analysis_limit), as SQLite recommends beside PRAGMA
// optimize: approximate statistics, at a cost that does not grow with the
// store.
const analysisLimit = 1000

// statsMinRows is the fewest rows a table's statistics must count for
// Optimize to keep them. Statistics taken while a table is small go stale
// as it grows faster than anything re-analyses it — an import grows the
// event index from nothing to hundreds of thousands of rows in minutes —
// and a plan costed for a handful of rows scans the whole table: FTS5
// deletes its merged segments with `DELETE … WHERE id>=? AND id<=?`, which
// on a stale two-row estimate became a scan of the index's data per
// delete, and a copy into a store analysed when small ran five times
// slower. Without statistics SQLite assumes a large table, the case every
// statement here was written for.
const statsMinRows = 10_000

// Optimize runs PRAGMA optimize over every table, analysing those whose
// size changed much since they were last analysed (or never were), within
// analysis_limit; then drops the statistics no statement should be
// planned by, those of tables under statsMinRows rows (the full-text
// indexes' own tables among them while they are small). A connection
// plans with the statistics it loaded when it opened, so the
// pool's idle connections are closed afterwards: the next statements
// open connections that load these.
func (sqliteEngine) Optimize(ctx context.Context, db *store.DB) error {
	if err := db.CheckWrite(); err != nil {
		return err
	}
	conn, err := db.DB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("optimize %s: %w", db.Path, err)
	}
	err = optimize(ctx, conn)
	// The limit is the connection's; the connection is closed with the
	// idle ones rather than kept with it.
	conn.Close()
	db.DB.SetMaxIdleConns(0)
	db.DB.SetMaxIdleConns(idleConns)
	if err != nil {
		return fmt.Errorf("optimize %s: %w", db.Path, err)
	}
	return nil
}

// idleConns is how many idle connections the store keeps: a search with a
// query vector reads on three at once (the similarity, keyword and entity
// arms) and then two (pending facts beside the hits), and with
// database/sql's default of two every search closed one and opened it
// again, paying SQLite's open, the schema and a cold page cache each time.
const idleConns = 4

// busyTimeoutMS is how long a statement waits on another connection's
// lock before failing with "database is locked".
const busyTimeoutMS = 10000

func optimize(ctx context.Context, conn *sql.Conn) error {
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA analysis_limit = %d`, analysisLimit)); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA optimize = 0x10002`); err != nil {
		return err
	}
	var stats int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_stat1'`).Scan(&stats); err != nil {
		return err
	}
	if stats == 0 {
		return nil // nothing was analysed
	}
	_, err := conn.ExecContext(ctx, `DELETE FROM sqlite_stat1
		WHERE CAST(substr(stat, 1, instr(stat || ' ', ' ') - 1) AS INTEGER) < ?`, statsMinRows)
	if err != nil {
		return fmt.Errorf("drop statistics of small tables: %w", err)
	}
	return nil
}

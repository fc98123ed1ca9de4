// Package sqlite is recollect's SQLite engine (mattn/go-sqlite3 with FTS5),
// the default store: memory.db in the data directory. It owns the SQLite
// schema and its migrations, opening a store for writing (Open, OpenFile:
// WAL, busy timeout, foreign keys, secure delete, the page cache) or for
// reading only (OpenReader), the check that the binary was built with the
// sqlite_fts5 tag (BuiltWithFTS5; ErrNoFTS5 at open), the watch on the
// store's files under a running process (ErrFilesChanged), and the
// engine's forms of what store.Engine asks: FTS5 search and its best-k
// ranking, PRAGMA maintenance, VACUUM. It is the one package that imports
// the SQLite driver; everything it opens is a *store.DB.
package sqlite

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mattn/go-sqlite3"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store"
)

// sqliteEngine is the SQLite engine (mattn/go-sqlite3 with FTS5): the one
// place that speaks SQLite's own forms — FTS5 MATCH and bm25(), json_each,
// instr, rowid, PRAGMA, VACUUM and the migrations in schema.go.
//
// counts, when not nil, keeps the full-text counts topFactText reads for
// the store the engine was opened with (see countCache), and lists the
// entity arm's lists of facts (see listCache).
type sqliteEngine struct {
	counts *countCache
	lists  *listCache
	// inSQL has FTS5's statements rank the rare words where counts would
	// rank its postings (topTextMin.inSQL), for a benchmark (RankedInSQL).
	inSQL bool
}

var _ store.Engine = sqliteEngine{}

func (sqliteEngine) Name() string { return "sqlite" }

// Footprint is the database file with its WAL and shared-memory files.
func (sqliteEngine) Footprint(ctx context.Context, db *store.DB) (int64, string, error) {
	return FileBytes(db.Path), "file", nil
}

// Settle checkpoints the WAL into the file.
func (e sqliteEngine) Settle(ctx context.Context, db *store.DB) error {
	_, err := e.Checkpoint(ctx, db)
	return err
}

// VectorStorage is the one way an SQLite store keeps vectors.
func (sqliteEngine) VectorStorage(ctx context.Context, db *store.DB) (string, error) {
	return "bytes with sign codes, searched in recollect", nil
}

// DeleteResidue is "": secure_delete overwrites and a truncating
// checkpoint empties the WAL.
func (sqliteEngine) DeleteResidue() string { return "" }

// TextIndexRows is true: each FTS5 index is tables of its own.
func (sqliteEngine) TextIndexRows() bool { return true }

// FileBytes is the on-disk size of an SQLite store: the database file plus
// its WAL and shared-memory files. A missing file counts as zero.
func FileBytes(path string) int64 {
	var n int64
	for _, side := range []string{"", "-wal", "-shm"} {
		if fi, err := os.Stat(path + side); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// Remote is false: SQLite runs in this process.
func (sqliteEngine) Remote() bool { return false }

// CheapConnections is true: a connection opens the file in this process.
func (sqliteEngine) CheapConnections() bool { return true }

// IndexHint is INDEXED BY index, or NOT INDEXED for the table itself.
func (sqliteEngine) IndexHint(index string) string {
	if index == "" {
		return "NOT INDEXED"
	}
	return "INDEXED BY " + index
}

// Args returns args as they are: SQLite stores every byte of a text.
func (sqliteEngine) Args(args []any) []any { return args }

// Rebind leaves the statement as written: ? and ?N are SQLite's own.
func (sqliteEngine) Rebind(query string) string { return query }

// registerFuncs gives a connection the SQL functions recollect's schema
// calls: recollect_index_text (text.IndexText), which the full-text triggers
// apply to the text they index. A connection without it (the sqlite3
// shell) reads a store as usual; only its writes to indexed rows are
// refused ("no such function"), where they would otherwise leave the
// index disagreeing with the rows.
func registerFuncs(c *sqlite3.SQLiteConn) error {
	if err := c.RegisterFunc(store.IndexTextFunc, text.IndexText, true); err != nil {
		return fmt.Errorf("register %s: %w", store.IndexTextFunc, err)
	}
	return nil
}

// ftsTables names each index's FTS5 table (external content, porter
// unicode61) and the column its rowid mirrors.
var ftsTables = [...]string{store.FactText: "facts_fts", store.PendingText: "session_facts_fts", store.EventText: "events_fts", store.PlainFactText: "bench_plain"}

// TextMatches ranks by -bm25(), the same score as FTS5's rank column but
// without the second, sorting statement ORDER BY rank makes FTS5 prepare
// and run (about a quarter of a query at 100k facts). The subquery has no
// LIMIT or aggregate of its own, so SQLite flattens it into the caller's
// query: joining it costs what naming the FTS5 table there did.
func (sqliteEngine) TextMatches(ix store.TextIndex) string {
	t := ftsTables[ix]
	return `(SELECT rowid AS id, -bm25(` + t + `) AS score FROM ` + t + ` WHERE ` + t + ` MATCH ?)`
}

// TextHits is the FTS5 match alone.
func (sqliteEngine) TextHits(ix store.TextIndex) string {
	t := ftsTables[ix]
	return `(SELECT rowid AS id FROM ` + t + ` WHERE ` + t + ` MATCH ?)`
}

func (sqliteEngine) TextQuery(q store.TextQuery) string { return renderFTS5(q) }

func (sqliteEngine) JSONInts(expr, alias string) string { return `json_each(` + expr + `) ` + alias }

func (sqliteEngine) Contains(hay, needle string) string {
	return `instr(` + hay + `, ` + needle + `) > 0`
}

func (sqliteEngine) JoinText(expr, sep string) string {
	return `group_concat(` + expr + `, '` + strings.ReplaceAll(sep, "'", "''") + `')`
}

func (sqliteEngine) InsertOrder(alias string) string { return alias + `.rowid` }

// Adjacent seeks the neighbours in the session's indexes:
// fact_provenance(session_id, event_seq, fact_id) for a row with an event,
// the partial index fact_provenance_session_capture for one without, two
// seeks a row, each index in the order the tie-break asks (no sorter).
func (sqliteEngine) Adjacent(p string) string { return store.AdjacentSeeks(p) }

// BeforeCopy has nothing to do: SQLite keeps no column by trigger that a
// copy could defer.
func (sqliteEngine) BeforeCopy(context.Context, *store.Tx, string) error { return nil }

// AfterCopy has nothing to do: AUTOINCREMENT's counter follows the
// largest id inserted.
func (sqliteEngine) AfterCopy(context.Context, *store.Tx, string) error { return nil }

// SkipLocked is empty: BEGIN IMMEDIATE already serialises writers.
func (sqliteEngine) SkipLocked() string { return "" }

// Serialize does nothing: BEGIN IMMEDIATE already serialises writers.
func (sqliteEngine) Serialize(context.Context, *store.Tx, string) error { return nil }

// InsertID reads the rowid SQLite gave the row (every key column InsertID
// is asked for is an INTEGER PRIMARY KEY, the rowid's alias). RETURNING
// would give the same at a cost: SQLite collects a RETURNING statement's
// rows before handing back the first, and database/sql reads them through
// a query, which on a facts insert with its index trigger costs more than
// the insert.
func (sqliteEngine) InsertID(ctx context.Context, q store.Querier, key, query string, args ...any) (int64, bool, error) {
	res, err := q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return 0, false, err
	}
	id, err := res.LastInsertId()
	return id, err == nil, err
}

// Version reads PRAGMA user_version, which the migrations advance.
func (sqliteEngine) Version(ctx context.Context, q store.Querier) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

func (e sqliteEngine) Migrate(ctx context.Context, db *store.DB, target int) error {
	if target > len(migrations) {
		return fmt.Errorf("migrate to %d: only %d versions known", target, len(migrations))
	}
	cur, err := e.Version(ctx, db)
	if err != nil {
		return err
	}
	if cur > len(migrations) {
		return fmt.Errorf("%w: %s is at schema version %d, this binary knows up to %d; upgrade recollect (go install -tags sqlite_fts5 ./cmd/recollect)",
			store.ErrNewerSchema, db.Path, cur, len(migrations))
	}
	for v := cur; v < target; v++ {
		err := db.Tx(ctx, func(tx *store.Tx) error {
			// Another process opening the same new store may have taken
			// this step while this one waited for the write lock.
			if now, err := e.Version(ctx, tx); err != nil || now > v {
				return err
			}
			if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
				return fmt.Errorf("migrate %s from version %d: %w", db.Path, v, err)
			}
			if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
				return fmt.Errorf("migrate %s: set version %d: %w", db.Path, v+1, err)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// UsedBytes is the file's pages (as seen through the WAL) minus the free
// list: deleted rows return pages to the free list, so this falls after a
// prune even before a vacuum shrinks the file, and new writes reuse them.
func (sqliteEngine) UsedBytes(ctx context.Context, db *store.DB) (int64, error) {
	var pages, free, size int64
	if err := db.QueryRowContext(ctx, `SELECT (SELECT page_count FROM pragma_page_count()), (SELECT freelist_count FROM pragma_freelist_count()), (SELECT page_size FROM pragma_page_size())`).Scan(&pages, &free, &size); err != nil {
		return 0, fmt.Errorf("measure %s: %w", db.Path, err)
	}
	return (pages - free) * size, nil
}

// Checkpoint copies the WAL into the database file and truncates the WAL;
// a reader holding an old snapshot keeps the WAL from being emptied.
func (sqliteEngine) Checkpoint(ctx context.Context, db *store.DB) (bool, error) {
	var busy, logFrames, done int
	if err := db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &done); err != nil {
		return false, fmt.Errorf("checkpoint %s: %w", db.Path, err)
	}
	return busy == 0, nil
}

// Compact merges the events index's deletion markers (FTS5 keeps them
// until segments merge) so that VACUUM can return their pages, rebuilds
// the file, and folds the WAL back into it.
func (e sqliteEngine) Compact(ctx context.Context, db *store.DB) error {
	if _, err := db.ExecContext(ctx, `INSERT INTO events_fts(events_fts) VALUES ('optimize')`); err != nil {
		return fmt.Errorf("optimize event index: %w", err)
	}
	if _, err := db.ExecContext(ctx, `VACUUM`); err != nil {
		return fmt.Errorf("vacuum %s: %w", db.Path, err)
	}
	if _, err := e.Checkpoint(ctx, db); err != nil {
		return fmt.Errorf("after vacuum: %w", err)
	}
	return nil
}

// SecureDelete turns on secure_delete for the connection and FTS5's
// secure-delete for each index, so deleted terms leave the index at once
// instead of at the next segment merge.
func (sqliteEngine) SecureDelete(ctx context.Context, tx *store.Tx) error {
	stmts := []string{`PRAGMA secure_delete = ON`}
	for _, t := range ftsTables[:store.PlainFactText] {
		stmts = append(stmts, `INSERT INTO `+t+`(`+t+`, rank) VALUES ('secure-delete', 1)`)
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("secure delete: %s: %w", q, err)
		}
	}
	return nil
}

// RawTextTop is FTS5's own best k: MATCH ordered by rank.
func (sqliteEngine) RawTextTop(ctx context.Context, db *store.DB, ix store.TextIndex, q store.TextQuery, k int) ([]int64, error) {
	t := ftsTables[ix]
	rows, err := db.QueryContext(ctx, `SELECT rowid FROM `+t+` WHERE `+t+` MATCH ? ORDER BY rank LIMIT ?`, renderFTS5(q), k)
	if err != nil {
		return nil, fmt.Errorf("full-text query %s: %w", strings.TrimSuffix(t, "_fts"), err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("full-text query: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// IndexPlainFacts builds an FTS5 table (unicode61, no porter) whose rowids
// are the active facts' ids.
func (sqliteEngine) IndexPlainFacts(ctx context.Context, db *store.DB) error {
	_, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE `+ftsTables[store.PlainFactText]+` USING fts5(content, tokenize='unicode61');
		INSERT INTO `+ftsTables[store.PlainFactText]+`(rowid, content) SELECT id, `+store.IndexTextFunc+`(content) FROM facts WHERE status = 'active'`)
	if err != nil {
		return fmt.Errorf("build plain full-text index: %w", err)
	}
	return nil
}

// TopText ranks a query of several plain words rarest word first and stops
// before the common words once they cannot change the best k (see
// topFactText); the source is then the best k as JSON. Any other query is
// FTS5's whole ranking, best k.
func (e sqliteEngine) TopText(ctx context.Context, q store.Querier, ix store.TextIndex, text store.TextQuery, k int) (string, []any, error) {
	return e.topText(ctx, q, ix, text, k, topTextMin{facts: topTextMinFacts, rows: topTextMinRows, inSQL: e.inSQL})
}

// topText is TopText trying the rare words apart from the sizes least on.
func (e sqliteEngine) topText(ctx context.Context, q store.Querier, ix store.TextIndex, text store.TextQuery, k int, least topTextMin) (string, []any, error) {
	if ix == store.FactText && k > 0 {
		top, ok, counts, err := topFactText(ctx, q, e.counts, text, k, least)
		if err != nil {
			return "", nil, err
		}
		if ok {
			return `(SELECT CAST(value->>0 AS INTEGER) AS id, value->>1 AS score FROM json_each(?))`, []any{top}, nil
		}
		if counts != "" && !least.recount {
			// The words' counts are read: the whole ranking need not
			// read every word's matches again to score them, and where
			// the store's cache keeps the words' postings, it ranks them.
			top, ok, err := e.counts.view(q).wholeBest(ctx, q, text, k, least)
			if err != nil {
				return "", nil, err
			}
			if ok {
				return `(SELECT CAST(value->>0 AS INTEGER) AS id, value->>1 AS score FROM json_each(?))`, []any{top}, nil
			}
			rank, args := bm25Rank(counts, k, least)
			return `(SELECT id, score FROM (SELECT rowid AS id, ` + rank + ` AS score FROM facts_fts WHERE facts_fts MATCH ?) m
				WHERE score IS NOT NULL ORDER BY score DESC, id LIMIT ?)`, append(args, renderFTS5(text), k), nil
		}
	}
	return `(SELECT id, score FROM ` + e.TextMatches(ix) + ` m ORDER BY score DESC, id LIMIT ?)`, []any{renderFTS5(text), k}, nil
}

// renderFTS5 writes q in FTS5's query syntax: each word or phrase quoted
// (a quote inside doubled), joined by OR.
func renderFTS5(q store.TextQuery) string {
	parts := make([]string, 0, len(q))
	for _, t := range q {
		if t = strings.TrimSpace(t); t != "" {
			parts = append(parts, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
		}
	}
	return strings.Join(parts, " OR ")
}

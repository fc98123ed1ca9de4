package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/recollect/recollect/store"
)

// Engine is the PostgreSQL implementation of store.Engine for the store in
// one schema.
type Engine struct {
	// Schema is the store's schema, which every connection has as its
	// search_path.
	Schema string
}

var _ store.Engine = Engine{}

// Name is "postgres".
func (Engine) Name() string { return "postgres" }

// Footprint is the schema's tables on the server (SchemaBytes).
func (Engine) Footprint(ctx context.Context, db *store.DB) (int64, string, error) {
	n, err := SchemaBytes(ctx, db)
	return n, "schema", err
}

// DeleteResidue says where the server keeps deleted text.
func (Engine) DeleteResidue() string {
	return "kept by the server: PostgreSQL has no secure delete, so the old text stays in dead row versions until the server vacuums them (recollect prune --vacuum rewrites the schema) and in the server's write-ahead log until it recycles it"
}

// TextIndexRows is false: the text index is a column of the row.
func (Engine) TextIndexRows() bool { return false }

// Remote is true: every statement is a round trip to the server.
func (Engine) Remote() bool { return true }

// CheapConnections is false: each new connection starts a server process.
func (Engine) CheapConnections() bool { return false }

// IndexHint is empty: PostgreSQL plans by the statistics ANALYZE (or
// autovacuum) keeps, and has no hints.
func (Engine) IndexHint(string) string { return "" }

// Args replaces, in each string argument, every NUL byte and each run of
// invalid UTF-8 with U+FFFD (StorableText): PostgreSQL refused such text
// with "invalid byte sequence for encoding UTF8", so a transcript line
// carrying a binary tool output was never stored and its copy retried
// forever. The slice is copied only when a string changes.
func (Engine) Args(args []any) []any {
	var out []any
	for i, a := range args {
		s, ok := a.(string)
		if !ok {
			continue
		}
		if clean := StorableText(s); clean != s {
			if out == nil {
				out = slices.Clone(args)
			}
			out[i] = clean
		}
	}
	if out == nil {
		return args
	}
	return out
}

// StorableText is s as PostgreSQL's text can hold it: each NUL byte and
// each run of invalid UTF-8 replaced by U+FFFD, the character the copier
// already puts for invalid UTF-8 in a transcript; s itself when it has
// neither.
func StorableText(s string) string {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", "\uFFFD"), "\uFFFD")
}

// Rebind rewrites ? and ?N into $n (see the package function).
func (Engine) Rebind(query string) string { return Rebind(query) }

// TextMatches ranks by a BM25-shaped score over the tsvector column (see
// textMatches).
func (Engine) TextMatches(ix store.TextIndex) string { return textMatches(int(ix)) }

// TextHits is the rows whose tsvector matches any of the terms, found on
// the GIN index, unscored.
func (Engine) TextHits(ix store.TextIndex) string { return textHits(int(ix)) }

// TextQuery renders q as a JSON array of tsquery terms.
func (Engine) TextQuery(q store.TextQuery) string { return renderTerms(q) }

// JSONInts unnests a JSON array of integers stored as text, read as a
// bigint[] literal (its brackets made braces), not as jsonb: the planner
// guesses 100 rows for jsonb_array_elements_text whatever the array holds,
// and at 10k facts that guess made a search's 38 conversation seeds a
// sequential read of fact_provenance instead of 38 index lookups (the
// statement 2x slower); unnest's guess is the array's length, or 10.
func (Engine) JSONInts(expr, alias string) string {
	return `unnest(CAST(translate(CAST(` + expr + ` AS text), '[]', '{}') AS bigint[])) AS ` + alias + `(value)`
}

// Contains is strpos, byte-exact as SQLite's instr.
func (Engine) Contains(hay, needle string) string { return `strpos(` + hay + `, ` + needle + `) > 0` }

// InsertID appends RETURNING key to the insert.
func (Engine) InsertID(ctx context.Context, q store.Querier, key, query string, args ...any) (int64, bool, error) {
	var id int64
	err := q.QueryRowContext(ctx, query+` RETURNING `+key, args...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return id, true, nil
}

// JoinText is string_agg over the values as text.
func (Engine) JoinText(expr, sep string) string {
	return `string_agg(CAST(` + expr + ` AS text), '` + strings.ReplaceAll(sep, "'", "''") + `')`
}

// BeforeCopy tells fact_provenance's triggers to leave the rows' adjacent
// facts to AfterCopy (schema v23): relinked once a row, a copy of many
// sessions would pay a relink and hold a session lock for each.
func (Engine) BeforeCopy(ctx context.Context, tx *store.Tx, table string) error {
	if table != "fact_provenance" {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `SELECT set_config('recollect.relink_later', 'on', true)`); err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	return nil
}

// AfterCopy relinks fact_provenance's rows to their adjacent facts (see
// BeforeCopy) and moves the table's identity counter past the ids Copy
// inserted, so the next row takes a new id.
func (Engine) AfterCopy(ctx context.Context, tx *store.Tx, table string) error {
	if table == "fact_provenance" {
		// Every row's neighbours at once, then the triggers back on for
		// the rest of the transaction (BeforeCopy).
		for _, q := range []string{`SELECT fact_provenance_relink_all()`, `SELECT set_config('recollect.relink_later', 'off', true)`} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("copy %s: link each row to its neighbours: %w", table, err)
			}
		}
	}
	var col sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT a.attname FROM pg_attribute a WHERE a.attrelid = to_regclass(?) AND a.attidentity <> '' AND a.attnum > 0`, table).Scan(&col)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("copy %s: find its identity: %w", table, err)
	}
	q := `SELECT setval(pg_get_serial_sequence(?, ?), GREATEST((SELECT max(` + quoteIdent(col.String) + `) FROM ` + quoteIdent(table) + `), 1))`
	if _, err := tx.ExecContext(ctx, q, table, col.String); err != nil {
		return fmt.Errorf("copy %s: move its identity past the copied ids: %w", table, err)
	}
	return nil
}

// SkipLocked locks the claimed rows and passes over rows another
// writer (a second daemon on the same schema) holds.
func (Engine) SkipLocked() string { return ` FOR UPDATE SKIP LOCKED` }

// Serialize takes a transaction-scoped advisory lock on key in the
// store's schema: transactions serializing on the same key run one after
// another, whichever process or machine runs them.
func (Engine) Serialize(ctx context.Context, tx *store.Tx, key string) error {
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext(current_schema() || ' ' || ?))`, key); err != nil {
		return fmt.Errorf("lock %s: %w", key, err)
	}
	return nil
}

// InsertOrder is fact_provenance's identity column ord (schema v3).
func (Engine) InsertOrder(alias string) string { return alias + `.ord` }

// Adjacent reads the row's kept neighbours: its prev_fact and next_fact,
// relinked by fact_provenance's triggers whenever a statement writes the
// session's rows (schema v23), instead of two index seeks a row inside
// the reading statement.
func (Engine) Adjacent(p string) string { return p + `.prev_fact AS prev, ` + p + `.next_fact AS next` }

// Version reads the schema's version table.
func (Engine) Version(ctx context.Context, q store.Querier) (int, error) { return Version(ctx, q) }

// Migrate runs the schema's migrations under an advisory lock.
func (e Engine) Migrate(ctx context.Context, db *store.DB, target int) error {
	return Migrate(ctx, db.DB, e.Schema, target)
}

// UsedBytes is the schema's tables, indexes and TOAST on disk, each scaled
// by its share of live rows: PostgreSQL keeps a deleted row's space until
// VACUUM and a table's file until VACUUM FULL, so the raw size would not
// fall after a prune. The live and dead counts are the server's statistics,
// which follow writes within a moment of their commit.
func (Engine) UsedBytes(ctx context.Context, db *store.DB) (int64, error) {
	var n sql.NullFloat64
	err := db.QueryRowContext(ctx, `SELECT sum(pg_total_relation_size(s.relid)::float8 *
			CASE WHEN s.n_live_tup + s.n_dead_tup = 0 THEN 1 ELSE s.n_live_tup::float8 / (s.n_live_tup + s.n_dead_tup) END)
		FROM pg_stat_user_tables s WHERE s.schemaname = current_schema()`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("measure schema: %w", err)
	}
	return int64(n.Float64), nil
}

// Checkpoint asks the server for a checkpoint. Only a superuser or a
// member of pg_checkpoint may; for any other role the server recycles its
// own log in its own time, and complete is false.
func (Engine) Checkpoint(ctx context.Context, db *store.DB) (bool, error) {
	if _, err := db.DB.ExecContext(ctx, `CHECKPOINT`); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42501" {
			return false, nil
		}
		return false, fmt.Errorf("checkpoint: %w", err)
	}
	return true, nil
}

// Compact rewrites every table of the schema (VACUUM FULL), which returns
// the space of deleted rows, and the row versions that held their text, to
// the file system.
func (Engine) Compact(ctx context.Context, db *store.DB) error {
	if err := vacuumEach(ctx, db, "FULL, ANALYZE"); err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	return nil
}

// Optimize has nothing to do: autovacuum analyses each table as its rows
// change.
func (Engine) Optimize(context.Context, *store.DB) error { return nil }

// SecureDelete has nothing to turn on: PostgreSQL has no secure delete. A
// deleted row's text stays in its dead row version until VACUUM reclaims
// the space, and in the server's write-ahead log until it is recycled;
// Compact (VACUUM FULL) rewrites the tables without it.
func (Engine) SecureDelete(context.Context, *store.Tx) error { return nil }

// RawTextTop is PostgreSQL's plain full-text best k: the OR of the terms,
// ordered by ts_rank.
func (Engine) RawTextTop(ctx context.Context, db *store.DB, ix store.TextIndex, q store.TextQuery, k int) ([]int64, error) {
	rows, err := db.QueryContext(ctx, rawTextTop(int(ix)), renderTSQuery(q), k)
	if err != nil {
		return nil, fmt.Errorf("full-text query %s: %w", textTables[ix].table, err)
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

// IndexPlainFacts builds bench_plain: the active facts' words under the
// simple configuration (lowercased, not stemmed), GIN-indexed.
func (Engine) IndexPlainFacts(ctx context.Context, db *store.DB) error {
	for _, q := range []string{
		`CREATE TABLE bench_plain (id bigint PRIMARY KEY, content_tsv tsvector NOT NULL)`,
		`INSERT INTO bench_plain(id, content_tsv) SELECT id, to_tsvector('simple', recollect_index_text(content)) FROM facts WHERE status = 'active'`,
		`CREATE INDEX bench_plain_tsv ON bench_plain USING gin (content_tsv)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("build plain full-text index: %w", err)
		}
	}
	return nil
}

// SchemaBytes is what the store's schema takes on the server: its tables
// with their indexes and TOAST, deleted rows included until a VACUUM FULL
// (Compact) returns them.
func SchemaBytes(ctx context.Context, db *store.DB) (int64, error) {
	var n int64
	err := db.QueryRowContext(ctx, `SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
		JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = current_schema() AND c.relkind IN ('r', 'm')`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("measure schema: %w", err)
	}
	return n, nil
}

// VectorStorage says how the store keeps and searches vectors on this
// server, for stats: always as bytes with their sign codes, searched in
// this process; whether the server offers pgvector is said, not used.
func (Engine) VectorStorage(ctx context.Context, db *store.DB) (string, error) {
	var have bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`).Scan(&have); err != nil {
		return "", fmt.Errorf("look for pgvector: %w", err)
	}
	if have {
		return "bytes with sign codes, searched in recollect (the server offers pgvector; recollect does not use it yet)", nil
	}
	return "bytes with sign codes, searched in recollect (the server has no pgvector)", nil
}

// DropSchema removes the store's schema and everything in it: for the
// benchmarks' throwaway stores, never for a user's.
func DropSchema(ctx context.Context, db *store.DB) error {
	var schema string
	if err := db.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return fmt.Errorf("drop schema: %w", err)
	}
	if _, err := db.DB.ExecContext(ctx, `DROP SCHEMA `+quoteIdent(schema)+` CASCADE`); err != nil {
		return fmt.Errorf("drop schema %s: %w", schema, err)
	}
	return nil
}

// topFactsCarrying is TopText over the facts, its rows carrying the named
// columns of each fact as read where the fact is scored: a caller that
// needs a few columns of the best k need not look each of them up again by
// id (for the keyword pool, 200 index lookups).
func (e Engine) topFactsCarrying(text store.TextQuery, k int, columns []string) (string, []any) {
	var carry strings.Builder
	for _, c := range columns {
		carry.WriteString(", f." + quoteIdent(c))
	}
	return topFactText(len(text), carry.String()), []any{e.TextQuery(text), k}
}

// TopText is TextMatches ordered by score and cut to k, in the statement
// that joins it: no round trip of its own. Over the facts it scores each
// match once, with the terms' document frequencies read first
// (topFactText).
func (e Engine) TopText(_ context.Context, _ store.Querier, ix store.TextIndex, text store.TextQuery, k int) (string, []any, error) {
	if ix == store.FactText {
		return topFactText(len(text), ""), []any{e.TextQuery(text), k}, nil
	}
	return `(SELECT id, score FROM ` + e.TextMatches(ix) + ` m ORDER BY score DESC, id LIMIT ?)`, []any{e.TextQuery(text), k}, nil
}

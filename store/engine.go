package store

import (
	"context"
	"database/sql"
)

// Engine is what one storage engine supplies beyond the SQL every engine
// speaks. The stages (sources, extract, integrate, graph, pipeline) write
// their statements in the subset SQLite and PostgreSQL both accept, with ?
// placeholders, and run them through DB and Tx, which rebind them; what has
// no common form — full-text search and its query syntax, JSON arrays,
// substring tests, row order, the schema, maintenance — is a method here.
// store/sqlite and store/postgres implement it; an engine implements the
// same methods and nothing above store changes.
type Engine interface {
	// Name names the engine in stats and errors ("sqlite").
	Name() string
	// Remote reports that the store lives on a server (PostgreSQL): each
	// statement is a round trip and each new connection starts a server
	// process. Stats report it. What differs for that is asked of the
	// engine by what it is for: CheapConnections, KeywordPool,
	// EntityFacts.
	Remote() bool
	// CheapConnections reports that a new connection costs little more
	// than reading its schema (SQLite, in this process), so a reader may
	// open several for one search; false where each starts a process on
	// a server that loads the catalog for itself (PostgreSQL).
	CheapConnections() bool
	// IndexHint is the clause written after a statement's FROM table that
	// has the planner read the table by index (by the table itself, in key
	// order, when index is ""): SQLite's INDEXED BY and NOT INDEXED, for a
	// statement its planner, without statistics on a young store, plans
	// worse. It is "" on an engine that plans by statistics of its own.
	IndexHint(index string) string
	// Args is a statement's arguments as the engine can store them:
	// PostgreSQL's text holds neither a NUL byte nor invalid UTF-8, which
	// SQLite keeps and a transcript can carry, so its strings have each
	// replaced by U+FFFD; SQLite's are returned as they are. DB and Tx
	// apply it to every statement.
	Args(args []any) []any
	// Rebind rewrites a statement's placeholders (? and ?N) into the
	// engine's own. The stages never rebind; DB and Tx do.
	Rebind(query string) string

	// TextMatches is a row source, in parentheses, of the rows of ix whose
	// text matches its one ? argument (made by TextQuery), with columns id
	// (the row's key) and score (higher is better, BM25-like). Stages join
	// it: `SELECT … FROM ` + TextMatches(FactText) + ` k JOIN facts f ON
	// f.id = k.id … ORDER BY k.score DESC, f.id`.
	TextMatches(ix TextIndex) string
	// TextHits is TextMatches without the score: a row source, in
	// parentheses, of the ids (column id, each once) of the rows of ix
	// whose text matches its one ? argument. Counting or filtering by
	// matches reads it, so an engine whose score costs work per row does
	// not pay for a score nobody reads.
	TextHits(ix TextIndex) string
	// TopText is a row source, in parentheses, of the k rows of ix that
	// match text best (columns id and score, as TextMatches, ties by id),
	// with the arguments it binds. It is TextMatches ordered and cut to k,
	// but an engine may run statements of its own first to find them
	// without scoring every match (store/sqlite's TopText).
	TopText(ctx context.Context, q Querier, ix TextIndex, text TextQuery, k int) (source string, args []any, err error)
	// KeywordPool is the statement of the keyword arm's pool (PoolQuery)
	// in the engine's best form: the pool alone where each statement
	// costs little (KeywordPoolAlone), its seeds' neighbours read in the
	// same statement where each is a round trip.
	KeywordPool(ctx context.Context, c Conn, p PoolQuery) (PoolStatement, error)
	// EntityFacts reads the entity arm's rows (EntityQuery) in the
	// engine's best statements: a statement per step where each costs
	// little (EntityFactsInSteps), one where each is a round trip.
	EntityFacts(ctx context.Context, c Conn, a EntityQuery) (EntityRows, error)
	// TextQuery renders q as the argument of TextMatches; "" when q holds
	// nothing to search.
	TextQuery(q TextQuery) string
	// JSONInts is a table expression, aliased alias, whose rows' column
	// value holds the elements of the JSON array in expr (an integer array
	// such as session_facts.event_ids; CAST the value to compare it). It
	// may refer to tables earlier in the FROM list.
	JSONInts(expr, alias string) string
	// Contains is a condition true when the text expr hay holds the text
	// expr needle (exactly, case-sensitive).
	Contains(hay, needle string) string
	// JoinText is an aggregate: the group's values of expr, as text, joined
	// by sep (a string literal's text), in the order the group's rows come.
	JoinText(expr, sep string) string
	// InsertOrder is an expression ordering the rows of a table without an
	// id column (fact_provenance) in the order they were inserted; alias is
	// the table's alias.
	InsertOrder(alias string) string
	// Adjacent is a select list, "prev, next": the facts said just before
	// and after the fact_provenance row alias in its session — in the
	// order of its events, or for a row captured without an event in the
	// order of capture, among the rows of the same kind; of several facts
	// at one place (one event), the highest id before and the lowest
	// after. Both are NULL for a row of no place (no session, or neither
	// an event nor a captured fact). SQLite seeks them in the session's
	// indexes; PostgreSQL keeps them on the row (schema v23).
	Adjacent(alias string) string
	// SkipLocked ends a SELECT that picks rows to claim: on an engine
	// with row locks (FOR UPDATE SKIP LOCKED) it locks the rows it returns
	// and passes over rows another transaction holds, so two writers
	// claim disjoint rows without waiting; empty where a write
	// transaction already holds the whole store (SQLite).
	SkipLocked() string
	// Serialize makes the rest of tx exclusive among transactions that
	// serialize on the same key: each waits for the one before it to end.
	// SQLite's writers are serialized already (BEGIN IMMEDIATE), so it
	// does nothing there; PostgreSQL takes a transaction-scoped advisory
	// lock on the key.
	Serialize(ctx context.Context, tx *Tx, key string) error
	// BeforeCopy runs in the transaction that copies table's rows, before
	// the first: an engine that keeps derived columns by trigger can defer
	// them to AfterCopy, once for the table instead of once a row.
	BeforeCopy(ctx context.Context, tx *Tx, table string) error
	// AfterCopy runs in the transaction that copied table's rows with
	// their ids (Copy): an engine whose id counters do not follow explicit
	// ids moves them past the copied ones.
	AfterCopy(ctx context.Context, tx *Tx, table string) error

	// InsertID runs query, an INSERT written without RETURNING (a plain one,
	// or one whose ON CONFLICT does nothing), and returns the value the row
	// got in its key column; inserted is false when ON CONFLICT skipped it.
	InsertID(ctx context.Context, q Querier, key, query string, args ...any) (id int64, inserted bool, err error)

	// Version reads the schema version the store's migrations reached.
	Version(ctx context.Context, q Querier) (int, error)
	// Migrate moves the schema forward to version target, one transaction
	// per step, refusing a store newer than it knows (ErrNewerSchema).
	Migrate(ctx context.Context, db *DB, target int) error
	// UsedBytes is the space the stored rows take, which falls when rows
	// are deleted (retention's disk budget reads it).
	UsedBytes(ctx context.Context, db *DB) (int64, error)
	// Footprint is what the store takes on disk, and what that is of:
	// "file" (SQLite's database file with its WAL and shared-memory
	// files) or "schema" (the schema's tables on a PostgreSQL server).
	Footprint(ctx context.Context, db *DB) (bytes int64, of string, err error)
	// Settle brings a store just loaded in bulk to rest, as a user's
	// store is when it is searched: SQLite's WAL checkpointed into the
	// file, PostgreSQL's tables vacuumed and analysed (what autovacuum
	// does after a bulk load, done now). Benchmarks call it.
	Settle(ctx context.Context, db *DB) error
	// VectorStorage says, for stats, how the store keeps and searches
	// vectors.
	VectorStorage(ctx context.Context, db *DB) (string, error)
	// DeleteResidue says where deleted text can stay once SecureDelete
	// and Checkpoint have run; "" when nowhere (SQLite overwrites it and
	// empties the WAL).
	DeleteResidue() string
	// TextIndexRows reports whether the full-text indexes are tables of
	// their own whose rows a delete removes and forget counts (SQLite's
	// FTS5), rather than a column of the indexed row (PostgreSQL).
	TextIndexRows() bool
	// Checkpoint makes every committed write durable in the main store
	// and drops the engine's log of earlier page images; complete is false
	// when a reader still holds an old snapshot, so the log could not be
	// emptied.
	Checkpoint(ctx context.Context, db *DB) (complete bool, err error)
	// Compact returns the space of deleted rows to the file system.
	Compact(ctx context.Context, db *DB) error
	// Optimize brings the planner's statistics up to date where the engine
	// leaves that to the application, so no statement's plan rests on
	// statistics taken when the store was much smaller.
	Optimize(ctx context.Context, db *DB) error
	// SecureDelete makes the transaction's deletes overwrite what they
	// remove, in the tables and in the full-text indexes, instead of
	// leaving it in free space until reuse.
	SecureDelete(ctx context.Context, tx *Tx) error
	// RawTextTop runs the engine's own plain best-k full-text query over
	// ix: the baseline that search is benchmarked against.
	RawTextTop(ctx context.Context, db *DB, ix TextIndex, q TextQuery, k int) ([]int64, error)
	// IndexPlainFacts builds PlainFactText over the facts active now.
	IndexPlainFacts(ctx context.Context, db *DB) error
}

// TextIndex names a full-text index the store keeps over one table's text,
// kept in step with the table by the engine.
type TextIndex int

const (
	// FactText indexes facts.content; its id is facts.id.
	FactText TextIndex = iota
	// PendingText indexes session_facts.content; its id is session_facts.id.
	PendingText
	// EventText indexes session_events.content; its id is session_events.seq.
	EventText
	// PlainFactText indexes the active facts' words unstemmed; its id is
	// facts.id. It exists only after Engine.IndexPlainFacts: the plain BM25
	// baseline that bench locomo scores search against.
	PlainFactText
)

// TextQuery is a full-text query in no engine's syntax: each element is a
// word, or a phrase of words in order, lowercase; a row matches when its
// text holds any of them, stemmed as the index stems. Words are taken
// literally: no operator or wildcard is parsed from them.
type TextQuery []string

// IndexTextFunc names the SQL function, on both engines, that turns a
// row's content into the text its full-text index holds (text.IndexText
// in graph/text). The indexes' triggers (SQLite) and generated columns
// (PostgreSQL) call it.
const IndexTextFunc = "recollect_index_text"

// Querier is what read helpers need: a *DB, a *Tx, or their database/sql
// counterparts.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Conn is a *DB or a *Tx: somewhere to run portable statements, with the
// engine's own forms at hand for the rest.
type Conn interface {
	Querier
	Engine() Engine
}

var _, _ Conn = (*DB)(nil), (*Tx)(nil)

// Engine returns the engine behind this store, for the SQL forms that have
// no common spelling (see Engine).
func (db *DB) Engine() Engine { return db.eng }

// ExecContext runs a statement written with ? placeholders.
func (db *DB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return db.DB.ExecContext(ctx, db.eng.Rebind(query), db.eng.Args(args)...)
}

// QueryContext runs a query written with ? placeholders.
func (db *DB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return db.DB.QueryContext(ctx, db.eng.Rebind(query), db.eng.Args(args)...)
}

// QueryRowContext runs a query written with ? placeholders that returns at
// most one row.
func (db *DB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return db.DB.QueryRowContext(ctx, db.eng.Rebind(query), db.eng.Args(args)...)
}

// PrepareContext prepares a statement written with ? placeholders for
// repeated use on the store's pool. Its arguments go to the driver as
// they are: a statement that writes text a user or a transcript gave
// passes them through Engine().Args first.
func (db *DB) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return db.DB.PrepareContext(ctx, db.eng.Rebind(query))
}

// Checkpoint makes committed writes durable in the main store and empties
// the engine's log where it can (see Engine.Checkpoint).
func (db *DB) Checkpoint(ctx context.Context) (complete bool, err error) {
	return db.eng.Checkpoint(ctx, db)
}

// InsertID runs an INSERT written without RETURNING and returns the new
// row's key (see Engine.InsertID).
func (db *DB) InsertID(ctx context.Context, key, query string, args ...any) (id int64, inserted bool, err error) {
	return db.eng.InsertID(ctx, db, key, query, args...)
}

// Compact returns the space of deleted rows to the file system.
func (db *DB) Compact(ctx context.Context) error { return db.eng.Compact(ctx, db) }

// Optimize brings the planner's statistics up to date (see
// Engine.Optimize). Long-lived handles call it now and then, as SQLite
// recommends for PRAGMA optimize; it is cheap when nothing changed.
func (db *DB) Optimize(ctx context.Context) error { return db.eng.Optimize(ctx, db) }

// Tx is one write transaction. Its statements are written with ?
// placeholders, as DB's are, and rebound for the engine.
type Tx struct {
	tx  *sql.Tx
	eng Engine
}

// Engine returns the engine behind the transaction's store.
func (t *Tx) Engine() Engine { return t.eng }

// ExecContext runs a statement in the transaction.
func (t *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.tx.ExecContext(ctx, t.eng.Rebind(query), t.eng.Args(args)...)
}

// QueryContext runs a query in the transaction.
func (t *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return t.tx.QueryContext(ctx, t.eng.Rebind(query), t.eng.Args(args)...)
}

// QueryRowContext runs a query in the transaction that returns at most one
// row.
func (t *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return t.tx.QueryRowContext(ctx, t.eng.Rebind(query), t.eng.Args(args)...)
}

// PrepareContext prepares a statement for repeated use in the
// transaction; it is closed with the transaction. As with DB's, its
// arguments do not pass through Engine.Args.
func (t *Tx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return t.tx.PrepareContext(ctx, t.eng.Rebind(query))
}

// InsertID runs an INSERT written without RETURNING in the transaction and
// returns the new row's key (see Engine.InsertID).
func (t *Tx) InsertID(ctx context.Context, key, query string, args ...any) (id int64, inserted bool, err error) {
	return t.eng.InsertID(ctx, t, key, query, args...)
}

// SecureDelete makes this transaction's deletes overwrite what they remove
// (see Engine.SecureDelete).
func (t *Tx) SecureDelete(ctx context.Context) error { return t.eng.SecureDelete(ctx, t) }

// Raw is the database/sql transaction underneath, for an engine's own
// statements.
func (t *Tx) Raw() *sql.Tx { return t.tx }

// AdjacentSeeks is Engine.Adjacent as subqueries on the session's
// indexes, for any engine: what SQLite runs, and what PostgreSQL's kept
// prev_fact and next_fact must equal (its tests compare them).
func AdjacentSeeks(p string) string {
	return `CASE WHEN ` + p + `.event_seq IS NOT NULL THEN
			(SELECT q.fact_id FROM fact_provenance q WHERE q.session_id = ` + p + `.session_id AND q.event_seq < ` + p + `.event_seq
				ORDER BY q.event_seq DESC, q.fact_id DESC LIMIT 1)
		ELSE (SELECT q.fact_id FROM fact_provenance q WHERE q.session_id = ` + p + `.session_id AND q.event_seq IS NULL
				AND q.session_fact_id < ` + p + `.session_fact_id ORDER BY q.session_fact_id DESC, q.fact_id DESC LIMIT 1) END AS prev,
		CASE WHEN ` + p + `.event_seq IS NOT NULL THEN
			(SELECT q.fact_id FROM fact_provenance q WHERE q.session_id = ` + p + `.session_id AND q.event_seq > ` + p + `.event_seq
				ORDER BY q.event_seq, q.fact_id LIMIT 1)
		ELSE (SELECT q.fact_id FROM fact_provenance q WHERE q.session_id = ` + p + `.session_id AND q.event_seq IS NULL
				AND q.session_fact_id > ` + p + `.session_fact_id ORDER BY q.session_fact_id, q.fact_id LIMIT 1) END AS next`
}

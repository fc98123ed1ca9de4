package graph

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/store"
)

// Reader is the read side of one store: every read of knowledge goes
// through one. It owns the handle it reads through, the in-memory index of
// vector sign codes (see vector.Index) and the prepared statements that
// keep that index fresh, so the index lives exactly as long as the reader:
// a long-running server builds one and keeps it warm, a one-shot command
// builds one for its one answer.
//
// A Reader never writes: sign codes and their code files are written by
// integrate through graph/vector, beside the vectors they summarise.
type Reader struct {
	db      *store.DB
	vectors *vector.Index
	stmts   statements
	// searched is set once a search has answered: see parallel.
	searched atomic.Bool
	// window is the store's retention window (zero: none); see Retain.
	window time.Duration
}

// parallel reports whether a search runs its arms (and its pending facts)
// on several connections at once. Where connections are not cheap
// (store.Engine.CheapConnections: each new one starts a process on a
// server that loads the catalog for itself) a reader's first search runs
// them one after another on one connection, so a new process (a CLI
// search, a hook) does not pay three of those, on the server's and its own
// CPUs, for arms that take a fraction of that warm. Later searches run in
// parallel on the connections the pool then keeps. Where connections are
// cheap (SQLite) the arms always run side by side.
func (r *Reader) parallel() bool {
	return r.db.Engine().CheapConnections() || r.searched.Load()
}

// statements are the statements a reader runs on every search, keyed by
// their text: each is prepared once for the reader (database/sql prepares
// it again on each pooled connection it first runs on), where a plain
// query prepares its statement every time — at 10k facts, preparing the
// conversation-context statement (a page of SQL) was a quarter of its
// cost. Their texts must not vary with the query's values: a varying list
// is one JSON array argument.
type statements struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// prepared returns the reader's statement for query (written with ?
// placeholders), preparing it on first use.
func (r *Reader) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	s := &r.stmts
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.m[query]; st != nil {
		return st, nil
	}
	st, err := r.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if s.m == nil {
		s.m = map[string]*sql.Stmt{}
	}
	s.m[query] = st
	return st, nil
}

// NewReader returns the reader of db. The handle stays its owner's to
// close; Close releases only what the reader prepared.
func NewReader(db *store.DB) *Reader {
	return &Reader{db: db, vectors: vector.NewIndex()}
}

// Retain sets the store's retention window (config's retention.window):
// from then on no read returns what happened before now minus window,
// though nothing has deleted it yet. Zero means no window. Set it before
// the reader is shared.
func (r *Reader) Retain(window time.Duration) { r.window = window }

// floor is where the retention window begins now, as stored times are
// written; "" when no window is set.
func (r *Reader) floor() string {
	if r.window <= 0 {
		return ""
	}
	return store.FormatTime(r.Floor())
}

// Within is the retention window as a condition on a facts row (alias a),
// for the read-side packages that query facts themselves; "1 = 1" when no
// window is set.
func (r *Reader) Within(a string) (string, []any) {
	f := r.floor()
	if f == "" {
		return `1 = 1`, nil
	}
	return factWithin(a, f)
}

// EventWithin is the retention window as a condition on a session_events
// row (alias a); "1 = 1" when no window is set.
func (r *Reader) EventWithin(a string) (string, []any) {
	return scope{floor: r.floor()}.eventWithin(a)
}

// Floor is where the retention window begins now; zero when none is set.
func (r *Reader) Floor() time.Time {
	if r.window <= 0 {
		return time.Time{}
	}
	return time.Now().Add(-r.window)
}

// Store is the handle the reader reads through, for the read-side
// packages (graph/hookctx, graph/inspect) that run queries of their own.
func (r *Reader) Store() *store.DB { return r.db }

// Close releases the reader's prepared statements. The handle stays open;
// a search after Close prepares them again. A statement whose rows are
// still being read stays open until they are closed.
func (r *Reader) Close() error {
	var errs []error
	r.stmts.mu.Lock()
	for _, st := range r.stmts.m {
		errs = append(errs, st.Close())
	}
	r.stmts.m = nil
	r.stmts.mu.Unlock()
	errs = append(errs, r.vectors.Close())
	return errors.Join(errs...)
}

// querier is where the read helpers shared by search and the other reads
// run their statements: a *store.DB prepares each on every query, a
// reader's prepared() keeps them (see statements).
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	Engine() store.Engine
}

// preparedQuerier runs statements through the reader's kept statements.
type preparedQuerier struct{ r *Reader }

func (p preparedQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := p.r.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (p preparedQuerier) Engine() store.Engine { return p.r.db.Engine() }

// idIn is the condition that col is one of the ids of the JSON array
// (jsonIDs) bound at its one ?: the statement's text stays the same
// however many ids there are, so it can be kept prepared.
func idIn(eng store.Engine, col string) string {
	return col + ` IN (SELECT CAST(ids.value AS BIGINT) FROM ` + eng.JSONInts("?", "ids") + `)`
}

// jsonIDs renders ids as a JSON array, the argument of idIn.
func jsonIDs(ids []int64) string {
	b := make([]byte, 0, 2+8*len(ids))
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}

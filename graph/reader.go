package graph

import (
	"database/sql"
	"errors"

	"github.com/recollect/recollect/store"
)

// Reader is the read side of one store: every read of knowledge goes
// through one. It owns the handle it reads through, the in-memory index of
// vector sign codes (see vectorIndex) and the prepared statements that
// keep that index fresh, so the index lives exactly as long as the reader:
// a long-running server builds one and keeps it warm, a one-shot command
// builds one for its one answer.
//
// A Reader never writes: sign codes and their code files are written by
// integrate, beside the vectors they summarise.
type Reader struct {
	db      *store.DB
	vectors *vectorIndex
}

// NewReader returns the reader of db. The handle stays its owner's to
// close; Close releases only what the reader prepared.
func NewReader(db *store.DB) *Reader {
	return &Reader{db: db, vectors: &vectorIndex{spaces: map[Space]*codeSet{}}}
}

// Store is the handle the reader reads through, for the read-side
// packages (graph/hookctx, graph/inspect) that run queries of their own.
func (r *Reader) Store() *store.DB { return r.db }

// Close releases the reader's prepared statements. The handle stays open;
// a search after Close prepares them again.
func (r *Reader) Close() error {
	x := r.vectors
	x.mu.Lock()
	defer x.mu.Unlock()
	var errs []error
	for _, st := range []**sql.Stmt{&x.state, &x.vectorCount, &x.candidates} {
		if *st != nil {
			errs = append(errs, (*st).Close())
			*st = nil
		}
	}
	return errors.Join(errs...)
}

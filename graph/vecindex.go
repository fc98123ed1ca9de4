package graph

import (
	"context"
	"database/sql"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/recollect/recollect/store"
)

// SignCode packs the sign of each component of v into bytes, one bit per
// component (set when the component is positive), low bit first. Two codes'
// Hamming distance estimates the angle between their vectors; the semantic
// arm uses it to pick the candidates it then scores by exact cosine.
func SignCode(v []float32) []byte {
	code := make([]byte, (len(v)+7)/8)
	for i, x := range v {
		if x > 0 {
			code[i/8] |= 1 << (i % 8)
		}
	}
	return code
}

// ExactUpTo is the number of vectors in a space up to which the semantic
// arm scores every vector by exact cosine; above it, the sign codes pick
// Oversample × depth candidates (at least ExactUpTo) and only those are
// read and scored exactly.
const (
	ExactUpTo  = 256
	Oversample = 4
)

// vectorIndex holds the sign codes of every vector, per space, for one
// store handle (see store.DB.Memo). It reads new codes by id as they are
// added and reloads a space when codes were removed or rewritten.
type vectorIndex struct {
	mu     sync.Mutex
	spaces map[Space]*codeSet
}

// codeSet is one space's codes, words uint64s per vector.
type codeSet struct {
	ids   []int64
	codes []uint64
	words int
	// maxRowid (the highest id) and removed are what the set has read of
	// vector_codes; lastRowid is the highest id of this space's codes.
	maxRowid, removed, lastRowid int64
	// missing counts the space's vectors that have no code (stored before
	// codes existed); while it is above zero the arm scans every vector.
	missing int64
}

// vectorIndexOf returns db's index, made on first use.
func vectorIndexOf(db *store.DB) *vectorIndex {
	return db.Memo("graph.vectorIndex", func() any { return &vectorIndex{spaces: map[Space]*codeSet{}} }).(*vectorIndex)
}

// codes returns the space's code set, brought up to date with the file.
// The set is shared: callers read it under no lock but never change it,
// and a refresh replaces slices rather than writing into them.
func (x *vectorIndex) codes(ctx context.Context, db *store.DB, sp Space) (codeSet, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	var removed int64
	var maxRowid sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT (SELECT removed FROM vector_code_changes WHERE id = 1), (SELECT max(id) FROM vector_codes)`).
		Scan(&removed, &maxRowid); err != nil {
		return codeSet{}, fmt.Errorf("vector index: %w", err)
	}
	cs := x.spaces[sp]
	fresh := false
	if cs == nil || cs.removed != removed {
		cs = &codeSet{words: (sp.Dim + 63) / 64, removed: removed}
		x.spaces[sp] = cs
		fresh = true
		if maxRowid.Valid {
			if _, err := cs.fromCodeFile(ctx, db, sp, maxRowid.Int64); err != nil {
				delete(x.spaces, sp)
				return codeSet{}, err
			}
		}
	}
	if maxRowid.Int64 > cs.maxRowid {
		before := len(cs.ids)
		if err := cs.read(ctx, db, sp, cs.maxRowid); err != nil {
			delete(x.spaces, sp)
			return codeSet{}, err
		}
		cs.maxRowid = maxRowid.Int64
		fresh = true
		if len(cs.ids)-before >= rewriteAfter {
			// A cache: when it cannot be written the next process reads
			// the table, as it would without one.
			_ = writeCodeFile(db.Dir, sp, cs)
		}
	}
	if fresh {
		// Count the space's vectors after each read: a vector without a code
		// can only come from before codes existed, and consolidate backfills.
		var vectors int64
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM embeddings WHERE provider = ? AND model = ? AND dim = ?`,
			sp.Provider, sp.Model, sp.Dim).Scan(&vectors); err != nil {
			delete(x.spaces, sp)
			return codeSet{}, fmt.Errorf("vector index: count vectors of %s: %w", sp, err)
		}
		cs.missing = max(vectors-int64(len(cs.ids)), 0)
	}
	return *cs, nil
}

// read appends the space's codes with an id above after.
func (cs *codeSet) read(ctx context.Context, db *store.DB, sp Space, after int64) error {
	// Size the slices first: growing them by append touches several times
	// the memory, and fresh pages are what a first load pays for.
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM vector_codes WHERE id > ? AND provider = ? AND model = ? AND dim = ?`,
		after, sp.Provider, sp.Model, sp.Dim).Scan(&n); err != nil {
		return fmt.Errorf("vector index: count codes of %s: %w", sp, err)
	}
	cs.ids = slices.Grow(cs.ids, n)
	cs.codes = slices.Grow(cs.codes, n*cs.words)
	rows, err := db.QueryContext(ctx, `SELECT id, fact_id, code FROM vector_codes
		WHERE id > ? AND provider = ? AND model = ? AND dim = ? ORDER BY id`, after, sp.Provider, sp.Model, sp.Dim)
	if err != nil {
		return fmt.Errorf("vector index: read codes of %s: %w", sp, err)
	}
	defer rows.Close()
	ids, codes := cs.ids, cs.codes
	var code sql.RawBytes // valid until the next row: read, never kept
	for rows.Next() {
		var rowid, id int64
		if err := rows.Scan(&rowid, &id, &code); err != nil {
			return fmt.Errorf("vector index: read codes of %s: %w", sp, err)
		}
		cs.lastRowid = rowid
		if len(code) != (sp.Dim+7)/8 {
			continue // a damaged code is never compared; its vector still is, when the space is small
		}
		ids = append(ids, id)
		for w := 0; w < cs.words; w++ {
			var word uint64
			for b := 0; b < 8 && w*8+b < len(code); b++ {
				word |= uint64(code[w*8+b]) << (8 * b)
			}
			codes = append(codes, word)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("vector index: read codes of %s: %w", sp, err)
	}
	cs.ids, cs.codes = ids, codes
	return nil
}

// nearest returns the ids of the n codes closest to q's code by Hamming
// distance, ties broken by id order; all ids when there are no more than n.
func (cs codeSet) nearest(q []float32, n int) []int64 {
	if len(cs.ids) <= n {
		return cs.ids
	}
	qc := SignCode(q)
	qw := make([]uint64, cs.words)
	for i, b := range qc {
		qw[i/8] |= uint64(b) << (8 * (i % 8))
	}
	dist := make([]uint16, len(cs.ids))
	hist := make([]int32, cs.words*64+1)
	for i := range cs.ids {
		d := 0
		row := cs.codes[i*cs.words : (i+1)*cs.words]
		for w, c := range row {
			d += bits.OnesCount64(c ^ qw[w])
		}
		dist[i] = uint16(d)
		hist[d]++
	}
	// The smallest distance limit that admits n codes; codes at the limit
	// itself are taken in id order until n.
	limit, below := 0, int32(0)
	for ; below+hist[limit] < int32(n); limit++ {
		below += hist[limit]
	}
	room := int32(n) - below
	out := make([]int64, 0, n)
	for i, d := range dist {
		switch {
		case int(d) < limit:
			out = append(out, cs.ids[i])
		case int(d) == limit && room > 0:
			out = append(out, cs.ids[i])
			room--
		}
	}
	return out
}

// StoreCode writes the sign code of fact's vector in space sp beside the
// vector itself (integrate calls it in the same transaction as the vector).
func StoreCode(ctx context.Context, ex store.Execer, factID int64, sp Space, v []float32) error {
	if len(v) != sp.Dim {
		return fmt.Errorf("store code of fact %d: %d components in space %s: %w", factID, len(v), sp, ErrSpaceMismatch)
	}
	if _, err := ex.ExecContext(ctx, `INSERT INTO vector_codes(fact_id, provider, model, dim, code)
		SELECT ?,?,?,?,? WHERE EXISTS (SELECT 1 FROM facts WHERE id = ?)
		ON CONFLICT(fact_id, provider, model, dim) DO UPDATE SET code = excluded.code WHERE code != excluded.code`,
		factID, sp.Provider, sp.Model, sp.Dim, SignCode(v), factID); err != nil {
		return fmt.Errorf("store code of fact %d: %w", factID, err)
	}
	return nil
}

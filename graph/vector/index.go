package vector

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"github.com/recollect/recollect/store"
)

// SignCode packs the sign of each component of v into bytes, one bit per
// component (set when the component is positive), low bit first. Two codes'
// Hamming distance estimates the angle between their vectors; graph's
// semantic arm uses it to pick the candidates it then scores by exact cosine.
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

// Index holds the sign codes of every vector, per space, for one of
// graph's Readers. It reads new codes by id as they are added and reloads
// a space when codes were removed or rewritten; state, vectorCount and
// candidates are its prepared statements (each made on first use, closed
// by Close).
type Index struct {
	mu                             sync.Mutex
	spaces                         map[Space]*CodeSet
	state, vectorCount, candidates *sql.Stmt
}

// NewIndex returns an empty index: each space is loaded by its first
// Codes.
func NewIndex() *Index { return &Index{spaces: map[Space]*CodeSet{}} }

// Close releases the index's prepared statements; the codes stay, and a
// later Codes prepares the statements again. A statement whose rows are
// still being read stays open until they are closed.
func (x *Index) Close() error {
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

// CodeSet is one space's codes as the index holds them: the code file's
// (CodeFile.IDs and Codes, possibly mapped read-only, never appended to),
// then the rows read from the table since (tailIDs, tailCodes). Row r of
// the set is the r-th of the two in turn.
type CodeSet struct {
	CodeFile
	tailIDs   []int64
	tailCodes []uint64
	// m keeps a mapped code file mapped while the set refers to it;
	// whoever reads the set's ids or codes keeps the set alive until done.
	m *mapping
	// missing counts the space's vectors that have no code (stored before
	// codes existed); while it is not zero the arm scans every vector, and
	// -1 means not counted yet. Once zero it stays zero: every vector is
	// stored with its code.
	missing int64
	// vecs is the space's vector file, mapped, when it fits the codes:
	// its rows are the vectors of the first ids (see vectorRows).
	vecs *vectorRows
}

// The index's statements: the table's state (read by every search), the
// count of a space's vectors (only while some may lack a code) and the
// read of candidate vectors (only for candidates beyond the vector file).
const (
	stateQuery       = `SELECT (SELECT removed FROM vector_code_changes WHERE id = 1), (SELECT max(id) FROM vector_codes)`
	vectorCountQuery = `SELECT count(*) FROM embeddings WHERE provider = ? AND model = ? AND dim = ?`
)

// stmt returns the statement *st, preparing query into it on first use:
// a new process prepares only what its first search runs. x.mu is held.
func (x *Index) stmt(ctx context.Context, db *store.DB, st **sql.Stmt, query string) (*sql.Stmt, error) {
	if *st != nil {
		return *st, nil
	}
	s, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("vector index: %w", err)
	}
	*st = s
	return s, nil
}

// CandidatesStmt is the prepared read of candidate vectors
// (CandidatesQuery), prepared on first use. A statement closed while its rows are read stays open until
// they are closed.
func (x *Index) CandidatesStmt(ctx context.Context, db *store.DB) (*sql.Stmt, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.stmt(ctx, db, &x.candidates, CandidatesQuery(db))
}

// Codes returns the space's code set, brought up to date with the table.
// The set is shared: callers read it under no lock but never change it,
// and a refresh replaces slices rather than writing into them.
func (x *Index) Codes(ctx context.Context, db *store.DB, sp Space) (CodeSet, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	state, err := x.stmt(ctx, db, &x.state, stateQuery)
	if err != nil {
		return CodeSet{}, err
	}
	var removed int64
	var maxRowid sql.NullInt64
	if err := state.QueryRowContext(ctx).Scan(&removed, &maxRowid); err != nil {
		return CodeSet{}, fmt.Errorf("vector index: %w", err)
	}
	cs := x.spaces[sp]
	fresh := false
	if cs == nil || cs.Removed != removed {
		cs = &CodeSet{CodeFile: CodeFile{Words: (sp.Dim + 63) / 64, Removed: removed}, missing: -1}
		x.spaces[sp] = cs
		fresh = true
		if maxRowid.Valid {
			fromFile, err := cs.fromCodeFile(ctx, db, sp, maxRowid.Int64, true)
			if err != nil {
				delete(x.spaces, sp)
				return CodeSet{}, err
			}
			if fromFile && cs.Missing == 0 {
				cs.missing = 0
			}
		}
	}
	if maxRowid.Int64 > cs.MaxRowid {
		if err := cs.read(ctx, db, sp, cs.MaxRowid); err != nil {
			delete(x.spaces, sp)
			return CodeSet{}, err
		}
		cs.MaxRowid = maxRowid.Int64
		fresh = true
	}
	if fresh && cs.missing != 0 {
		// Count the space's vectors after each read until none lacks a
		// code: a vector without one can only come from before codes
		// existed, and consolidate backfills them. Counting reads every
		// vector's key, so a code file that was written with none missing
		// spares a new process from it.
		var vectors int64
		count, err := x.stmt(ctx, db, &x.vectorCount, vectorCountQuery)
		if err != nil {
			delete(x.spaces, sp)
			return CodeSet{}, err
		}
		if err := count.QueryRowContext(ctx, sp.Provider, sp.Model, sp.Dim).Scan(&vectors); err != nil {
			delete(x.spaces, sp)
			return CodeSet{}, fmt.Errorf("vector index: count vectors of %s: %w", sp, err)
		}
		cs.missing = max(vectors-int64(cs.Rows()), 0)
	}
	if fresh {
		// integrate appends to the vector file as it adds codes: the
		// rows read since may be in it by now.
		cs.vecs = openVectorRows(db.Dir, sp, *cs)
	}
	return *cs, nil
}

// LoadCodes reads space sp's sign codes as a new Reader does: from the
// space's code file while it still matches the table, then the rows added
// since from the table. fromTable counts the codes read from the table;
// integrate rewrites the file when CodeFileDue says so.
func LoadCodes(ctx context.Context, db *store.DB, sp Space) (f CodeFile, fromTable int, err error) {
	var maxRowid sql.NullInt64
	cs := &CodeSet{CodeFile: CodeFile{Words: (sp.Dim + 63) / 64}}
	if err := db.QueryRowContext(ctx, stateQuery).Scan(&cs.Removed, &maxRowid); err != nil {
		return CodeFile{}, 0, fmt.Errorf("load codes of %s: %w", sp, err)
	}
	if !maxRowid.Valid {
		return cs.CodeFile, 0, nil
	}
	if _, err := cs.fromCodeFile(ctx, db, sp, maxRowid.Int64, false); err != nil {
		return CodeFile{}, 0, err
	}
	if maxRowid.Int64 > cs.MaxRowid {
		if err := cs.read(ctx, db, sp, cs.MaxRowid); err != nil {
			return CodeFile{}, 0, err
		}
		cs.MaxRowid = maxRowid.Int64
	}
	f = cs.CodeFile
	f.IDs = append(slices.Clip(f.IDs), cs.tailIDs...)
	f.Codes = append(slices.Clip(f.Codes), cs.tailCodes...)
	return f, len(cs.tailIDs), nil
}

// Rows is how many codes the set holds.
func (cs CodeSet) Rows() int { return len(cs.IDs) + len(cs.tailIDs) }

// ID is the fact of row r.
func (cs CodeSet) ID(r int) int64 {
	if r < len(cs.IDs) {
		return cs.IDs[r]
	}
	return cs.tailIDs[r-len(cs.IDs)]
}

// AllCoded reports whether every vector of the space has its code, so
// the codes may pick candidates; while some vector lacks one (stored
// before codes existed, until consolidate backfills it), a search scores
// every vector.
func (cs CodeSet) AllCoded() bool { return cs.missing == 0 }

// Vector is the stored bytes (Encode's) of row r's vector, read from the
// space's mapped vector file; nil when the file does not hold that row
// (added since it was written, or no file). The bytes stay valid while the
// set is kept alive (see KeepAlive).
func (cs CodeSet) Vector(r int) []byte { return cs.vecs.row(r) }

// KeepAlive keeps the set's mapped files mapped up to the call: whoever
// reads ids, codes or vectors from the set calls it after the last read.
func (cs CodeSet) KeepAlive() {
	runtime.KeepAlive(cs.vecs)
	runtime.KeepAlive(cs.m)
}

// CandidatesQuery reads the vectors of a JSON list of facts in one space,
// driven from the list (CROSS JOIN fixes the order), so SQLite looks up
// each candidate instead of walking every vector.
func CandidatesQuery(db *store.DB) string {
	return `SELECT e.fact_id, e.vector FROM ` + db.Engine().JSONInts("?", "j") + ` CROSS JOIN embeddings e
		WHERE e.fact_id = CAST(j.value AS INTEGER) AND e.provider = ? AND e.model = ? AND e.dim = ?`
}

// read appends the space's codes with an id above after to the set's
// tail.
func (cs *CodeSet) read(ctx context.Context, db *store.DB, sp Space, after int64) error {
	// Size the slices first: growing them by append touches several times
	// the memory, and fresh pages are what a first load pays for.
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM vector_codes WHERE id > ? AND provider = ? AND model = ? AND dim = ?`,
		after, sp.Provider, sp.Model, sp.Dim).Scan(&n); err != nil {
		return fmt.Errorf("vector index: count codes of %s: %w", sp, err)
	}
	cs.tailIDs = slices.Grow(cs.tailIDs, n)
	cs.tailCodes = slices.Grow(cs.tailCodes, n*cs.Words)
	rows, err := db.QueryContext(ctx, `SELECT id, fact_id, code FROM vector_codes
		WHERE id > ? AND provider = ? AND model = ? AND dim = ? ORDER BY id`, after, sp.Provider, sp.Model, sp.Dim)
	if err != nil {
		return fmt.Errorf("vector index: read codes of %s: %w", sp, err)
	}
	defer rows.Close()
	ids, codes := cs.tailIDs, cs.tailCodes
	var code sql.RawBytes // valid until the next row: read, never kept
	for rows.Next() {
		var rowid, id int64
		if err := rows.Scan(&rowid, &id, &code); err != nil {
			return fmt.Errorf("vector index: read codes of %s: %w", sp, err)
		}
		cs.LastRowid = rowid
		if len(code) != (sp.Dim+7)/8 {
			continue // a damaged code is never compared; its vector still is, when the space is small
		}
		ids = append(ids, id)
		for w := 0; w < cs.Words; w++ {
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
	cs.tailIDs, cs.tailCodes = ids, codes
	return nil
}

// Nearest returns the ids of the n codes closest to q's code by Hamming
// distance, nearest first, ties broken by row order; all ids when there
// are no more than n. It measures a block of codes at a time in a tight
// loop and keeps the n best in a bounded max-heap, so it needs no memory
// in proportion to the codes and a code beyond the worst kept one costs a
// comparison.
func (cs CodeSet) Nearest(q []float32, n int) []int64 {
	if cs.Rows() <= n {
		return slices.Concat(cs.IDs, cs.tailIDs)
	}
	rows := cs.NearestRows(q, n)
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = cs.ID(r)
	}
	runtime.KeepAlive(cs.m)
	return out
}

// NearestRows is Nearest as rows of the set, which holds more than n
// codes.
func (cs CodeSet) NearestRows(q []float32, n int) []int {
	qc := SignCode(q)
	qw := make([]uint64, cs.Words)
	for i, b := range qc {
		qw[i/8] |= uint64(b) << (8 * (i % 8))
	}
	// Each heap entry is distance<<32 | row: a larger key is a worse code,
	// by distance and then by row order.
	h := make([]uint64, 0, n)
	var dist [nearestBlock]uint32
	words := cs.Words
	base := 0 // the set's row of the segment's first
	for _, seg := range [2]struct {
		rows  int
		codes []uint64
	}{{len(cs.IDs), cs.Codes}, {len(cs.tailIDs), cs.tailCodes}} {
		for start := 0; start < seg.rows; start += nearestBlock {
			end := min(start+nearestBlock, seg.rows)
			d := dist[:end-start]
			hammingRows(d, seg.codes[start*words:end*words], qw)
			for j, dj := range d {
				k := uint64(dj)<<32 | uint64(base+start+j)
				switch {
				case len(h) < n:
					h = heapPush(h, k)
				case k < h[0]:
					h[0] = k
					heapDown(h)
				}
			}
		}
		base += seg.rows
	}
	runtime.KeepAlive(cs.m)
	slices.Sort(h)
	out := make([]int, len(h))
	for i, k := range h {
		out[i] = int(uint32(k))
	}
	return out
}

// nearestBlock is how many codes nearest measures before selecting among
// them: small enough that the distances stay in the first-level cache.
const nearestBlock = 512

// hammingRows sets d[i] to the Hamming distance between q and the i-th
// row of codes (len(q) words each). Codes of 768 bits (768-dimensional
// embeddings, the usual size of local models) take a fully unrolled path
// with no bounds checks, 40% faster than the general loop.
func hammingRows(d []uint32, codes, q []uint64) {
	w := len(q)
	if w == 12 {
		q := (*[12]uint64)(q)
		codes = codes[:len(d)*12]
		for i := range d {
			r := (*[12]uint64)(codes[i*12 : i*12+12])
			d[i] = uint32(bits.OnesCount64(r[0]^q[0]) + bits.OnesCount64(r[1]^q[1]) + bits.OnesCount64(r[2]^q[2]) +
				bits.OnesCount64(r[3]^q[3]) + bits.OnesCount64(r[4]^q[4]) + bits.OnesCount64(r[5]^q[5]) +
				bits.OnesCount64(r[6]^q[6]) + bits.OnesCount64(r[7]^q[7]) + bits.OnesCount64(r[8]^q[8]) +
				bits.OnesCount64(r[9]^q[9]) + bits.OnesCount64(r[10]^q[10]) + bits.OnesCount64(r[11]^q[11]))
		}
		return
	}
	if w%4 == 0 {
		for i := range d {
			row := codes[i*w : (i+1)*w : (i+1)*w]
			var a, b, c, e int
			for k := 0; k+3 < len(row); k += 4 {
				a += bits.OnesCount64(row[k] ^ q[k])
				b += bits.OnesCount64(row[k+1] ^ q[k+1])
				c += bits.OnesCount64(row[k+2] ^ q[k+2])
				e += bits.OnesCount64(row[k+3] ^ q[k+3])
			}
			d[i] = uint32(a + b + c + e)
		}
		return
	}
	for i := range d {
		d[i] = uint32(hamming(codes[i*w:(i+1)*w], q))
	}
}

// hamming is the number of bits that differ between a and b (len(a) ≤
// len(b)).
func hamming(a, b []uint64) int {
	d := 0
	b = b[:len(a)]
	for w, c := range a {
		d += bits.OnesCount64(c ^ b[w])
	}
	return d
}

// heapPush adds k to the max-heap h.
func heapPush(h []uint64, k uint64) []uint64 {
	h = append(h, k)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p] >= h[i] {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	return h
}

// heapDown restores the max-heap h after its root was replaced.
func heapDown(h []uint64) {
	for i := 0; ; {
		l, big := 2*i+1, i
		if l < len(h) && h[l] > h[big] {
			big = l
		}
		if r := l + 1; r < len(h) && h[r] > h[big] {
			big = r
		}
		if big == i {
			return
		}
		h[i], h[big] = h[big], h[i]
		i = big
	}
}

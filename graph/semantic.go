package graph

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/store"
)

// Floors of the semantic arm: a fact is kept when its cosine with the query
// is at least MinCosine and at least RelativeCosine times the best cosine.
const (
	MinCosine      = 0.3
	RelativeCosine = 0.8
)

// scored is a fact with its exact cosine with the query.
type scored struct {
	id  int64
	cos float64
}

// semanticArm ranks the facts of the query's space by exact cosine, kept
// above both floors, best first. In a space of more than vector.ExactUpTo
// vectors it scores only the candidates the sign codes pick (see
// vector.Index) and checks the scope of the best of them only; while some
// vectors have no code yet it scores them all. A note explains when the
// arm cannot run.
func semanticArm(ctx context.Context, r *Reader, sc scope, vec []float32, space vector.Space, depth int) (armList, string, error) {
	db, index := r.db, r.vectors
	if len(vec) != space.Dim {
		return armList{}, fmt.Sprintf("the query vector has %d components but its space %s says %d; similarity arm skipped", len(vec), space, space.Dim), nil
	}
	cs, err := index.Codes(ctx, db, space)
	if err != nil {
		return armList{}, "", fmt.Errorf("similarity search: %w", err)
	}
	var all []scored
	checked := false // whether all holds only facts in scope
	if n := max(vector.ExactUpTo, vector.Oversample*depth); cs.AllCoded() && cs.Rows() > n {
		all, err = scoreCodeRows(ctx, db, index, space, vec, cs, cs.NearestRows(vec, n))
	} else {
		all, err = scoreInScope(ctx, preparedQuerier{r}, sc, space, vec)
		checked = true
	}
	if err != nil {
		return armList{}, "", fmt.Errorf("similarity search: %w", err)
	}
	if len(all) == 0 {
		return armList{}, fmt.Sprintf("no fact has a vector in %s yet; run consolidate to embed them", space), nil
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.cos != b.cos {
			if a.cos > b.cos {
				return -1
			}
			return 1
		}
		return cmpID(a.id, b.id)
	})
	kept, err := keepInScope(ctx, preparedQuerier{r}, sc, all, depth, checked)
	if err != nil {
		return armList{}, "", fmt.Errorf("similarity search: %w", err)
	}
	if kept == nil {
		return armList{}, fmt.Sprintf("no fact has a vector in %s yet; run consolidate to embed them", space), nil
	}
	cos := make(map[int64]float64, len(kept))
	ids := make([]int64, len(kept))
	for i, s := range kept {
		ids[i], cos[s.id] = s.id, s.cos
	}
	return armList{arm: ArmSemantic, ids: ids, detail: func(id int64) string { return "cosine " + strconv.FormatFloat(cos[id], 'f', 3, 64) }}, "", nil
}

func cmpID(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// scoreInScope scores every vector of space whose fact is in scope: the
// arm's path for a small space, or one with vectors still lacking a code.
func scoreInScope(ctx context.Context, db querier, sc scope, space vector.Space, vec []float32) ([]scored, error) {
	cond, args := sc.candidate()
	rows, err := db.QueryContext(ctx, `SELECT e.fact_id, e.vector FROM embeddings e JOIN facts f ON f.id = e.fact_id
		WHERE e.provider = ? AND e.model = ? AND e.dim = ? AND `+cond, append([]any{space.Provider, space.Model, space.Dim}, args...)...)
	if err != nil {
		return nil, err
	}
	return scoreRows(rows, vec)
}

// scoreCodeRows scores the vectors of the code set's rows, whatever their
// scope: those the space's vector file holds straight from its mapping,
// the rest (added since it was written, or all when there is none) read
// from the table by scoreCandidates. Both score the same stored bytes the
// same way.
func scoreCodeRows(ctx context.Context, db *store.DB, index *vector.Index, space vector.Space, vec []float32, cs vector.CodeSet, rows []int) ([]scored, error) {
	qn := queryNorm(vec)
	out := make([]scored, 0, len(rows))
	var rest []int64
	// Four rows are scored at once: each cosine adds up in its own order,
	// as cosineBytes does, and the processor overlaps the four.
	var four [4][]byte
	var ids [4]int64
	k := 0
	for _, r := range rows {
		b := cs.Vector(r)
		if b == nil {
			rest = append(rest, cs.ID(r))
			continue
		}
		four[k], ids[k] = b, cs.ID(r)
		if k++; k == 4 {
			c := cosineBytes4(vec, qn, &four)
			for j := range four {
				out = append(out, scored{ids[j], c[j]})
			}
			k = 0
		}
	}
	for j := range k {
		out = append(out, scored{ids[j], cosineBytes(vec, qn, four[j])})
	}
	cs.KeepAlive() // the mappings stay until their rows are read
	if len(rest) == 0 {
		return out, nil
	}
	stmt, err := index.CandidatesStmt(ctx, db)
	if err != nil {
		return nil, err
	}
	more, err := scoreCandidates(ctx, db, stmt, space, vec, rest)
	return append(out, more...), err
}

// scoreCandidates scores the vectors of the candidate facts, whatever
// their scope: keepInScope checks the scope of the few that rank. It reads
// them through stmt (the index's prepared read; prepared here when nil) in
// id order, which is about the order of their rows: neighbouring lookups
// share pages, and reading 256 vectors takes half as long as in the
// codes' order.
func scoreCandidates(ctx context.Context, db *store.DB, stmt *sql.Stmt, space vector.Space, vec []float32, cands []int64) ([]scored, error) {
	cands = slices.Clone(cands)
	slices.Sort(cands)
	ids, err := json.Marshal(cands)
	if err != nil {
		return nil, err
	}
	var rows *sql.Rows
	if stmt != nil {
		rows, err = stmt.QueryContext(ctx, string(ids), space.Provider, space.Model, space.Dim)
	} else {
		rows, err = db.QueryContext(ctx, vector.CandidatesQuery(db), string(ids), space.Provider, space.Model, space.Dim)
	}
	if err != nil {
		return nil, err
	}
	return scoreRows(rows, vec)
}

// rowScanner is the part of *sql.Rows scoreRows reads.
type rowScanner interface {
	Next() bool
	Scan(...any) error
	Err() error
	Close() error
}

// scoreRows reads (fact id, vector) rows and scores each vector by exact
// cosine with vec, straight from its stored bytes. A vector of another
// length is damaged and skipped, never compared.
func scoreRows(rows rowScanner, vec []float32) ([]scored, error) {
	defer rows.Close()
	qn := queryNorm(vec)
	var out []scored
	var blob sql.RawBytes // valid until the next row: scored, never kept
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, err
		}
		if len(blob) != 4*len(vec) {
			continue
		}
		out = append(out, scored{id, cosineBytes(vec, qn, blob)})
	}
	return out, rows.Err()
}

// cosineBytes4 is cosineBytes of q with each of four stored vectors, each
// summed in the same order and so to the same bits; the four sums are
// independent, so they proceed side by side where one waits on each add.
func cosineBytes4(q []float32, qn float64, b *[4][]byte) [4]float64 {
	n := 4 * len(q)
	b0, b1, b2, b3 := b[0][:n], b[1][:n], b[2][:n], b[3][:n]
	var d0, d1, d2, d3, n0, n1, n2, n3 float64
	for i, x := range q {
		xf := float64(x)
		y0 := float64(math.Float32frombits(binary.LittleEndian.Uint32(b0[4*i:])))
		y1 := float64(math.Float32frombits(binary.LittleEndian.Uint32(b1[4*i:])))
		y2 := float64(math.Float32frombits(binary.LittleEndian.Uint32(b2[4*i:])))
		y3 := float64(math.Float32frombits(binary.LittleEndian.Uint32(b3[4*i:])))
		d0 += float64(xf * y0)
		n0 += float64(y0 * y0)
		d1 += float64(xf * y1)
		n1 += float64(y1 * y1)
		d2 += float64(xf * y2)
		n2 += float64(y2 * y2)
		d3 += float64(xf * y3)
		n3 += float64(y3 * y3)
	}
	out := [4]float64{}
	for j, dn := range [4][2]float64{{d0, n0}, {d1, n1}, {d2, n2}, {d3, n3}} {
		if qn != 0 && dn[1] != 0 {
			out[j] = dn[0] / (qn * math.Sqrt(dn[1]))
		}
	}
	return out
}

// queryNorm is the Euclidean norm of q, as Cosine computes it.
func queryNorm(q []float32) float64 {
	var qn float64
	for _, x := range q {
		qn += float64(x) * float64(x)
	}
	return math.Sqrt(qn)
}

// cosineBytes is vector.Cosine of q (whose norm is qn) with the vector vector.Encode
// wrote as b, computed in the same float64 arithmetic without decoding b.
func cosineBytes(q []float32, qn float64, b []byte) float64 {
	var dot, nb float64
	b = b[:4*len(q)]
	for i, x := range q {
		y := float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		// Each product is rounded before it is added (the conversion
		// forbids a fused multiply-add), so cosineBytes4 gets these bits.
		dot += float64(float64(x) * y)
		nb += float64(y * y)
	}
	if qn == 0 || nb == 0 {
		return 0
	}
	return dot / (qn * math.Sqrt(nb))
}

// keepInScope returns the facts of all (sorted best first) that the arm
// keeps: in scope, at or above MinCosine and RelativeCosine times the best
// in scope, at most depth. It checks the scope of the best candidates a
// batch at a time — usually one batch of at most depth — rather than of
// every candidate; checked says all holds only facts in scope already.
// nil means no fact was in scope.
func keepInScope(ctx context.Context, db querier, sc scope, all []scored, depth int, checked bool) ([]scored, error) {
	var kept []scored
	best := math.Inf(-1) // the best cosine in scope, once one is found
	seen := false
	for j := 0; j < len(all) && len(kept) < depth; {
		// Until the best in scope is known, the floor is at most the
		// relative floor of the best unchecked candidate.
		top := best
		if !seen {
			top = all[j].cos
		}
		floor := max(MinCosine, RelativeCosine*top)
		if all[j].cos < floor {
			if !seen {
				// Nothing in scope can reach the floor; say the arm ran.
				return []scored{}, nil
			}
			break
		}
		k := j
		for k < len(all) && k-j < depth-len(kept) && all[k].cos >= floor {
			k++
		}
		var in map[int64]bool
		if !checked {
			var err error
			if in, err = inScope(ctx, db, sc, all[j:k]); err != nil {
				return nil, err
			}
		}
		for _, s := range all[j:k] {
			if !checked && !in[s.id] {
				continue
			}
			if !seen {
				best, seen = s.cos, true
			}
			if s.cos < max(MinCosine, RelativeCosine*best) {
				return kept, nil
			}
			kept = append(kept, s)
		}
		j = k
	}
	if !seen {
		return nil, nil
	}
	return kept, nil
}

// inScope says which of the facts lie in scope (not rejected, recorded by
// the scope's instant).
func inScope(ctx context.Context, db querier, sc scope, facts []scored) (map[int64]bool, error) {
	ids := make([]int64, len(facts))
	for i, s := range facts {
		ids[i] = s.id
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	cond, args := sc.candidate()
	rows, err := db.QueryContext(ctx, `SELECT f.id FROM `+db.Engine().JSONInts("?", "j")+` CROSS JOIN facts f
		WHERE f.id = CAST(j.value AS INTEGER) AND `+cond, append([]any{string(list)}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	in := make(map[int64]bool, len(facts))
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		in[id] = true
	}
	return in, rows.Err()
}

// VectorCandidates returns the n facts of space whose sign codes are
// nearest vec's, nearest first (every coded fact when there are no more
// than n): the candidates the similarity arm scores
// by exact cosine (it takes max(vector.ExactUpTo, vector.Oversample × depth) of them).
// The benchmark measures the recall of that stage with it.
func (r *Reader) VectorCandidates(ctx context.Context, space vector.Space, vec []float32, n int) ([]int64, error) {
	if len(vec) != space.Dim {
		return nil, fmt.Errorf("vector candidates: %d components in space %s: %w", len(vec), space, vector.ErrSpaceMismatch)
	}
	cs, err := r.vectors.Codes(ctx, r.db, space)
	if err != nil {
		return nil, fmt.Errorf("vector candidates: %w", err)
	}
	return slices.Clone(cs.Nearest(vec, n)), nil
}

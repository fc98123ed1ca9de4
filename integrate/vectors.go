package integrate

import (
	"context"
	"fmt"
	"strconv"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// EmbedReport says what the embedding step did. Missing counts active
// facts still lacking a vector in the working space afterwards.
type EmbedReport struct {
	Space    string `json:"space"`
	Embedded int    `json:"embedded"`
	// Coded counts sign codes written for vectors stored before codes
	// existed (see BackfillCodes).
	Coded   int    `json:"coded,omitempty"`
	Missing int    `json:"missing"`
	Error   string `json:"error,omitempty"`
}

// StoreVector writes fact's vector in space. A NaN or infinite component,
// or a length other than the space's dimension, is refused and nothing is
// written.
func StoreVector(ctx context.Context, ex store.Execer, factID int64, sp vector.Space, v []float32) error {
	if len(v) != sp.Dim {
		return fmt.Errorf("store vector of fact %d: %d components in space %s: %w", factID, len(v), sp, vector.ErrSpaceMismatch)
	}
	blob, err := vector.Encode(v)
	if err != nil {
		return fmt.Errorf("store vector of fact %d: %w", factID, err)
	}
	// A vector stored again with other numbers (two embedders racing on
	// one fact) may keep its sign code, and so the code's row; the vector
	// file caches the old numbers, so the removal counter moves as for a
	// changed code and the file is written again.
	if _, err := ex.ExecContext(ctx, `UPDATE vector_code_changes SET removed = removed + 1 WHERE id = 1 AND EXISTS (
		SELECT 1 FROM embeddings WHERE fact_id = ? AND provider = ? AND model = ? AND dim = ? AND vector != ?)`,
		factID, sp.Provider, sp.Model, sp.Dim, blob); err != nil {
		return fmt.Errorf("store vector of fact %d: %w", factID, err)
	}
	if _, err := ex.ExecContext(ctx, `INSERT INTO embeddings(fact_id, provider, model, dim, vector, created_at)
		SELECT ?,?,?,?,?,? WHERE EXISTS (SELECT 1 FROM facts WHERE id = ?)
		ON CONFLICT(fact_id, provider, model, dim) DO UPDATE SET vector = excluded.vector, created_at = excluded.created_at`,
		factID, sp.Provider, sp.Model, sp.Dim, blob, store.Now(), factID); err != nil {
		return fmt.Errorf("store vector of fact %d: %w", factID, err)
	}
	return vector.StoreCode(ctx, ex, factID, sp, v)
}

// BackfillCodes writes the sign code of every vector of sp that has none
// (vectors stored before codes existed), n at a time, each batch in its
// own transaction, and returns how many it wrote. It costs two counts
// when nothing is missing.
func BackfillCodes(ctx context.Context, db *store.DB, sp vector.Space, n int) (int, error) {
	var vectors, codes int
	if err := db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM embeddings WHERE provider = ?1 AND model = ?2 AND dim = ?3),
		(SELECT count(*) FROM vector_codes WHERE provider = ?1 AND model = ?2 AND dim = ?3)`,
		sp.Provider, sp.Model, sp.Dim).Scan(&vectors, &codes); err != nil {
		return 0, fmt.Errorf("count sign codes of %s: %w", sp, err)
	}
	written := 0
	for vectors > codes+written {
		wrote := 0
		err := db.Tx(ctx, func(tx *store.Tx) error {
			rows, err := tx.QueryContext(ctx, `SELECT e.fact_id, e.vector FROM embeddings e
				WHERE e.provider = ?1 AND e.model = ?2 AND e.dim = ?3 AND NOT EXISTS (SELECT 1 FROM vector_codes c
					WHERE c.fact_id = e.fact_id AND c.provider = ?1 AND c.model = ?2 AND c.dim = ?3)
				LIMIT ?4`, sp.Provider, sp.Model, sp.Dim, n)
			if err != nil {
				return err
			}
			type pending struct {
				id int64
				v  []float32
			}
			var batch []pending
			for rows.Next() {
				var p pending
				var blob []byte
				if err := rows.Scan(&p.id, &blob); err != nil {
					rows.Close()
					return err
				}
				if p.v, err = vector.Decode(blob); err != nil || len(p.v) != sp.Dim {
					continue // a damaged vector gets no code; search never compares it
				}
				batch = append(batch, p)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			for _, p := range batch {
				if err := vector.StoreCode(ctx, tx, p.id, sp, p.v); err != nil {
					return err
				}
			}
			wrote = len(batch)
			return nil
		})
		if err != nil {
			return written, fmt.Errorf("backfill sign codes of %s: %w", sp, err)
		}
		if wrote == 0 {
			break // only damaged vectors are left
		}
		written += wrote
	}
	return written, nil
}

func dimKey(sp vector.Space) string { return "embedding_dim:" + sp.Provider + "/" + sp.Model }

// WorkingSpace is the space the config's embedder writes, with the
// dimension learnt from its first answer; ok is false when embeddings are
// off or nothing was embedded yet.
func WorkingSpace(ctx context.Context, db *store.DB, cfg config.Embedding) (vector.Space, bool, error) {
	if cfg.Provider == "" {
		return vector.Space{}, false, nil
	}
	sp := vector.Space{Provider: cfg.Provider, Model: cfg.Model}
	v, ok, err := store.GetMeta(ctx, db, dimKey(sp))
	if err != nil || !ok {
		return sp, false, err
	}
	if sp.Dim, err = strconv.Atoi(v); err != nil {
		return sp, false, fmt.Errorf("read working embedding space: meta %s = %q: %w", dimKey(sp), v, err)
	}
	return sp, true, nil
}

// missingWhere selects active facts without a vector in sp; with an
// unknown dimension, without any vector of sp's provider and model.
func missingWhere(sp vector.Space) (string, []any) {
	if sp.Dim == 0 {
		return `f.status = 'active' AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.fact_id = f.id AND e.provider = ? AND e.model = ?)`,
			[]any{sp.Provider, sp.Model}
	}
	return `f.status = 'active' AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.fact_id = f.id AND e.provider = ? AND e.model = ? AND e.dim = ?)`,
		[]any{sp.Provider, sp.Model, sp.Dim}
}

// EmbedMissing embeds active facts lacking a vector in the embedder's
// space, batch by batch, each batch committed on its own. A failure stops
// the step and is reported (and recorded in stage_health as "embed"); the
// facts stay without a vector and are tried again next run.
func EmbedMissing(ctx context.Context, db *store.DB, e model.Embedder, batch int) EmbedReport {
	if batch <= 0 {
		batch = 32
	}
	sp := e.Space()
	if sp.Dim == 0 {
		if v, ok, err := store.GetMeta(ctx, db, dimKey(sp)); err == nil && ok {
			sp.Dim, _ = strconv.Atoi(v)
		}
	}
	var rep EmbedReport
	fail := func(err error) EmbedReport {
		rep.Error = err.Error()
		if rerr := RecordStageFailure(context.WithoutCancel(ctx), db, "embed", sp.Provider, err); rerr != nil {
			rep.Error += "; " + rerr.Error()
		}
		return rep
	}
	if sp.Dim > 0 {
		n, err := BackfillCodes(ctx, db, sp, 512)
		rep.Coded = n
		if err != nil {
			return finish(ctx, db, sp, fail(err))
		}
	}
	for {
		ids, texts, err := missingBatch(ctx, db, sp, batch)
		if err != nil {
			return finish(ctx, db, sp, fail(err))
		}
		if len(ids) == 0 {
			break
		}
		vecs, got, err := e.Embed(ctx, texts)
		if err != nil {
			return finish(ctx, db, sp, fail(err))
		}
		// A model that now answers in another dimension starts a new
		// space; the old vectors stay as leftovers, never compared, and
		// every active fact is embedded again in the new one.
		moved := sp != got
		sp = got
		err = db.Tx(ctx, func(tx *store.Tx) error {
			for i, id := range ids {
				if err := StoreVector(ctx, tx, id, sp, vecs[i]); err != nil {
					return err
				}
			}
			return store.SetMeta(ctx, tx, dimKey(sp), strconv.Itoa(sp.Dim))
		})
		if err != nil {
			return finish(ctx, db, sp, fail(err))
		}
		rep.Embedded += len(ids)
		if len(ids) < batch && !moved {
			break
		}
	}
	if rep.Embedded+rep.Coded > 0 {
		// A cache: when it cannot be written a new process reads the
		// table, as it would without one.
		_, _ = vector.WriteCodeFile(ctx, db, sp)
	}
	return finish(ctx, db, sp, rep)
}

func finish(ctx context.Context, db *store.DB, sp vector.Space, rep EmbedReport) EmbedReport {
	rep.Space = sp.String()
	where, args := missingWhere(sp)
	if err := db.QueryRowContext(context.WithoutCancel(ctx), `SELECT count(*) FROM facts f WHERE `+where, args...).Scan(&rep.Missing); err != nil {
		rep.Missing = -1
		rep.Error += "; count missing vectors: " + err.Error()
	}
	return rep
}

func missingBatch(ctx context.Context, db *store.DB, sp vector.Space, n int) ([]int64, []string, error) {
	where, args := missingWhere(sp)
	rows, err := db.QueryContext(ctx, `SELECT f.id, f.content FROM facts f WHERE `+where+` ORDER BY f.id LIMIT ?`, append(args, n)...)
	if err != nil {
		return nil, nil, fmt.Errorf("select facts to embed: %w", err)
	}
	defer rows.Close()
	var ids []int64
	var texts []string
	for rows.Next() {
		var id int64
		var t string
		if err := rows.Scan(&id, &t); err != nil {
			return nil, nil, fmt.Errorf("select facts to embed: %w", err)
		}
		ids, texts = append(ids, id), append(texts, t)
	}
	return ids, texts, rows.Err()
}

// SpaceCount is how many vectors a space holds.
type SpaceCount struct {
	Space   vector.Space `json:"space"`
	Vectors int          `json:"vectors"`
}

// Coverage is the embedding picture for stats: active facts with and
// without a vector in the working space, and leftover spaces (another
// model or dimension) whose vectors are kept but never used.
type Coverage struct {
	Space    vector.Space `json:"space"`
	Embedded int          `json:"embedded"`
	Missing  int          `json:"missing"`
	Leftover []SpaceCount `json:"leftover"`
}

// EmbeddingCoverage reports coverage of active facts in sp and lists every
// other space present.
func EmbeddingCoverage(ctx context.Context, db *store.DB, sp vector.Space) (Coverage, error) {
	cov := Coverage{Space: sp, Leftover: []SpaceCount{}}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM facts f WHERE f.status = 'active' AND EXISTS
		(SELECT 1 FROM embeddings e WHERE e.fact_id = f.id AND e.provider = ? AND e.model = ? AND e.dim = ?)`,
		sp.Provider, sp.Model, sp.Dim).Scan(&cov.Embedded); err != nil {
		return cov, fmt.Errorf("embedding coverage: %w", err)
	}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM facts WHERE status = 'active'`).Scan(&cov.Missing); err != nil {
		return cov, fmt.Errorf("embedding coverage: %w", err)
	}
	cov.Missing -= cov.Embedded
	rows, err := db.QueryContext(ctx, `SELECT provider, model, dim, count(*) FROM embeddings
		WHERE NOT (provider = ? AND model = ? AND dim = ?) GROUP BY provider, model, dim ORDER BY provider, model, dim`,
		sp.Provider, sp.Model, sp.Dim)
	if err != nil {
		return cov, fmt.Errorf("embedding coverage: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var sc SpaceCount
		if err := rows.Scan(&sc.Space.Provider, &sc.Space.Model, &sc.Space.Dim, &sc.Vectors); err != nil {
			return cov, fmt.Errorf("embedding coverage: %w", err)
		}
		cov.Leftover = append(cov.Leftover, sc)
	}
	return cov, rows.Err()
}

// Vectors reads every stored vector of space sp, by fact id. Vectors of any
// other space are not read, so they can never be compared with sp's.
func Vectors(ctx context.Context, db *store.DB, sp vector.Space) (map[int64][]float32, error) {
	rows, err := db.QueryContext(ctx, `SELECT fact_id, vector FROM embeddings WHERE provider = ? AND model = ? AND dim = ?`,
		sp.Provider, sp.Model, sp.Dim)
	if err != nil {
		return nil, fmt.Errorf("read vectors of %s: %w", sp, err)
	}
	defer rows.Close()
	out := map[int64][]float32{}
	for rows.Next() {
		var id int64
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, fmt.Errorf("read vectors of %s: %w", sp, err)
		}
		v, err := vector.Decode(blob)
		if err != nil {
			return nil, fmt.Errorf("read vector of fact %d: %w", id, err)
		}
		if len(v) != sp.Dim {
			return nil, fmt.Errorf("read vector of fact %d: %d components in space %s: %w", id, len(v), sp, vector.ErrSpaceMismatch)
		}
		out[id] = v
	}
	return out, rows.Err()
}

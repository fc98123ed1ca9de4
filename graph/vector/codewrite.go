package vector

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/recollect/recollect/store"
)

// StoreCode writes the sign code of fact's vector in space sp beside the
// vector itself (integrate.StoreVector calls it in the same transaction as
// the vector; integrate.BackfillCodes for vectors stored before codes
// existed). graph's Reader picks semantic candidates by these codes.
func StoreCode(ctx context.Context, ex store.Execer, factID int64, sp Space, v []float32) error {
	if len(v) != sp.Dim {
		return fmt.Errorf("store code of fact %d: %d components in space %s: %w", factID, len(v), sp, ErrSpaceMismatch)
	}
	if _, err := ex.ExecContext(ctx, `INSERT INTO vector_codes(fact_id, provider, model, dim, code)
		SELECT ?,?,?,?,? WHERE EXISTS (SELECT 1 FROM facts WHERE id = ?)
		ON CONFLICT(fact_id, provider, model, dim) DO UPDATE SET code = excluded.code WHERE vector_codes.code != excluded.code`,
		factID, sp.Provider, sp.Model, sp.Dim, SignCode(v), factID); err != nil {
		return fmt.Errorf("store code of fact %d: %w", factID, err)
	}
	return nil
}

// WriteCodeFile brings space sp's code file (see CodeFile) up to date
// when the table holds enough codes the file lacks (CodeFileDue), or the
// file no longer matches the table, so a new process reads the codes in
// one sequential read. It reports whether it wrote the code
// file. It then brings the space's vector file up to date (see
// writeVectorFile). Both files are caches: a reader without them reads the
// table.
func WriteCodeFile(ctx context.Context, db *store.DB, sp Space) (bool, error) {
	f, fromTable, err := LoadCodes(ctx, db, sp)
	if err != nil {
		return false, fmt.Errorf("write code file of %s: %w", sp, err)
	}
	wrote, err := writeCodeFile(ctx, db, sp, f, fromTable)
	if err != nil {
		return wrote, err
	}
	return wrote, writeVectorFile(ctx, db, sp, f)
}

// writeCodeFile writes the codes f (fromTable of them read from the
// table) as sp's code file when the tail is long enough.
func writeCodeFile(ctx context.Context, db *store.DB, sp Space, f CodeFile, fromTable int) (bool, error) {
	path := CodeFilePath(db.Dir, sp)
	if !CodeFileDue(fromTable, len(f.IDs)) {
		if fromTable == len(f.IDs) {
			// Nothing came from the file: a file there is stale (it may
			// hold codes of deleted facts), so it goes.
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return false, fmt.Errorf("remove stale code file of %s: %w", sp, err)
			}
		}
		return false, nil
	}
	// The file records how many vectors lack a code, so a reader that
	// finds none missing need not count them.
	var vectors int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM embeddings WHERE provider = ? AND model = ? AND dim = ?`,
		sp.Provider, sp.Model, sp.Dim).Scan(&vectors); err != nil {
		return false, fmt.Errorf("write code file of %s: count vectors: %w", sp, err)
	}
	f.Missing = max(vectors-int64(len(f.IDs)), 0)
	buf, err := f.MarshalBinary()
	if err != nil {
		return false, fmt.Errorf("write code file of %s: %w", sp, err)
	}
	tmp, err := os.CreateTemp(db.Dir, ".vector-codes-*")
	if err != nil {
		return false, fmt.Errorf("write code file of %s: %w", sp, err)
	}
	_, werr := tmp.Write(buf)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return false, fmt.Errorf("write code file of %s: %w", sp, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return false, fmt.Errorf("write code file of %s: %w", sp, err)
	}
	return true, nil
}

// RemoveCodeFiles deletes every code file and vector file in data
// directory dir. Forget calls it: the files cache sign codes and vectors of
// the facts it deletes, and the next embedding step writes them again.
func RemoveCodeFiles(dir string) error {
	codes, err := filepath.Glob(filepath.Join(dir, CodeFilePattern))
	if err != nil {
		return fmt.Errorf("remove code files: %w", err)
	}
	vectors, err := filepath.Glob(filepath.Join(dir, VectorFilePattern))
	if err != nil {
		return fmt.Errorf("remove code files: %w", err)
	}
	for _, f := range append(codes, vectors...) {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove code files: %w", err)
		}
	}
	return nil
}

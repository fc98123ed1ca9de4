package vector

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/recollect/recollect/store"
)

// vectorFileChunk is how many vectors writeVectorFile reads from the table
// in one statement.
const vectorFileChunk = 512

// writeVectorFile brings space sp's vector file (see VectorFilePath)
// up to date with the codes f, as LoadCodes read them: row r holds the
// vector of f.IDs[r]. A file that still fits the codes (same removal
// counter, its last row on the same fact) gets the rows added since
// appended, the header rewritten after them; any other is rewritten whole,
// by rename. The rows stop before a fact whose vector is missing or of
// another length: its candidates are read from the table. A space small
// enough for the similarity arm to score every vector from the table
// (ExactUpTo) has no file.
func writeVectorFile(ctx context.Context, db *store.DB, sp Space, f CodeFile) error {
	path := VectorFilePath(db.Dir, sp)
	if len(f.IDs) <= ExactUpTo {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove the vector file of %s: %w", sp, err)
		}
		return nil
	}
	if fh, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
		h, ok := ReadVectorFileHeader(fh)
		if ok && h.FitsCodes(sp, f.Removed, f.IDs) {
			err := appendVectors(ctx, db, sp, fh, h, f.IDs)
			return errors.Join(err, fh.Close())
		}
		fh.Close()
	}
	tmp, err := os.CreateTemp(db.Dir, ".vector-floats-*")
	if err != nil {
		return fmt.Errorf("write the vector file of %s: %w", sp, err)
	}
	h := VectorFileHeader{Removed: f.Removed, Dim: int64(sp.Dim)}
	err = appendVectors(ctx, db, sp, tmp, h, f.IDs)
	if err := errors.Join(err, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write the vector file of %s: %w", sp, err)
	}
	return nil
}

// appendVectors writes the vectors of ids[h.Rows:] after the h.Rows rows
// fh holds, makes them durable, and only then writes the header that
// counts them: a reader, or a crash, never sees a row the header counts
// before it is whole.
func appendVectors(ctx context.Context, db *store.DB, sp Space, fh *os.File, h VectorFileHeader, ids []int64) error {
	size := int64(4 * sp.Dim)
	w := bufio.NewWriterSize(io.NewOffsetWriter(fh, int64(VectorFileHeaderSize)+h.Rows*size), 1<<20)
	rows := h.Rows
	// Rows are appended while each fact has its vector; the first one
	// without ends the file.
	whole := true
	for start := int(h.Rows); whole && start < len(ids); start += vectorFileChunk {
		chunk := ids[start:min(start+vectorFileChunk, len(ids))]
		vecs, err := readVectors(ctx, db, sp, chunk)
		if err != nil {
			return fmt.Errorf("write the vector file of %s: %w", sp, err)
		}
		for _, id := range chunk {
			v := vecs[id]
			if int64(len(v)) != size {
				whole = false
				break
			}
			if _, err := w.Write(v); err != nil {
				return fmt.Errorf("write the vector file of %s: %w", sp, err)
			}
			rows++
		}
	}
	if rows == h.Rows && h.Rows > 0 {
		return nil
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write the vector file of %s: %w", sp, err)
	}
	if err := fh.Sync(); err != nil {
		return fmt.Errorf("write the vector file of %s: %w", sp, err)
	}
	h.Rows = rows
	if rows > 0 {
		h.LastFact = ids[rows-1]
	}
	hdr, err := h.MarshalBinary()
	if err != nil {
		return fmt.Errorf("write the vector file of %s: %w", sp, err)
	}
	if _, err := fh.WriteAt(hdr, 0); err != nil {
		return fmt.Errorf("write the vector file of %s: %w", sp, err)
	}
	if err := fh.Sync(); err != nil {
		return fmt.Errorf("write the vector file of %s: %w", sp, err)
	}
	return nil
}

// readVectors reads the stored vectors (Encode's bytes) of ids in
// space sp.
func readVectors(ctx context.Context, db *store.DB, sp Space, ids []int64) (map[int64][]byte, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	rows, err := db.QueryContext(ctx, `SELECT e.fact_id, e.vector FROM `+db.Engine().JSONInts("?", "j")+` CROSS JOIN embeddings e
		WHERE e.fact_id = CAST(j.value AS BIGINT) AND e.provider = ? AND e.model = ? AND e.dim = ?`,
		string(list), sp.Provider, sp.Model, sp.Dim)
	if err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	defer rows.Close()
	out := make(map[int64][]byte, len(ids))
	for rows.Next() {
		var id int64
		var v []byte
		if err := rows.Scan(&id, &v); err != nil {
			return nil, fmt.Errorf("read vectors: %w", err)
		}
		out[id] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	return out, nil
}

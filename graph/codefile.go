package graph

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/recollect/recollect/store"
)

// A code file keeps one space's sign codes in the data directory as one
// contiguous block, so a new process reads them in a single sequential
// read instead of a row per vector. It is a cache of vector_codes, never
// the truth: it names the table's removal counter and the highest row it
// holds, and a reader uses it only when the counter is unchanged and that
// row still holds the file's last code; rows added since are read from
// the table as usual. Whoever loaded many codes from the table rewrites
// it (atomically, by rename).

const codeFileMagic = "RCVCODE1"

// codeFileHeader is the file's fixed start: magic, then five int64s.
const codeFileHeader = len(codeFileMagic) + 5*8

// rewriteAfter is how many codes a load must have read from the table
// before it rewrites the file: small tails are cheap to read each time.
const rewriteAfter = 1024

// codeFilePath is space sp's code file in dir.
func codeFilePath(dir string, sp Space) string {
	h := sha256.Sum256([]byte(sp.String()))
	return filepath.Join(dir, "vector-codes-"+hex.EncodeToString(h[:8])+".bin")
}

// codeFile is what a code file holds.
type codeFile struct {
	removed, maxRowid, lastRowid int64
	ids                          []int64
	codes                        []uint64
}

// readCodeFile reads sp's code file; ok is false when there is none or it
// does not fit sp (any other error is a damaged file and is also ignored
// by callers: the table is the truth).
func readCodeFile(dir string, sp Space) (codeFile, bool) {
	data, err := os.ReadFile(codeFilePath(dir, sp))
	if err != nil || len(data) < codeFileHeader || string(data[:len(codeFileMagic)]) != codeFileMagic {
		return codeFile{}, false
	}
	h := data[len(codeFileMagic):]
	word := func(i int) int64 { return int64(binary.LittleEndian.Uint64(h[8*i:])) }
	f := codeFile{removed: word(0), maxRowid: word(1), lastRowid: word(2)}
	n, words := word(3), word(4)
	if words != int64((sp.Dim+63)/64) || n < 0 || int64(len(data)-codeFileHeader) != n*8*(1+words) {
		return codeFile{}, false
	}
	body := data[codeFileHeader:]
	f.ids = make([]int64, n)
	for i := range f.ids {
		f.ids[i] = int64(binary.LittleEndian.Uint64(body[8*i:]))
	}
	body = body[8*n:]
	f.codes = make([]uint64, n*words)
	for i := range f.codes {
		f.codes[i] = binary.LittleEndian.Uint64(body[8*i:])
	}
	return f, true
}

// writeCodeFile replaces sp's code file with cs.
func writeCodeFile(dir string, sp Space, cs *codeSet) error {
	buf := make([]byte, codeFileHeader, codeFileHeader+8*(len(cs.ids)+len(cs.codes)))
	copy(buf, codeFileMagic)
	for i, v := range []int64{cs.removed, cs.maxRowid, cs.lastRowid, int64(len(cs.ids)), int64(cs.words)} {
		binary.LittleEndian.PutUint64(buf[len(codeFileMagic)+8*i:], uint64(v))
	}
	for _, id := range cs.ids {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(id))
	}
	for _, c := range cs.codes {
		buf = binary.LittleEndian.AppendUint64(buf, c)
	}
	tmp, err := os.CreateTemp(dir, ".vector-codes-*")
	if err != nil {
		return fmt.Errorf("write code file: %w", err)
	}
	_, werr := tmp.Write(buf)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write code file: %w", err)
	}
	if err := os.Rename(tmp.Name(), codeFilePath(dir, sp)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write code file: %w", err)
	}
	return nil
}

// RemoveCodeFiles deletes every code file in dir. Forget calls it: the
// files cache sign codes of the facts it deletes, and the next process
// that loads many codes writes them again.
func RemoveCodeFiles(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "vector-codes-*.bin"))
	if err != nil {
		return fmt.Errorf("remove code files: %w", err)
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove code files: %w", err)
		}
	}
	return nil
}

// fromCodeFile fills an empty cs from sp's code file when the file still
// matches the table: the same removal counter, no row beyond the table's
// highest, and its last row holding the file's last fact in sp. It
// reports whether it did.
func (cs *codeSet) fromCodeFile(ctx context.Context, db *store.DB, sp Space, maxRowid int64) (bool, error) {
	f, ok := readCodeFile(db.Dir, sp)
	if !ok {
		return false, nil
	}
	if f.removed != cs.removed || f.maxRowid > maxRowid {
		// Stale: it may hold codes of deleted facts, so it goes now.
		os.Remove(codeFilePath(db.Dir, sp))
		return false, nil
	}
	if len(f.ids) > 0 {
		var fact int64
		err := db.QueryRowContext(ctx, `SELECT fact_id FROM vector_codes WHERE id = ? AND provider = ? AND model = ? AND dim = ?`,
			f.lastRowid, sp.Provider, sp.Model, sp.Dim).Scan(&fact)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && fact != f.ids[len(f.ids)-1]) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("vector index: check the code file of %s: %w", sp, err)
		}
	}
	cs.ids, cs.codes, cs.maxRowid, cs.lastRowid = f.ids, f.codes, f.maxRowid, f.lastRowid
	return true, nil
}

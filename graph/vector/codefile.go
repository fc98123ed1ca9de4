package vector

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/recollect/recollect/store"
)

// A code file keeps one space's sign codes in the data directory as one
// contiguous block, so a new process reads them in a single sequential
// read instead of a row per vector. It is a cache of vector_codes, never
// the truth: it names the table's removal counter and the highest row it
// holds, and a reader uses it only when the counter is unchanged and that
// row still holds the file's last code; rows added since are read from
// the table as usual. graph's Reader only reads code files; integrate's
// embedding step, which writes the codes, writes them through
// WriteCodeFile (atomically, by rename) after a step that left enough
// codes outside the file (see CodeFileDue), and forget removes them
// (RemoveCodeFiles).

const codeFileMagic = "RCVCODE2"

// codeFileHeader is the file's fixed start: magic, then six int64s (a
// multiple of 8 bytes, so the ids and codes after it are aligned).
const codeFileHeader = len(codeFileMagic) + 6*8

// CodeFileTail is how many codes the table must hold beyond a space's
// code file before integrate rewrites it, however large the space: small
// tails are cheap to read each time.
const CodeFileTail = 1024

// CodeFileDue reports whether a space of codes codes, fromTable of them
// read from the table, deserves its code file written again: when the
// tail is CodeFileTail or more, or an eighth of the codes or more. A
// small space (a thousand codes) would otherwise have no file at all and
// each new process read every code by row, the cost of its first search;
// rewriting only after an eighth more keeps the writes at about eight
// codes per code added.
func CodeFileDue(fromTable, codes int) bool {
	return fromTable > 0 && (fromTable >= CodeFileTail || 8*fromTable >= codes)
}

// CodeFilePattern matches every code file's name in a data directory.
const CodeFilePattern = "vector-codes-*.bin"

// CodeFilePath is space sp's code file in data directory dir.
func CodeFilePath(dir string, sp Space) string {
	h := sha256.Sum256([]byte(sp.String()))
	return filepath.Join(dir, "vector-codes-"+hex.EncodeToString(h[:8])+".bin")
}

// CodeFile is one space's sign codes as of a row of vector_codes: what a
// code file holds and what LoadCodes returns.
type CodeFile struct {
	// Removed is the table's removal counter, MaxRowid the highest row
	// read and LastRowid the highest row of this space's codes.
	Removed, MaxRowid, LastRowid int64
	// IDs are the facts, in row order; Codes holds Words uint64s per id.
	IDs   []int64
	Codes []uint64
	Words int
	// Missing counts the space's vectors without a code when the file
	// was written (integrate backfills them first, so usually none). A
	// vector stored since comes with its code, so a file's zero stays true
	// and a reader need not count the vectors again.
	Missing int64
}

// MarshalBinary renders f in the code-file format ReadCodeFile reads.
func (f CodeFile) MarshalBinary() ([]byte, error) {
	buf := make([]byte, codeFileHeader, codeFileHeader+8*(len(f.IDs)+len(f.Codes)))
	copy(buf, codeFileMagic)
	for i, v := range []int64{f.Removed, f.MaxRowid, f.LastRowid, int64(len(f.IDs)), int64(f.Words), f.Missing} {
		binary.LittleEndian.PutUint64(buf[len(codeFileMagic)+8*i:], uint64(v))
	}
	for _, id := range f.IDs {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(id))
	}
	for _, c := range f.Codes {
		buf = binary.LittleEndian.AppendUint64(buf, c)
	}
	return buf, nil
}

// ReadCodeFile reads sp's code file in dir; ok is false when there is none
// or it does not fit sp (a damaged file is also ignored: the table is the
// truth). The file is read once, straight into the memory its ids and codes
// are then read from: on a little-endian machine they are never decoded or
// copied again, so a new process's first search pays one sequential read.
func ReadCodeFile(dir string, sp Space) (f CodeFile, ok bool) {
	fh, size, ok := openCodeFile(dir, sp)
	if !ok {
		return CodeFile{}, false
	}
	defer fh.Close()
	buf := make([]uint64, size/8)
	data := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), len(buf)*8)
	if _, err := io.ReadFull(fh, data); err != nil {
		return CodeFile{}, false
	}
	f, ok = codeFileOf(buf, sp)
	if ok && !littleEndian() {
		body := buf[codeFileHeader/8:]
		for i, v := range body {
			body[i] = binary.LittleEndian.Uint64(unsafe.Slice((*byte)(unsafe.Pointer(&v)), 8))
		}
	}
	return f, ok
}

// mapCodeFile is ReadCodeFile for a reader: the file mapped into memory
// rather than read, so a new process pays only for the pages its first
// Hamming pass touches, with no copy (at 100k codes the read was 10 MB).
// The returned ids and codes live as long as the mapping; where files
// cannot be mapped, or the machine is big-endian, it reads the file and the
// mapping is nil.
func mapCodeFile(dir string, sp Space) (CodeFile, *mapping, bool) {
	if !littleEndian() {
		f, ok := ReadCodeFile(dir, sp)
		return f, nil, ok
	}
	fh, size, ok := openCodeFile(dir, sp)
	if !ok {
		return CodeFile{}, nil, false
	}
	defer fh.Close()
	m, err := mapFile(fh, int(size))
	if err != nil {
		f, ok := ReadCodeFile(dir, sp)
		return f, nil, ok
	}
	// A mapping starts on a page, so its words are aligned.
	f, ok := codeFileOf(unsafe.Slice((*uint64)(unsafe.Pointer(&m.data[0])), len(m.data)/8), sp)
	if !ok {
		return CodeFile{}, nil, false
	}
	return f, m, true
}

// openCodeFile opens sp's code file in dir when its size can hold one.
func openCodeFile(dir string, sp Space) (*os.File, int64, bool) {
	fh, err := os.Open(CodeFilePath(dir, sp))
	if err != nil {
		return nil, 0, false
	}
	fi, err := fh.Stat()
	if err != nil || fi.Size() < int64(codeFileHeader) || fi.Size()%8 != 0 {
		fh.Close()
		return nil, 0, false
	}
	return fh, fi.Size(), true
}

// codeFileOf reads a code file's words (as stored, little-endian): the
// header, then the ids and codes as slices of buf; ok is false when they
// do not fit sp or the file's length.
func codeFileOf(buf []uint64, sp Space) (f CodeFile, ok bool) {
	data := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), len(buf)*8)
	if string(data[:len(codeFileMagic)]) != codeFileMagic {
		return CodeFile{}, false
	}
	h := data[len(codeFileMagic):]
	word := func(i int) int64 { return int64(binary.LittleEndian.Uint64(h[8*i:])) }
	f = CodeFile{Removed: word(0), MaxRowid: word(1), LastRowid: word(2), Words: (sp.Dim + 63) / 64, Missing: word(5)}
	n, words := word(3), word(4)
	if words != int64(f.Words) || n < 0 || int64(len(data)-codeFileHeader) != n*8*(1+words) || f.Missing < 0 {
		return CodeFile{}, false
	}
	body := buf[codeFileHeader/8:]
	ids, codes := body[:n:n], body[n:len(body):len(body)]
	f.IDs = unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(ids))), len(ids))
	f.Codes = codes
	return f, true
}

// littleEndian reports whether this machine stores integers low byte
// first, as the code file does.
func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// fromCodeFile fills an empty cs from sp's code file when the file still
// matches the table: the same removal counter, no row beyond the table's
// highest, and its last row holding the file's last fact in sp. It
// reports whether it did; a stale file is left for integrate to replace.
// A reader maps the file (see mapCodeFile); LoadCodes, whose codes are
// written out again, reads it.
func (cs *CodeSet) fromCodeFile(ctx context.Context, db *store.DB, sp Space, maxRowid int64, mapped bool) (bool, error) {
	var f CodeFile
	var m *mapping
	ok := false
	if mapped {
		f, m, ok = mapCodeFile(db.Dir, sp)
	} else {
		f, ok = ReadCodeFile(db.Dir, sp)
	}
	if !ok || f.Removed != cs.Removed || f.MaxRowid > maxRowid {
		return false, nil
	}
	if len(f.IDs) > 0 {
		var fact int64
		err := db.QueryRowContext(ctx, `SELECT fact_id FROM vector_codes WHERE id = ? AND provider = ? AND model = ? AND dim = ?`,
			f.LastRowid, sp.Provider, sp.Model, sp.Dim).Scan(&fact)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && fact != f.IDs[len(f.IDs)-1]) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("vector index: check the code file of %s: %w", sp, err)
		}
	}
	cs.CodeFile, cs.m = f, m
	return true, nil
}

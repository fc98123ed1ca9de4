package vector

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
)

// A vector file keeps one space's vectors beside its code file, row for
// row in the order of the codes (the order of CodeFile.IDs), each as the
// bytes Encode stored in the table. The similarity arm maps it into
// memory and scores the candidates its codes pick straight from the
// mapping: no row read per candidate, and a new process pays only for the
// pages it touches. Like the code file it is a cache of the table, never
// the truth: it names the table's removal counter and the fact of its last
// row, and a reader uses its rows only when the counter is unchanged and
// that row of its codes holds the same fact; candidates beyond its rows
// are read from the table. WriteCodeFile writes it after integrate's
// embedding step: it appends the rows added since (the header last, after
// the rows are on disk) and rewrites it whole once a code was removed or
// changed.

const vectorFileMagic = "RCVVEC01"

// VectorFileHeaderSize is the vector file's fixed start: magic, then four
// int64s (removal counter, rows, dimension, fact of the last row).
const VectorFileHeaderSize = len(vectorFileMagic) + 4*8

// VectorFilePattern matches every vector file's name in a data directory.
const VectorFilePattern = "vector-floats-*.bin"

// VectorFilePath is space sp's vector file in data directory dir.
func VectorFilePath(dir string, sp Space) string {
	h := sha256.Sum256([]byte(sp.String()))
	return filepath.Join(dir, "vector-floats-"+hex.EncodeToString(h[:8])+".bin")
}

// VectorFileHeader is what a vector file says of itself.
type VectorFileHeader struct {
	// Removed is the table's removal counter when the rows were written;
	// Rows how many vectors follow, of Dim components; LastFact the fact
	// of the last row.
	Removed  int64
	Rows     int64
	Dim      int64
	LastFact int64
}

// MarshalBinary renders h as the file's first VectorFileHeaderSize bytes.
func (h VectorFileHeader) MarshalBinary() ([]byte, error) {
	buf := make([]byte, VectorFileHeaderSize)
	copy(buf, vectorFileMagic)
	for i, v := range []int64{h.Removed, h.Rows, h.Dim, h.LastFact} {
		binary.LittleEndian.PutUint64(buf[len(vectorFileMagic)+8*i:], uint64(v))
	}
	return buf, nil
}

// ReadVectorFileHeader reads the header of the vector file f and checks
// that the file holds every row it announces; ok is false otherwise.
func ReadVectorFileHeader(f *os.File) (h VectorFileHeader, ok bool) {
	buf := make([]byte, VectorFileHeaderSize)
	if _, err := f.ReadAt(buf, 0); err != nil || string(buf[:len(vectorFileMagic)]) != vectorFileMagic {
		return h, false
	}
	word := func(i int) int64 { return int64(binary.LittleEndian.Uint64(buf[len(vectorFileMagic)+8*i:])) }
	h = VectorFileHeader{Removed: word(0), Rows: word(1), Dim: word(2), LastFact: word(3)}
	fi, err := f.Stat()
	if err != nil || h.Rows < 0 || h.Dim <= 0 || h.Rows > (fi.Size()-int64(VectorFileHeaderSize))/(4*h.Dim) {
		return h, false
	}
	return h, true
}

// FitsCodes reports whether the file's rows are the first rows of a code
// set with removal counter removed and facts ids: the same counter, no
// more rows than ids, and its last row on the same fact.
func (h VectorFileHeader) FitsCodes(sp Space, removed int64, ids []int64) bool {
	return h.fits(sp, removed, int64(len(ids)), func(r int) int64 { return ids[r] })
}

// fits is FitsCodes of a code set of rows codes, the fact of row r being
// id(r).
func (h VectorFileHeader) fits(sp Space, removed, rows int64, id func(int) int64) bool {
	return h.Removed == removed && h.Dim == int64(sp.Dim) && h.Rows > 0 && h.Rows <= rows && id(int(h.Rows-1)) == h.LastFact
}

// vectorRows is a vector file mapped into memory: row r holds the vector
// of the code set's r-th id. The mapping is released once nothing refers
// to its vectorRows; whoever reads rows keeps it alive until done.
type vectorRows struct {
	m    *mapping
	rows int
	size int // bytes a row
}

// row returns row r's bytes; nil beyond the file's rows.
func (v *vectorRows) row(r int) []byte {
	if v == nil || r >= v.rows {
		return nil
	}
	off := VectorFileHeaderSize + r*v.size
	return v.m.data[off : off+v.size : off+v.size]
}

// openVectorRows maps sp's vector file in dir when it fits the code set
// cs (see FitsCodes); nil when there is none, it does not fit, or this
// platform maps no files: the arm then reads every candidate from the
// table.
func openVectorRows(dir string, sp Space, cs CodeSet) *vectorRows {
	f, err := os.Open(VectorFilePath(dir, sp))
	if err != nil {
		return nil
	}
	defer f.Close()
	h, ok := ReadVectorFileHeader(f)
	if !ok || !h.fits(sp, cs.Removed, int64(cs.Rows()), cs.ID) {
		return nil
	}
	size := 4 * sp.Dim
	m, err := mapFile(f, VectorFileHeaderSize+int(h.Rows)*size)
	if err != nil {
		return nil
	}
	return &vectorRows{m: m, rows: int(h.Rows), size: size}
}

// mapping is a read-only view of a file's first bytes; see mapFile.
type mapping struct {
	data []byte
}

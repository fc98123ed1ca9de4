package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
)

// readVectorHeader reads the header of sp's vector file in db's directory.
func readVectorHeader(t *testing.T, db *store.DB, sp vector.Space) (vector.VectorFileHeader, os.FileInfo) {
	t.Helper()
	f, err := os.Open(vector.VectorFilePath(db.Dir, sp))
	if err != nil {
		t.Fatalf("vector file: %v", err)
	}
	defer f.Close()
	h, ok := vector.ReadVectorFileHeader(f)
	if !ok {
		t.Fatalf("vector file %s: unreadable header", f.Name())
	}
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return h, fi
}

// TestVectorFileServesTheArm: the embedding step's WriteCodeFile writes
// the space's vector file, a row per code; a new handle scores candidates
// from it — proved by zeroing its rows, after which nothing reaches the
// floors — with answers byte for byte those of the table; rows added later
// are appended (same file, header moved on), candidates beyond them read
// from the table; a removed code or a vector stored again with other
// numbers makes the file stale, so the table answers until it is
// rewritten.
func TestVectorFileServesTheArm(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	sp := vector.Space{Provider: "ollama", Model: "m", Dim: 64}
	rng := rand.New(rand.NewPCG(9, 10))
	data := clustered(rng, 1300, 40, sp.Dim, 0.5)
	ids := make([]int64, len(data))
	for i, v := range data {
		ids[i] = addFact(t, db, fact{content: fmt.Sprintf("fact %d about topic %d", i, i%7)})
		if err := integrate.StoreVector(ctx, db, ids[i], sp, v); err != nil {
			t.Fatal(err)
		}
	}
	reopen := func() *graph.Reader { t.Helper(); return reopenReader(t, db.Dir) }
	// answersOf renders r's answers to a few queries, text and vector, as
	// the JSON a client gets; answers those of a new handle.
	answersOf := func(r *graph.Reader) string {
		t.Helper()
		var out []graph.Answer
		for _, qi := range []int{0, 17, 640, 1299} {
			out = append(out, searchWith(t, r, graph.Query{Text: fmt.Sprintf("topic %d", qi%7), Vector: data[qi], Space: sp, Limit: 20}))
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	answers := func() string { t.Helper(); return answersOf(reopen()) }
	fromTable := answers()
	if _, err := vector.WriteCodeFile(ctx, db, sp); err != nil {
		t.Fatal(err)
	}
	h, before := readVectorHeader(t, db, sp)
	if h.Rows != int64(len(data)) || h.Dim != int64(sp.Dim) || h.LastFact != ids[len(ids)-1] {
		t.Fatalf("vector file header %+v, want %d rows of %d, last fact %d", h, len(data), sp.Dim, ids[len(ids)-1])
	}
	if got := answers(); got != fromTable {
		t.Fatalf("answers through the vector file differ from the table's:\n%s\nwant\n%s", got, fromTable)
	}
	// A long-running reader keeps its mappings and follows the file as it
	// is appended to and rewritten.
	warm := reopen()
	if got := answersOf(warm); got != fromTable {
		t.Fatalf("a long-running reader's answers differ from the table's:\n%s\nwant\n%s", got, fromTable)
	}

	// A late vector is appended to the same file.
	late := addFact(t, db, fact{content: "late fact"})
	if err := integrate.StoreVector(ctx, db, late, sp, data[640]); err != nil {
		t.Fatal(err)
	}
	if top := semanticTop(t, reopen(), sp, data[640], 5); !slices.Contains(top, late) {
		t.Fatalf("new handle before the append: top %v lacks the late fact %d (read from the table)", top, late)
	}
	if _, err := vector.WriteCodeFile(ctx, db, sp); err != nil {
		t.Fatal(err)
	}
	h, after := readVectorHeader(t, db, sp)
	if h.Rows != int64(len(data))+1 || h.LastFact != late || !os.SameFile(before, after) {
		t.Fatalf("after one more vector: header %+v (same file %v), want %d rows ending on fact %d, appended in place",
			h, os.SameFile(before, after), len(data)+1, late)
	}
	withLate := answers()
	if got := answersOf(warm); got != withLate {
		t.Fatalf("after the append, a long-running reader's answers differ from a new handle's:\n%s\nwant\n%s", got, withLate)
	}

	// Zero every row, header intact: a handle that reads the file finds
	// no candidate above the floors.
	path := vector.VectorFilePath(db.Dir, sp)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zeroed := slices.Clone(raw)
	clear(zeroed[vector.VectorFileHeaderSize:])
	if err := os.WriteFile(path, zeroed, 0o600); err != nil {
		t.Fatal(err)
	}
	if top := semanticTop(t, reopen(), sp, data[17], 5); len(top) != 0 {
		t.Fatalf("new handle over zeroed vector rows: top %v, want none: the file was not read", top)
	}
	// A vector stored again with other numbers keeps its sign code; the
	// file is stale all the same, and the table answers.
	moved := slices.Clone(data[3])
	moved[0] *= 1.0001
	if err := integrate.StoreVector(ctx, db, ids[3], sp, moved); err != nil {
		t.Fatal(err)
	}
	if top := semanticTop(t, reopen(), sp, data[17], 5); len(top) == 0 || top[0] != ids[17] {
		t.Fatalf("after a vector changed: top %v, want fact %d first, from the table", top, ids[17])
	}
	if _, err := vector.WriteCodeFile(ctx, db, sp); err != nil {
		t.Fatal(err)
	}
	if h, again := readVectorHeader(t, db, sp); h.Rows != int64(len(data))+1 || os.SameFile(after, again) {
		t.Fatalf("after a changed vector: header %+v (same file %v), want the file rewritten with %d rows", h, os.SameFile(after, again), len(data)+1)
	}
	if err := integrate.StoreVector(ctx, db, ids[3], sp, data[3]); err != nil {
		t.Fatal(err)
	}
	if _, err := vector.WriteCodeFile(ctx, db, sp); err != nil {
		t.Fatal(err)
	}
	if got := answers(); got != withLate {
		t.Fatalf("answers through the rewritten vector file differ from before:\n%s\nwant\n%s", got, withLate)
	}
	if got := answersOf(warm); got != withLate {
		t.Fatalf("after the rewrite, a long-running reader's answers differ:\n%s\nwant\n%s", got, withLate)
	}
	// A truncated file is never read.
	raw, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw[:len(raw)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	if got := answers(); got != withLate {
		t.Fatalf("answers beside a truncated vector file differ from the table's:\n%s\nwant\n%s", got, withLate)
	}
}

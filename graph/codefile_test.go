package graph_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store/sqlite"
)

// TestCodeFileServesANewProcess: a reader never writes the code file (the
// embedding step does); a new reader (a new process) takes its codes from
// the file — proved by damaging the codes in it — and the rows added since
// from the table; once a code is removed the file no longer matches and
// the table is read again.
func TestCodeFileServesANewProcess(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	sp := vector.Space{Provider: "ollama", Model: "m", Dim: 64}
	rng := rand.New(rand.NewPCG(7, 8))
	data := clustered(rng, 1300, 40, sp.Dim, 0.5)
	ids := make([]int64, len(data))
	for i, v := range data {
		ids[i] = addFact(t, db, fact{content: fmt.Sprintf("fact %d", i)})
		addCodedVector(t, db, ids[i], sp, v)
	}
	q := data[1200]
	first := graph.NewReader(db)
	defer first.Close()
	if top := semanticTop(t, first, sp, q, 5); top[0] != ids[1200] {
		t.Fatalf("first reader: top %v, want fact %d", top, ids[1200])
	}
	files, _ := filepath.Glob(filepath.Join(db.Dir, vector.CodeFilePattern))
	if len(files) != 0 {
		t.Fatalf("code files after a reader's first load: %v, want none: the read side only reads", files)
	}
	if wrote, err := vector.WriteCodeFile(ctx, db, sp); err != nil || !wrote {
		t.Fatalf("WriteCodeFile over %d codes: wrote %v, %v", len(data), wrote, err)
	}
	files, _ = filepath.Glob(filepath.Join(db.Dir, vector.CodeFilePattern))
	if len(files) != 1 {
		t.Fatalf("code files after WriteCodeFile: %v, want one", files)
	}
	late := addFact(t, db, fact{content: "late"})
	addCodedVector(t, db, late, sp, q)

	reopen := func() *graph.Reader { t.Helper(); return reopenReader(t, db.Dir) }
	if top := semanticTop(t, reopen(), sp, q, 5); len(top) < 2 || !(top[0] == late || top[1] == late) {
		t.Fatalf("new handle: top %v lacks the vector added after the file", top)
	}

	// Zero every code in the file, header intact: a new handle that uses
	// it picks candidates by id order and misses fact 1200.
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	const header = 8 + 6*8
	n := (len(raw) - header) / 8 / 2 // one id and one 64-bit word per code
	for i := header + 8*n; i < len(raw); i++ {
		raw[i] = 0
	}
	if err := os.WriteFile(files[0], raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if top := semanticTop(t, reopen(), sp, data[1000], 5); len(top) > 0 && top[0] == ids[1000] {
		t.Fatalf("new handle found fact %d through zeroed codes: the file was not read", ids[1000])
	}

	// A removed code changes the table's removal counter: the file is
	// stale and the next handle reads the table.
	if _, err := db.Exec(`DELETE FROM embeddings WHERE fact_id = ?`, ids[3]); err != nil {
		t.Fatal(err)
	}
	if top := semanticTop(t, reopen(), sp, data[1000], 5); top[0] != ids[1000] {
		t.Fatalf("after a removal: top %v, want fact %d from the table", top, ids[1000])
	}
}

// TestCodeFileCountsVectorsWithoutCodes: a code file written while some
// vectors still lack a code (stored before codes existed) says how many,
// and a new process reading it still scores every vector, so the uncoded
// one is found; once backfilled and rewritten, the file says none.
func TestCodeFileCountsVectorsWithoutCodes(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	sp := vector.Space{Provider: "ollama", Model: "m", Dim: 64}
	rng := rand.New(rand.NewPCG(9, 10))
	for i, v := range clustered(rng, 1300, 40, sp.Dim, 0.5) {
		addCodedVector(t, db, addFact(t, db, fact{content: fmt.Sprintf("fact %d", i)}), sp, v)
	}
	q := make([]float32, sp.Dim)
	for i := range q {
		q[i] = float32(i%7) - 3
	}
	uncoded := addFact(t, db, fact{content: "stored before codes"})
	addVector(t, db, uncoded, sp, q)
	if wrote, err := vector.WriteCodeFile(ctx, db, sp); err != nil || !wrote {
		t.Fatalf("WriteCodeFile: wrote %v, %v", wrote, err)
	}
	if f, ok := vector.ReadCodeFile(db.Dir, sp); !ok || f.Missing != 1 || len(f.IDs) != 1300 {
		t.Fatalf("code file: ok %v, %d codes, %d missing; want 1300 codes and 1 missing", ok, len(f.IDs), f.Missing)
	}
	h, err := sqlite.Open(ctx, db.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	r := graph.NewReader(h)
	defer r.Close()
	if top := semanticTop(t, r, sp, q, 5); len(top) == 0 || top[0] != uncoded {
		t.Fatalf("new handle: top %v, want the vector without a code (%d) first", top, uncoded)
	}
	if _, err := integrate.BackfillCodes(ctx, db, sp, 100); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(vector.CodeFilePath(db.Dir, sp)); err != nil {
		t.Fatal(err)
	}
	if wrote, err := vector.WriteCodeFile(ctx, db, sp); err != nil || !wrote {
		t.Fatalf("WriteCodeFile after the backfill: wrote %v, %v", wrote, err)
	}
	if f, ok := vector.ReadCodeFile(db.Dir, sp); !ok || f.Missing != 0 || len(f.IDs) != 1301 {
		t.Fatalf("code file after the backfill: ok %v, %d codes, %d missing; want 1301 codes and none missing", ok, len(f.IDs), f.Missing)
	}
}

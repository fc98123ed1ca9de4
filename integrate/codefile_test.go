package integrate_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// TestEmbeddingWritesTheCodeFile: the embedding step writes a space's
// first codes to its code file at once, however few; a step that adds
// less than vector.CodeFileDue asks for (an eighth of the codes, or
// vector.CodeFileTail) leaves the file as it is (a new reader reads those
// few from the table), one that adds more rewrites it; the vector file
// gets a row per code at every step; after forget's RemoveCodeFiles there
// is neither.
func TestEmbeddingWritesTheCodeFile(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		addFacts := func(n, from int) {
			t.Helper()
			for i := from; i < from+n; i++ {
				content := fmt.Sprintf("fact number %d", i)
				if _, err := db.ExecContext(context.Background(), `INSERT INTO facts(content, digest, producer, recorded_at) VALUES (?,?,'capture',?)`,
					content, store.Digest(content), store.Now()); err != nil {
					t.Fatal(err)
				}
			}
		}
		host := newEmbedHost(t, 8)
		cfg := config.Embedding{Provider: "ollama", Model: "nomic-embed-text", BaseURL: host.URL, BatchSize: 256}
		emb, err := model.NewEmbedder(cfg, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		sp := vector.Space{Provider: "ollama", Model: "nomic-embed-text", Dim: 8}
		path := vector.CodeFilePath(db.Dir, sp)

		step := func(n, from, want int) {
			t.Helper()
			addFacts(n, from)
			if rep := integrate.EmbedMissing(ctx, db, emb, 256); rep.Error != "" || rep.Embedded != n {
				t.Fatalf("a step of %d facts: %+v", n, rep)
			}
			if f, ok := vector.ReadCodeFile(db.Dir, sp); !ok || len(f.IDs) != want {
				t.Fatalf("code file after %d more codes (%d in all): ok %v with %d codes, want %d", n, from+n, ok, len(f.IDs), want)
			}
		}
		step(1000, 0, 1000)   // the first codes: written at once
		step(100, 1000, 1000) // 100 of 1100 codes: read from the table
		step(60, 1100, 1160)  // 160 of 1160: an eighth, the file is rewritten
		step(3, 1160, 1160)
		got, fromTable, err := vector.LoadCodes(ctx, db, sp)
		if err != nil || len(got.IDs) != 1163 || fromTable != 3 {
			t.Fatalf("LoadCodes: %d codes, %d from the table (%v); want 1163 and 3", len(got.IDs), fromTable, err)
		}
		// The vector file follows every step: a row per code.
		vf, err := os.Open(vector.VectorFilePath(db.Dir, sp))
		if err != nil {
			t.Fatalf("vector file after 1163 codes: %v", err)
		}
		h, ok := vector.ReadVectorFileHeader(vf)
		vf.Close()
		if !ok || h.Rows != 1163 || !h.FitsCodes(sp, got.Removed, got.IDs) {
			t.Fatalf("vector file header %+v (readable %v), want 1163 rows fitting the codes", h, ok)
		}
		if err := vector.RemoveCodeFiles(db.Dir); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Fatalf("code file after RemoveCodeFiles: %v", err)
		}
		if _, err := os.Stat(vector.VectorFilePath(db.Dir, sp)); !os.IsNotExist(err) {
			t.Fatalf("vector file after RemoveCodeFiles: %v (it holds the vectors of forgotten facts)", err)
		}
	})
}

package integrate_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// TestEmbeddingWritesTheCodeFile: the embedding step that stores
// graph.CodeFileTail or more codes writes the space's code file, holding
// every code; a step that adds only a few leaves the file as it is (a new
// reader reads those few from the table); the vector file gets a row per
// code at every step; after forget's RemoveCodeFiles there is neither.
func TestEmbeddingWritesTheCodeFile(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	addFacts := func(n, from int) {
		t.Helper()
		for i := from; i < from+n; i++ {
			content := fmt.Sprintf("fact number %d", i)
			if _, err := db.Exec(`INSERT INTO facts(content, digest, producer, recorded_at) VALUES (?,?,'capture',?)`,
				content, store.Digest(content), store.Now()); err != nil {
				t.Fatal(err)
			}
		}
	}
	host := newEmbedHost(t, 8)
	cfg := config.Embedding{Provider: "ollama", Model: "nomic-embed-text", BaseURL: host.URL, BatchSize: 256}
	emb, err := integrate.NewEmbedder(cfg, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	sp := graph.Space{Provider: "ollama", Model: "nomic-embed-text", Dim: 8}
	path := graph.CodeFilePath(db.Dir, sp)

	addFacts(graph.CodeFileTail-1, 0)
	if rep := integrate.EmbedMissing(ctx, db, emb, 256); rep.Error != "" || rep.Embedded != graph.CodeFileTail-1 {
		t.Fatalf("first step: %+v", rep)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a code file after %d codes (below the tail of %d): %v", graph.CodeFileTail-1, graph.CodeFileTail, err)
	}
	addFacts(1, graph.CodeFileTail-1)
	if rep := integrate.EmbedMissing(ctx, db, emb, 256); rep.Error != "" || rep.Embedded != 1 {
		t.Fatalf("second step: %+v", rep)
	}
	f, ok := graph.ReadCodeFile(db.Dir, sp)
	if !ok || len(f.IDs) != graph.CodeFileTail {
		t.Fatalf("code file after %d codes: ok %v with %d codes", graph.CodeFileTail, ok, len(f.IDs))
	}
	addFacts(3, graph.CodeFileTail)
	if rep := integrate.EmbedMissing(ctx, db, emb, 256); rep.Error != "" || rep.Embedded != 3 {
		t.Fatalf("third step: %+v", rep)
	}
	if again, _ := graph.ReadCodeFile(db.Dir, sp); len(again.IDs) != graph.CodeFileTail {
		t.Fatalf("a step of 3 codes rewrote the file (%d codes): small tails are read from the table", len(again.IDs))
	}
	got, fromTable, err := graph.LoadCodes(ctx, db, sp)
	if err != nil || len(got.IDs) != graph.CodeFileTail+3 || fromTable != 3 {
		t.Fatalf("LoadCodes: %d codes, %d from the table (%v); want %d and 3", len(got.IDs), fromTable, err, graph.CodeFileTail+3)
	}
	// The vector file follows every step: a row per code.
	vf, err := os.Open(graph.VectorFilePath(db.Dir, sp))
	if err != nil {
		t.Fatalf("vector file after %d codes: %v", graph.CodeFileTail+3, err)
	}
	h, ok := graph.ReadVectorFileHeader(vf)
	vf.Close()
	if !ok || h.Rows != int64(graph.CodeFileTail+3) || !h.FitsCodes(sp, got.Removed, got.IDs) {
		t.Fatalf("vector file header %+v (readable %v), want %d rows fitting the codes", h, ok, graph.CodeFileTail+3)
	}
	if err := integrate.RemoveCodeFiles(db.Dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("code file after RemoveCodeFiles: %v", err)
	}
	if _, err := os.Stat(graph.VectorFilePath(db.Dir, sp)); !os.IsNotExist(err) {
		t.Fatalf("vector file after RemoveCodeFiles: %v (it holds the vectors of forgotten facts)", err)
	}
}

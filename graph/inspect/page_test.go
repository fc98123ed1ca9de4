package inspect_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/recollect/recollect/graph/inspect"
)

func TestWriteFixturePage(t *testing.T) {
	p := fixtureStore(t)
	d, err := inspect.Read(context.Background(), p.DB, inspect.Options{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	out := os.Getenv("INSPECT_PAGE")
	if out == "" {
		out = filepath.Join(t.TempDir(), "inspect.html")
	}
	if err := inspect.WritePageFile(out, d); err != nil {
		t.Fatal(err)
	}
	t.Logf("nodes %d drawn %d edges %d", len(d.Graph.Nodes), d.Graph.Drawn, len(d.Graph.Edges))
}

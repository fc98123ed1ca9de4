package pipeline

import (
	"context"
	"testing"

	"github.com/recollect/recollect/extract/extracttest"
	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/store/config"
)

// TestRunRoutesIntegrateStagesAndEmbeds runs a whole consolidation with the
// supersede stage on a local Ollama host and embeddings on: the run's
// model calls are booked under its id, Berlin replaces Paris, and the one
// active fact gets a vector.
func TestRunRoutesIntegrateStagesAndEmbeds(t *testing.T) {
	p := openTest(t)
	host := extracttest.NewHost(t, "llama3.2:3b", "nomic-embed-text")
	host.ServeEmbeddings(16)
	p.Config.Intelligence.Ollama.Host = host.URL
	p.Config.Intelligence.Ollama.Model = "llama3.2:3b"
	p.Config.Intelligence.Stages = map[string]config.StageRoute{"supersede": {Provider: "ollama"}}
	p.Config.Embedding = config.Embedding{Provider: "ollama", Model: "nomic-embed-text", BaseURL: host.URL, BatchSize: 8}
	say(t, p, "s1", "I live in Paris")
	consolidate(t, p)
	say(t, p, "s2", "I moved to Berlin")
	host.Enqueue(extracttest.Answer{Content: `{"supersedes":[{"id":"1","reason":"the user moved to Berlin"}]}`})
	sum := consolidate(t, p)
	in := sum.Integrate
	if in == nil || in.Integrated != 1 || in.Superseded != 1 || in.Embedding == nil || in.Embedding.Embedded != 1 || in.Embedding.Missing != 0 {
		t.Fatalf("integrate report = %+v (embedding %+v)", in, in.Embedding)
	}
	if n := count(t, p, `SELECT count(*) FROM spend WHERE stage = 'supersede' AND provider = 'ollama' AND ok = 1 AND run_id = ?`, sum.RunID); n != 1 {
		t.Errorf("%d supersede calls booked under run %d, want 1", n, sum.RunID)
	}
	st, err := p.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Facts.Total != 2 || st.Facts.Active != 1 {
		t.Errorf("stats facts = %+v, want 2 total, 1 active", st.Facts)
	}
	emb, err := p.Embedder()
	if err != nil {
		t.Fatal(err)
	}
	vecs, sp, err := emb.Embed(context.Background(), []string{"where do I live"})
	if err != nil || sp != (graph.Space{Provider: "ollama", Model: "nomic-embed-text", Dim: 16}) || len(vecs[0]) != 16 {
		t.Fatalf("query embedding: %v %v %v", sp, len(vecs), err)
	}
}

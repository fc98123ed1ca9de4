package pipeline

import (
	"context"
	"testing"
	"time"

	"github.com/recollect/recollect/extract/model/modeltest"
	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// TestRunRoutesIntegrateStagesAndEmbeds runs a whole consolidation with the
// supersede stage on a local Ollama host and embeddings on: the run's
// model calls are booked under its id, Berlin replaces Paris, and the one
// active fact gets a vector.
func TestRunRoutesIntegrateStagesAndEmbeds(t *testing.T) {
	host := modeltest.NewHost(t, "llama3.2:3b", "nomic-embed-text")
	host.ServeEmbeddings(16)
	cfg := config.Default()
	cfg.Intelligence.Ollama.Host = host.URL
	cfg.Intelligence.Ollama.Model = "llama3.2:3b"
	cfg.Intelligence.Stages = map[string]config.StageRoute{"supersede": {Provider: "ollama"}}
	cfg.Embedding = config.Embedding{Provider: "ollama", Model: "nomic-embed-text", BaseURL: host.URL, BatchSize: 8}
	p := openConfigured(t, cfg, nil)
	say(t, p, "s1", "I live in Paris")
	consolidate(t, p)
	say(t, p, "s2", "I moved to Berlin")
	host.Enqueue(modeltest.Answer{Content: `{"supersedes":[{"id":"1","reason":"the user moved to Berlin"}]}`})
	sum := consolidate(t, p)
	in := sum.Integrate
	if in == nil || in.Integrated != 1 || in.Superseded != 1 || in.Embedding == nil || in.Embedding.Embedded != 1 || in.Embedding.Missing != 0 {
		t.Fatalf("integrate report = %+v (embedding %+v)", in, in.Embedding)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM spend WHERE stage = 'supersede' AND provider = 'ollama' AND ok = 1 AND run_id = ?`, sum.RunID); n != 1 {
		t.Errorf("%d supersede calls booked under run %d, want 1", n, sum.RunID)
	}
	if active, total := factCounts(t, p); total != 2 || active != 1 {
		t.Errorf("facts: %d total, %d active; want 2 total, 1 active", total, active)
	}
	emb, err := p.Embedder()
	if err != nil {
		t.Fatal(err)
	}
	vecs, sp, err := emb.Embed(context.Background(), []string{"where do I live"})
	if err != nil || sp != (vector.Space{Provider: "ollama", Model: "nomic-embed-text", Dim: 16}) || len(vecs[0]) != 16 {
		t.Fatalf("query embedding: %v %v %v", sp, len(vecs), err)
	}
}

// TestWhereDoILiveAcrossTime is the scenario end to end on the
// heuristic: Paris said, then Berlin; search puts Berlin first, and in
// bitemporal mode as of a day between the two runs it answers Paris.
func TestWhereDoILiveAcrossTime(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	p.Config.Temporal.Mode = "bitemporal"
	day := func(n int) time.Time { return time.Date(2026, 1, n, 9, 0, 0, 0, time.UTC) }
	integrateOn := func(d time.Time) {
		t.Helper()
		if _, err := p.Run(ctx, RunOptions{Steps: Steps{Extract: true}}); err != nil {
			t.Fatal(err)
		}
		run, err := p.router.BeginRun(ctx)
		if err != nil {
			t.Fatal(err)
		}
		in, err := p.integrator(run)
		if err != nil {
			t.Fatal(err)
		}
		in.Now = func() time.Time { return d }
		if _, err := in.Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	say(t, p, "s1", "I live in Paris")
	integrateOn(day(1))
	say(t, p, "s2", "I moved to Berlin")
	integrateOn(day(5))
	first := func(q graph.Query) string {
		t.Helper()
		ans, err := p.Reader.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(ans.Results) == 0 {
			t.Fatalf("no results for %+v", q)
		}
		return ans.Results[0].Content
	}
	if got := first(graph.Query{Text: "where do I live"}); got != "I moved to Berlin" {
		t.Errorf("now: first hit %q, want Berlin", got)
	}
	if got := first(graph.Query{Text: "where do I live", AsOf: day(3)}); got != "I live in Paris" {
		t.Errorf("as of day 3: first hit %q, want Paris", got)
	}
	if active, total := factCounts(t, p); total != 2 || active != 1 {
		t.Errorf("facts: %d total, %d active; want 2 total, 1 active", total, active)
	}
}

package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/recollect/recollect/extract/model/modeltest"
	"github.com/recollect/recollect/store/config"
)

// TestSearchOpensWhatItNeeds: without embeddings a search reads the store
// read-only (sqlite.OpenReader), with them it opens the pipeline and embeds
// the query at the configured host (a local server speaking Ollama's
// /api/embed), finding the fact by the similarity arm too.
func TestSearchOpensWhatItNeeds(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := run(t, "", "--data", dir, "record", "--content", "We deploy the Atlas service with Render every Friday.", "--session-id", "s"); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := run(t, "", "--data", dir, "consolidate"); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := run(t, "", "--data", dir, "search", "Atlas")
	if code != 0 || !strings.Contains(out, "We deploy the Atlas service") || !strings.Contains(out, "(arms: keyword") || strings.Contains(out, "semantic") {
		t.Fatalf("search without embeddings (exit %d):\n%s%s", code, out, errs)
	}

	host := modeltest.NewHost(t, "nomic-embed-text")
	host.ServeEmbeddings(8)
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Embedding.Provider, cfg.Embedding.Model, cfg.Embedding.BaseURL = "ollama", "nomic-embed-text", host.URL
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "", "--data", dir, "consolidate"); code != 0 { // embeds the stored fact
		t.Fatal(errs)
	}
	before := len(host.Requests("/api/embed"))
	code, out, errs = run(t, "", "--data", dir, "search", "Atlas")
	if code != 0 || !strings.Contains(out, "We deploy the Atlas service") {
		t.Fatalf("search with embeddings (exit %d):\n%s%s", code, out, errs)
	}
	reqs := host.Requests("/api/embed")
	if len(reqs) != before+1 {
		t.Fatalf("the search sent %d embedding requests, want 1 (the query)", len(reqs)-before)
	}
	var req struct {
		Input []string `json:"input"`
	}
	if err := reqs[len(reqs)-1].Decode(&req); err != nil || !slices.Equal(req.Input, []string{"Atlas"}) {
		t.Fatalf("embedding request %+v (%v), want the query", req, err)
	}
	if !strings.Contains(out, "semantic") {
		t.Fatalf("search with the query embedded names no semantic arm:\n%s", out)
	}
}

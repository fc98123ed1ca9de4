package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchLocomo(t *testing.T) {
	mini := filepath.Join("..", "..", "pipeline", "bench", "testdata", "mini_locomo.json")
	code, out, errs := run(t, "", "bench", "locomo", mini)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"recall@10", "recollect keyword  all", "BM25 porter", "ingest:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"route capture:", "route metadata:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = run(t, "", "bench", "locomo", "--routes", "metadata", mini)
	if code != 0 || strings.Contains(out, "route capture:") || !strings.Contains(out, "route metadata:") {
		t.Fatalf("--routes metadata: exit %d, %s\n%s", code, errs, out)
	}
	code, _, errs = run(t, "", "bench", "locomo", "--routes", "capture,mcp", mini)
	if code != 2 || !strings.Contains(errs, `unknown route "mcp"; the routes are capture, metadata`) {
		t.Fatalf("unknown route: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, "", "bench", "locomo", filepath.Join(t.TempDir(), "none.json"))
	if code != 1 || !strings.Contains(errs, "pass the path to locomo10.json") {
		t.Fatalf("missing dataset: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, "", "bench", "locomo", "a", "b")
	if code != 2 || !strings.Contains(errs, "give one path") {
		t.Fatalf("two paths: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, "", "bench", "locomo", "--embedding-model", "nomic-embed-text", mini)
	if code != 2 || !strings.Contains(errs, "need --embedding-provider ollama or http") {
		t.Fatalf("a model without a provider: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, "", "bench", "locomo", "--embedding-provider", "ollama", mini)
	if code == 0 || !strings.Contains(errs, "embedding.model") {
		t.Fatalf("a provider without a model: exit %d, %q", code, errs)
	}
}

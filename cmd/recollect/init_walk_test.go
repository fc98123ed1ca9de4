package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/recollect/recollect/store/config"
)

// TestEmbeddingWarning: init warns when the chosen Ollama host does not
// answer /api/tags, and says nothing when it does.
func TestEmbeddingWarning(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tags" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"models":[{"name":"nomic-embed-text:latest"}]}`))
	}))
	up := config.Embedding{Provider: "ollama", Model: "nomic-embed-text", BaseURL: srv.URL}
	if w := embeddingWarning(context.Background(), up); w != "" {
		t.Errorf("a host that answers got %q", w)
	}
	srv.Close()
	if w := embeddingWarning(context.Background(), up); !strings.HasPrefix(w, "warning: embeddings use Ollama at "+srv.URL+", which does not answer (") ||
		!strings.HasSuffix(w, "semantic search stays off until it does (start Ollama, then: ollama pull nomic-embed-text)") {
		t.Errorf("a closed host: %q", w)
	}
	if w := embeddingWarning(context.Background(), config.Embedding{}); w != "" {
		t.Errorf("embeddings off: %q", w)
	}
}

// TestAskReasksOnABadAnswer: each bad answer costs one line, and answers
// that end before a valid one are a usage error naming the question.
func TestAskReasksOnABadAnswer(t *testing.T) {
	var out strings.Builder
	a := &asker{in: newAsker(Env{Stdin: strings.NewReader("cpy\nrecord\n")}).in, out: &out}
	got, err := a.ask("Mode?", "copy", oneOf("copy", "record"))
	if err != nil || got != "record" || !strings.Contains(out.String(), "Mode? [copy]:   answer copy or record, not \"cpy\"\nMode? [copy]: ") {
		t.Errorf("got %q, %v:\n%s", got, err, out.String())
	}
	a = &asker{in: newAsker(Env{Stdin: strings.NewReader("claude")}).in, out: &out}
	if _, err := a.ask("Kind?", "claude-code", oneOf("claude-code", "cursor")); err == nil || exitCode(err) != 2 {
		t.Errorf("answers ended on a bad one: %v", err)
	}
}

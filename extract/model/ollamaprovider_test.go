package model

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/recollect/recollect/extract/model/modeltest"
	"github.com/recollect/recollect/store/storetest"
)

func TestOllamaProviderSendsTheSchemaAsFormat(t *testing.T) {
	h := modeltest.NewHost(t, "llama3.2:3b", "nomic-embed-text:latest")
	h.Enqueue(modeltest.Answer{Content: `{"answer":"hi"}`, InputTokens: 321, OutputTokens: 7},
		modeltest.Answer{Content: `{"answer":"again"}`, NoUsage: true})
	cfg := h.Intelligence("")
	cfg.Provider = "ollama"
	db := storetest.Open(t, "sqlite")
	r := newRun(t, cfg, db, nil)
	for range 2 {
		if _, err := r.Call(context.Background(), testRequest("reconcile")); err != nil {
			t.Fatal(err)
		}
	}
	if w := r.Warnings(); len(w) != 1 || !strings.HasSuffix(w[0], "the only chat model at "+h.URL+" — pin intelligence.ollama.model") {
		t.Fatalf("warnings = %q", w)
	}
	if n := len(h.Requests("/api/tags")); n != 1 {
		t.Fatalf("listed models %d times, want once per run", n)
	}
	chats := h.Requests("/api/chat")
	var sent struct {
		Model     string          `json:"model"`
		Stream    *bool           `json:"stream"`
		Format    json.RawMessage `json:"format"`
		KeepAlive json.RawMessage `json:"keep_alive"`
	}
	if err := chats[0].Decode(&sent); err != nil {
		t.Fatal(err)
	}
	if sent.Model != "llama3.2:3b" || sent.Stream == nil || *sent.Stream || string(sent.Format) != string(testSchema) || string(sent.KeepAlive) == "" {
		t.Fatalf("sent = model %s stream %v format %s keep_alive %s", sent.Model, sent.Stream, sent.Format, sent.KeepAlive)
	}
	rows := spendRows(t, db)
	if len(rows) != 2 || rows[0].In == nil || *rows[0].In != 321 || *rows[0].Out != 7 || rows[1].In != nil || rows[1].Out != nil || rows[0].Provider != "ollama" {
		t.Fatalf("spend = %+v", rows)
	}
}

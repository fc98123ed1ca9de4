package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect/recollect/cmd/recollect/mcpserver"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// inProcess serves srv over in-memory transports and returns a client.
func inProcess(t *testing.T, srv *mcpserver.Server) *client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	return &client{t: t, cs: cs, init: cs.InitializeResult()}
}

func openStore(t *testing.T, dir string, cfg config.Config) *pipeline.Pipeline {
	t.Helper()
	return openStoreEnv(t, dir, cfg, nil)
}

// openStoreEnv is openStore with the environment getenv reads (os.Getenv
// when nil).
func openStoreEnv(t *testing.T, dir string, cfg config.Config, getenv func(string) string) *pipeline.Pipeline {
	t.Helper()
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	p, err := pipeline.Open(context.Background(), dir, pipeline.Options{Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// appendTurn appends one Claude Code user line to a transcript.
func appendTurn(t *testing.T, path, session, text string, n int) {
	t.Helper()
	line, _ := json.Marshal(map[string]any{
		"parentUuid": nil, "isSidechain": false, "type": "user", "sessionId": session, "cwd": "/work/shop",
		"uuid": fmt.Sprintf("u-%d", n), "timestamp": fmt.Sprintf("2026-03-01T10:00:%02dZ", n),
		"message": map[string]any{"role": "user", "content": text},
	})
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
}

func TestCopyStoreCopiesBeforeToolCalls(t *testing.T) {
	home := t.TempDir()
	cfg := config.Default()
	cfg.Mode = "copy"
	cfg.Sources = []config.Source{{Kind: "claude-code", Home: home}}
	p := openStore(t, t.TempDir(), cfg)
	transcript := filepath.Join(home, "projects", "-work-shop", "sess-1.jsonl")
	appendTurn(t, transcript, "sess-1", "I prefer tea over coffee in the morning.", 1)

	slow := inProcess(t, must(mcpserver.New(p, mcpserver.Options{SessionID: "t1", CopyDebounce: time.Hour})))
	_, evs := slow.ok("get_events", map[string]any{"all_sessions": true})
	if n := len(list(evs, "events")); n != 1 {
		t.Fatalf("first tool call copied %d events, want 1", n)
	}
	appendTurn(t, transcript, "sess-1", "The shop deploys on Fridays.", 2)
	if _, evs = slow.ok("get_events", map[string]any{"all_sessions": true}); len(list(evs, "events")) != 1 {
		t.Errorf("a second call inside the debounce interval copied again")
	}
	fast := inProcess(t, must(mcpserver.New(p, mcpserver.Options{SessionID: "t2", CopyDebounce: time.Nanosecond})))
	if _, evs = fast.ok("get_events", map[string]any{"all_sessions": true}); len(list(evs, "events")) != 2 {
		t.Errorf("the grown transcript was not copied: %v", list(evs, "events"))
	}
}

func must(s *mcpserver.Server, err error) *mcpserver.Server {
	if err != nil {
		panic(err)
	}
	return s
}

// embedHost speaks Ollama's /api/embed: each text becomes a bag of words
// hashed into 16 dimensions, so texts sharing words are similar.
func embedHost(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/api/embed" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		out := make([][]float32, len(req.Input))
		for i, text := range req.Input {
			v := make([]float32, 16)
			for _, w := range strings.Fields(strings.ToLower(text)) {
				h := 0
				for _, r := range strings.Trim(w, ".,?!") {
					h = h*31 + int(r)
				}
				v[(h%16+16)%16]++
			}
			v[15] += 0.01
			out[i] = v
		}
		json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": out})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSemanticArmWhenEmbeddingsOn(t *testing.T) {
	for _, engine := range storetest.Engines {
		t.Run(engine, func(t *testing.T) {
			host := embedHost(t)
			dir, cfg, getenv := storetest.DataDir(t, engine)
			cfg.Embedding = config.Embedding{Provider: "ollama", Model: "bag-of-words", BaseURL: host.URL, BatchSize: 8}
			p := openStoreEnv(t, dir, cfg, getenv)
			c := inProcess(t, must(mcpserver.New(p, mcpserver.Options{SessionID: "s"})))
			for _, msg := range []string{"Our deploy pipeline runs nightly builds.", "I climb mountains on weekends."} {
				c.ok("log_event", map[string]any{"role": "user", "event_type": "message", "content": msg})
			}
			_, run := c.ok("consolidate", map[string]any{})
			emb, _ := run["embedding"].(map[string]any)
			if emb["configured"] != true || emb["embedded"] != run["facts_integrated"] || emb["embedded"] == 0.0 || emb["missing"] != 0.0 {
				t.Fatalf("embedding step = %v", emb)
			}
			text, ans := c.ok("search_knowledge", map[string]any{"query": "nightly builds pipeline"})
			arms := fmt.Sprint(ans["arms"])
			if !strings.Contains(arms, "semantic") || !strings.Contains(text, "semantic #1 (cosine") {
				t.Errorf("embeddings on: arms %s, text:\n%s", arms, text)
			}
			host.Close()
			text, ans = c.ok("search_knowledge", map[string]any{"query": "nightly builds"})
			if strings.Contains(fmt.Sprint(ans["arms"]), "semantic") || !strings.Contains(text, "note: similarity arm skipped: embed the query") ||
				len(list(ans, "results")) == 0 {
				t.Errorf("embedding host down: search must still answer and say why:\n%s", text)
			}
		})
	}
}

// consolidatedServer records events into p one by one, consolidates them
// as `recollect consolidate` does, and connects an in-process client to an
// MCP server over p.
func consolidatedServer(t *testing.T, p *pipeline.Pipeline, events ...store.Event) *client {
	t.Helper()
	ctx := context.Background()
	for _, ev := range events {
		if _, err := p.Record(ctx, []store.Event{ev}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.Run(ctx, pipeline.RunOptions{Trigger: "cli"}); err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(p, mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return inProcess(t, srv)
}

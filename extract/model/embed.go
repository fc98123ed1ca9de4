package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/store/config"
)

// Embedder turns texts into vectors of one space. The recall side embeds a
// query with the same Embedder the integrate side used for facts, so the
// two vectors share a space and can be compared.
type Embedder interface {
	// Embed returns one vector per text, in order, and the space they
	// belong to.
	Embed(ctx context.Context, texts []string) ([][]float32, vector.Space, error)
	// Space is the embedder's space as far as known: Dim is 0 until the
	// first answer.
	Space() vector.Space
}

// ErrEmbeddingsOff is returned by NewEmbedder when embedding.provider is
// empty.
var ErrEmbeddingsOff = errors.New("embeddings are off (embedding.provider is empty)")

// NewEmbedder builds the embedder the config names: "ollama" posts to
// {base_url}/api/embed (base_url defaults to http://localhost:11434),
// "http" to {base_url}/embeddings of an OpenAI-compatible host (base_url
// includes /v1, default http://localhost:11434/v1). The API key, when
// api_key_env names a variable, is read through getenv.
func NewEmbedder(cfg config.Embedding, getenv func(string) string) (Embedder, error) {
	e := &httpEmbedder{kind: cfg.Provider, model: cfg.Model, client: BoundedClient(2 * time.Minute)}
	base := strings.TrimRight(cfg.BaseURL, "/")
	switch cfg.Provider {
	case "":
		return nil, ErrEmbeddingsOff
	case "ollama":
		if base == "" {
			base = "http://localhost:11434"
		}
		e.url = base + "/api/embed"
	case "http":
		if base == "" {
			base = "http://localhost:11434/v1"
		}
		e.url = base + "/embeddings"
	default:
		return nil, fmt.Errorf("embedding.provider: unknown provider %q; use ollama, http, or \"\" for off", cfg.Provider)
	}
	if cfg.Model == "" {
		return nil, errors.New("embedding.model: embeddings are on but no model is named; set embedding.model (e.g. nomic-embed-text)")
	}
	if cfg.APIKeyEnv != "" {
		if getenv == nil {
			return nil, errors.New("embedding.api_key_env: no environment to read the key from")
		}
		if e.key = getenv(cfg.APIKeyEnv); e.key == "" {
			return nil, fmt.Errorf("embedding.api_key_env: %s is empty; export it or clear api_key_env", cfg.APIKeyEnv)
		}
	}
	return e, nil
}

type httpEmbedder struct {
	kind, url, model, key string
	client                *http.Client

	mu  sync.Mutex
	dim int
}

func (e *httpEmbedder) Space() vector.Space {
	e.mu.Lock()
	defer e.mu.Unlock()
	return vector.Space{Provider: e.kind, Model: e.model, Dim: e.dim}
}

// Embed posts the texts in one request and checks the answer: one vector
// per text, all of one dimension, none empty.
func (e *httpEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, vector.Space, error) {
	sp := e.Space()
	if len(texts) == 0 {
		return nil, sp, nil
	}
	body, _ := json.Marshal(map[string]any{"model": e.model, "input": texts})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return nil, sp, fmt.Errorf("embed: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.key != "" {
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return nil, sp, fmt.Errorf("embed with %s at %s: %w", e.kind, e.url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, sp, fmt.Errorf("embed: read answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, sp, fmt.Errorf("embed with %s at %s: HTTP %d: %s", e.kind, e.url, resp.StatusCode, errorMessage(data))
	}
	vecs, err := e.decode(data)
	if err != nil {
		return nil, sp, fmt.Errorf("embed with %s at %s: %w", e.kind, e.url, err)
	}
	if len(vecs) != len(texts) {
		return nil, sp, fmt.Errorf("embed: asked for %d vectors, got %d", len(texts), len(vecs))
	}
	dim := len(vecs[0])
	for i, v := range vecs {
		if len(v) == 0 || len(v) != dim {
			return nil, sp, fmt.Errorf("embed: vector %d has %d components, vector 0 has %d", i, len(v), dim)
		}
	}
	e.mu.Lock()
	e.dim = dim
	e.mu.Unlock()
	sp.Dim = dim
	return vecs, sp, nil
}

func (e *httpEmbedder) decode(data []byte) ([][]float32, error) {
	if e.kind == "ollama" {
		var ans struct {
			Embeddings [][]float32 `json:"embeddings"`
		}
		if err := json.Unmarshal(data, &ans); err != nil {
			return nil, fmt.Errorf("decode /api/embed answer: %w", err)
		}
		return ans.Embeddings, nil
	}
	var ans struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &ans); err != nil {
		return nil, fmt.Errorf("decode /embeddings answer: %w", err)
	}
	sort.SliceStable(ans.Data, func(i, j int) bool { return ans.Data[i].Index < ans.Data[j].Index })
	out := make([][]float32, len(ans.Data))
	for i, d := range ans.Data {
		if d.Index != i {
			return nil, fmt.Errorf("answer indexes are not 0..%d", len(ans.Data)-1)
		}
		out[i] = d.Embedding
	}
	return out, nil
}

// errorMessage pulls the message out of an Ollama ({"error":"…"}) or
// OpenAI ({"error":{"message":"…"}}) error body.
func errorMessage(data []byte) string {
	var o struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &o) == nil && len(o.Error) > 0 {
		var s string
		if json.Unmarshal(o.Error, &s) == nil {
			return s
		}
		var m struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(o.Error, &m) == nil && m.Message != "" {
			return m.Message
		}
	}
	return clip(strings.TrimSpace(string(data)), 200)
}

// clip cuts s to at most n bytes at a character boundary, marking the cut
// with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

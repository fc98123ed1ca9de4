package integrate_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store/config"
)

// vectorOf is the test hosts' deterministic embedding of text: dim
// components with awkward binary fractions, so a lossy round trip shows.
func vectorOf(text string, dim int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	seed := h.Sum64()
	v := make([]float32, dim)
	for i := range v {
		seed = seed*6364136223846793005 + 1442695040888963407
		v[i] = float32(int64(seed>>11)%2000001-1000000) / 999983.0
	}
	return v
}

// embedHost speaks Ollama's POST /api/embed and the OpenAI-compatible POST
// /v1/embeddings, as the real hosts do, and records what it was sent.
type embedHost struct {
	*httptest.Server
	dim int

	mu     sync.Mutex
	inputs [][]string
	nan    bool
	status int
}

func newEmbedHost(t *testing.T, dim int) *embedHost {
	h := &embedHost{dim: dim}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/embed", func(w http.ResponseWriter, r *http.Request) {
		in, ok := h.read(w, r)
		if !ok {
			return
		}
		vecs := make([][]float32, len(in.Input))
		for i, s := range in.Input {
			vecs[i] = vectorOf(s, h.dim)
		}
		writeJSON(w, map[string]any{"model": in.Model, "embeddings": vecs, "total_duration": 14143917, "load_duration": 1019500, "prompt_eval_count": 8})
	})
	mux.HandleFunc("POST /v1/embeddings", func(w http.ResponseWriter, r *http.Request) {
		in, ok := h.read(w, r)
		if !ok {
			return
		}
		data := make([]map[string]any, len(in.Input))
		for i, s := range in.Input {
			// Out of order on purpose: clients must go by index.
			j := len(in.Input) - 1 - i
			data[j] = map[string]any{"object": "embedding", "index": i, "embedding": vectorOf(s, h.dim)}
		}
		writeJSON(w, map[string]any{"object": "list", "data": data, "model": in.Model, "usage": map[string]int{"prompt_tokens": 5, "total_tokens": 5}})
	})
	h.Server = httptest.NewServer(mux)
	t.Cleanup(h.Close)
	return h
}

type embedRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

func (h *embedHost) read(w http.ResponseWriter, r *http.Request) (embedRequest, bool) {
	var in embedRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Model == "" || len(in.Input) == 0 {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]any{"error": "invalid input"})
		return in, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inputs = append(h.inputs, in.Input)
	if h.status != 0 {
		w.WriteHeader(h.status)
		if strings.HasPrefix(r.URL.Path, "/v1/") {
			writeJSON(w, map[string]any{"error": map[string]any{"message": "model overloaded", "type": "server_error"}})
		} else {
			writeJSON(w, map[string]any{"error": "model overloaded"})
		}
		return in, false
	}
	return in, true
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func TestEmbedMissingBothWireFormats(t *testing.T) {
	for _, tc := range []struct {
		provider, base string
	}{{"ollama", ""}, {"http", "/v1"}} {
		t.Run(tc.provider, func(t *testing.T) {
			db := openStore(t)
			host := newEmbedHost(t, 8)
			texts := []string{"I live in Paris", "I prefer green tea", "Alice works at Acme Corp", "The build uses Bazel"}
			for i, s := range texts {
				say(t, db, statement{text: s, day: i + 1})
			}
			cfg := config.Embedding{Provider: tc.provider, Model: "nomic-embed-text", BaseURL: host.URL + tc.base, BatchSize: 3}
			emb, err := integrate.NewEmbedder(cfg, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			in := newIntegrator(db, day(5))
			in.Embedder = emb
			in.Config.Embedding = cfg
			rep := run(t, in)
			want := integrate.EmbedReport{Space: tc.provider + "/nomic-embed-text/8", Embedded: 4, Missing: 0}
			if rep.Embedding == nil || *rep.Embedding != want {
				t.Fatalf("embedding report = %+v, want %+v", rep.Embedding, want)
			}
			if len(host.inputs) != 2 || len(host.inputs[0]) != 3 {
				t.Errorf("host saw batches %v, want 3 then 1", host.inputs)
			}
			// The stored bytes are the little-endian float32 bits of what the host sent.
			rows, err := db.Query(`SELECT f.content, e.vector FROM embeddings e JOIN facts f ON f.id = e.fact_id`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			n := 0
			for rows.Next() {
				var content string
				var blob []byte
				if err := rows.Scan(&content, &blob); err != nil {
					t.Fatal(err)
				}
				wantBytes := make([]byte, 0, 32)
				for _, x := range vectorOf(content, 8) {
					wantBytes = binary.LittleEndian.AppendUint32(wantBytes, math.Float32bits(x))
				}
				if !bytes.Equal(blob, wantBytes) {
					t.Errorf("%q: stored % x, want % x", content, blob, wantBytes)
				}
				n++
			}
			if n != 4 {
				t.Errorf("%d vectors stored, want 4", n)
			}
			// A second run has nothing to embed.
			say(t, db, statement{text: "I moved to Berlin", day: 9})
			rep = run(t, in)
			if rep.Embedding.Embedded != 1 || len(host.inputs) != 3 || host.inputs[2][0] != "I moved to Berlin" {
				t.Errorf("second run embedded %d, host saw %v", rep.Embedding.Embedded, host.inputs)
			}
			sp, ok, err := integrate.WorkingSpace(context.Background(), db, cfg)
			if err != nil || !ok || sp != (graph.Space{Provider: tc.provider, Model: "nomic-embed-text", Dim: 8}) {
				t.Errorf("working space = %v %v %v", sp, ok, err)
			}
		})
	}
}

func TestEmbeddingSpacesNeverMix(t *testing.T) {
	db := openStore(t)
	ctx := context.Background()
	say(t, db, statement{text: "I live in Paris", day: 1})
	say(t, db, statement{text: "I prefer green tea", day: 2})
	run(t, newIntegrator(db, day(2)))
	paris := factNamed(t, db, "I live in Paris").ID
	old := graph.Space{Provider: "ollama", Model: "all-minilm", Dim: 4}
	cur := graph.Space{Provider: "ollama", Model: "nomic-embed-text", Dim: 8}
	if err := integrate.StoreVector(ctx, db, paris, old, []float32{1, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if err := integrate.StoreVector(ctx, db, paris, cur, vectorOf("x", 8)); err != nil {
		t.Fatal(err)
	}
	t.Run("NaN and Inf are refused at write", func(t *testing.T) {
		for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
			v := vectorOf("y", 8)
			v[3] = bad
			err := integrate.StoreVector(ctx, db, paris, cur, v)
			if !errors.Is(err, graph.ErrNonFinite) {
				t.Errorf("component %v: err = %v, want ErrNonFinite", bad, err)
			}
		}
		vs, err := integrate.Vectors(ctx, db, cur)
		if err != nil || math.IsNaN(float64(vs[paris][3])) {
			t.Errorf("stored vector changed by a refused write: %v %v", vs[paris], err)
		}
	})
	t.Run("a vector of the wrong dimension is refused", func(t *testing.T) {
		if err := integrate.StoreVector(ctx, db, paris, cur, []float32{1, 2, 3}); !errors.Is(err, graph.ErrSpaceMismatch) {
			t.Errorf("err = %v, want ErrSpaceMismatch", err)
		}
	})
	t.Run("reads return only the asked space", func(t *testing.T) {
		vs, err := integrate.Vectors(ctx, db, cur)
		if err != nil || len(vs) != 1 || len(vs[paris]) != 8 {
			t.Fatalf("vectors of %s = %v, %v", cur, vs, err)
		}
		oldVs, _ := integrate.Vectors(ctx, db, old)
		if _, err := graph.Cosine(cur, vs[paris], old, oldVs[paris]); !errors.Is(err, graph.ErrSpaceMismatch) {
			t.Errorf("comparing across spaces: err = %v", err)
		}
		other := graph.Space{Provider: "ollama", Model: "nomic-embed-text", Dim: 4}
		if vs, _ := integrate.Vectors(ctx, db, other); len(vs) != 0 {
			t.Errorf("same model, other dimension returned %d vectors", len(vs))
		}
	})
	t.Run("coverage lists leftovers", func(t *testing.T) {
		cov, err := integrate.EmbeddingCoverage(ctx, db, cur)
		if err != nil {
			t.Fatal(err)
		}
		if cov.Embedded != 1 || cov.Missing != 1 || len(cov.Leftover) != 1 || cov.Leftover[0] != (integrate.SpaceCount{Space: old, Vectors: 1}) {
			t.Errorf("coverage = %+v", cov)
		}
	})
}

func TestEmbedFailureIsReportedAndRecorded(t *testing.T) {
	db := openStore(t)
	host := newEmbedHost(t, 8)
	host.status = http.StatusServiceUnavailable
	say(t, db, statement{text: "I live in Paris", day: 1})
	emb, err := integrate.NewEmbedder(config.Embedding{Provider: "http", Model: "text-embedding-3-small", BaseURL: host.URL + "/v1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := newIntegrator(db, day(1))
	in.Embedder = emb
	rep := run(t, in)
	if rep.Integrated != 1 {
		t.Fatalf("a failed embedding lost the fact: %+v", rep)
	}
	e := rep.Embedding
	if e == nil || e.Embedded != 0 || e.Missing != 1 || !strings.Contains(e.Error, "HTTP 503: model overloaded") {
		t.Fatalf("embedding report = %+v", e)
	}
	var failures int
	if err := db.QueryRow(`SELECT consecutive_failures FROM stage_health WHERE stage = 'embed' AND provider = 'http'`).Scan(&failures); err != nil || failures != 1 {
		t.Errorf("stage_health embed failures = %d, %v", failures, err)
	}
}

func TestNewEmbedderErrors(t *testing.T) {
	cases := []struct {
		cfg  config.Embedding
		want string
	}{
		{config.Embedding{}, "embeddings are off"},
		{config.Embedding{Provider: "ollama"}, "embedding.model: embeddings are on but no model is named"},
		{config.Embedding{Provider: "http", Model: "m", APIKeyEnv: "EMBED_KEY"}, "embedding.api_key_env: EMBED_KEY is empty; export it"},
		{config.Embedding{Provider: "cohere", Model: "m"}, `unknown provider "cohere"`},
	}
	for _, c := range cases {
		_, err := integrate.NewEmbedder(c.cfg, func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewEmbedder(%+v) = %v, want %q", c.cfg, err, c.want)
		}
	}
}

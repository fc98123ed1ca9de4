package modeltest

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"sync"
)

// Embeddings serves Ollama's POST /api/embed and the OpenAI-compatible POST
// /v1/embeddings on a Host, in their wire shapes: every input text gets
// Vector(text, dim). The OpenAI answer lists its items in reverse order, as
// the index field allows, so clients must go by index.
type Embeddings struct {
	h   *Host
	dim int

	mu     sync.Mutex
	status int
}

// ServeEmbeddings adds the embedding endpoints to h, answering with
// vectors of dim components.
func (h *Host) ServeEmbeddings(dim int) *Embeddings {
	e := &Embeddings{h: h, dim: dim}
	h.Handle("POST /api/embed", e.ollama)
	h.Handle("POST /v1/embeddings", e.openAI)
	return e
}

// Fail makes both endpoints answer status with an error body ("model
// overloaded") in the endpoint's own format; 0 heals them.
func (e *Embeddings) Fail(status int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.status = status
}

// SetDim changes the dimension of the vectors answered from now on, as a
// host does when its model is swapped under the same name.
func (e *Embeddings) SetDim(dim int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.dim = dim
}

// Vector is the host's deterministic embedding of text: dim components of
// awkward binary fractions, so a lossy round trip shows.
func Vector(text string, dim int) []float32 {
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

type embedRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// read decodes the request; false means an error answer was written.
func (e *Embeddings) read(w http.ResponseWriter, r *http.Request, openAI bool) (embedRequest, int, bool) {
	var req embedRequest
	e.mu.Lock()
	status, dim := e.status, e.dim
	e.mu.Unlock()
	fail := func(code int, msg string) {
		if openAI {
			openAIError(w, code, msg, "invalid_request_error")
		} else {
			writeJSON(w, code, map[string]string{"error": msg})
		}
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" || len(req.Input) == 0 {
		fail(http.StatusBadRequest, "invalid input: want {\"model\": …, \"input\": [texts]}")
		return req, 0, false
	}
	if status != 0 && status != http.StatusOK {
		fail(status, "model overloaded")
		return req, 0, false
	}
	return req, dim, true
}

func (e *Embeddings) ollama(w http.ResponseWriter, r *http.Request) {
	req, dim, ok := e.read(w, r, false)
	if !ok {
		return
	}
	vecs := make([][]float32, len(req.Input))
	for i, s := range req.Input {
		vecs[i] = Vector(s, dim)
	}
	writeJSON(w, http.StatusOK, map[string]any{"model": req.Model, "embeddings": vecs,
		"total_duration": 14143917, "load_duration": 1019500, "prompt_eval_count": len(req.Input) * 8})
}

func (e *Embeddings) openAI(w http.ResponseWriter, r *http.Request) {
	req, dim, ok := e.read(w, r, true)
	if !ok {
		return
	}
	data := make([]map[string]any, len(req.Input))
	for i, s := range req.Input {
		data[len(req.Input)-1-i] = map[string]any{"object": "embedding", "index": i, "embedding": Vector(s, dim)}
	}
	n := len(req.Input) * 8
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": n, "total_tokens": n}})
}

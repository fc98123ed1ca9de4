// Package modeltest runs local model hosts for tests: one httptest server
// that speaks the OpenAI-compatible API (GET /v1/models, POST
// /v1/chat/completions) and Ollama's native API (GET /api/tags, POST
// /api/chat), as a real Ollama does on one port. Chat answers come from a
// script queued by the test; response bodies are built from the recorded
// wire shapes in fixtures/models. Every request is recorded so tests can
// assert on what the production clients sent.
//
// It is for tests only and imports nothing of recollect but fixtures and
// store/config (for the settings that route to a host).
package modeltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recollect/recollect/fixtures"
	"github.com/recollect/recollect/store/config"
)

// Answer is one scripted reply of the chat endpoints.
type Answer struct {
	// Content is the assistant message.
	Content string
	// Status, when not zero or 200, makes the host reply with that status and
	// an error body in the endpoint's own format.
	Status int
	// Raw, when set, is sent verbatim as the 200 body instead of a
	// well-formed completion (a broken host).
	Raw string
	// Hang makes the host wait until the client gives up.
	Hang bool
	// NoUsage leaves out the token counts, as some hosts do.
	NoUsage bool
	// InputTokens and OutputTokens are the usage reported; zero means a
	// count derived from the request and answer lengths.
	InputTokens, OutputTokens int
}

// Recorded is one request as it arrived.
type Recorded struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// Decode unmarshals the request body into v.
func (r Recorded) Decode(v any) error { return json.Unmarshal(r.Body, v) }

// Host is a running test host.
type Host struct {
	*httptest.Server
	t    testing.TB
	mux  *http.ServeMux
	done chan struct{}

	mu       sync.Mutex
	models   []string
	queue    []Answer
	requests []Recorded
	rejects  map[string]string
}

// NewHost starts a host offering models (default: one chat model,
// "llama3.2:3b") and stops it when the test ends.
func NewHost(t testing.TB, models ...string) *Host {
	t.Helper()
	if len(models) == 0 {
		models = []string{"llama3.2:3b"}
	}
	h := &Host{t: t, mux: http.NewServeMux(), done: make(chan struct{}), models: models, rejects: map[string]string{}}
	h.mux.HandleFunc("GET /v1/models", h.openAIModels)
	h.mux.HandleFunc("POST /v1/chat/completions", h.openAIChat)
	h.mux.HandleFunc("GET /api/tags", h.ollamaTags)
	h.mux.HandleFunc("POST /api/chat", h.ollamaChat)
	h.Server = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.Close)
	return h
}

// Close releases hanging requests and stops the server; safe to call twice.
func (h *Host) Close() {
	h.mu.Lock()
	select {
	case <-h.done:
	default:
		close(h.done)
	}
	h.mu.Unlock()
	h.Server.Close()
}

// OpenAIURL is the base URL an OpenAI-compatible client is given.
func (h *Host) OpenAIURL() string { return h.URL + "/v1" }

// Handle adds an endpoint, e.g. "POST /api/embed"; its requests are
// recorded like the others.
func (h *Host) Handle(pattern string, handler http.HandlerFunc) { h.mux.HandleFunc(pattern, handler) }

// SetModels replaces the model list.
func (h *Host) SetModels(names ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.models = names
}

// Enqueue appends scripted answers; each chat request takes the next one.
func (h *Host) Enqueue(answers ...Answer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.queue = append(h.queue, answers...)
}

// EnqueueFixture appends an answer whose content is a file under
// fixtures/models.
func (h *Host) EnqueueFixture(name string) {
	h.t.Helper()
	data, err := fixtures.Models.ReadFile("models/" + name)
	if err != nil {
		h.t.Fatalf("read fixture %s: %v", name, err)
	}
	h.Enqueue(Answer{Content: string(data)})
}

// Pending counts the scripted answers not yet taken.
func (h *Host) Pending() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.queue)
}

// RejectFormat makes /v1/chat/completions answer 400 with message to a
// request whose response_format type is typ (json_schema or json_object),
// as hosts without structured output do.
func (h *Host) RejectFormat(typ, message string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.rejects[typ] = message
}

// Requests returns the requests received so far, optionally only those to
// path.
func (h *Host) Requests(path ...string) []Recorded {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Recorded
	for _, r := range h.requests {
		if len(path) == 0 || r.Path == path[0] {
			out = append(out, r)
		}
	}
	return out
}

func (h *Host) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	h.mu.Lock()
	h.requests = append(h.requests, Recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	h.mu.Unlock()
	h.mux.ServeHTTP(w, r)
}

// next takes the next scripted answer; an empty script fails the test.
func (h *Host) next(path string) (Answer, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.queue) == 0 {
		h.t.Errorf("modeltest: %s called with no answer queued", path)
		return Answer{}, false
	}
	a := h.queue[0]
	h.queue = h.queue[1:]
	return a, true
}

// hang waits until the client gives up or the host closes.
func (h *Host) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-h.done:
	case <-time.After(time.Minute):
	}
}

func fixture(name string) map[string]any {
	data, err := fixtures.Models.ReadFile("models/" + name)
	if err != nil {
		panic(fmt.Sprintf("modeltest: fixture %s: %v", name, err))
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		panic(fmt.Sprintf("modeltest: fixture %s: %v", name, err))
	}
	return m
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func tokens(given int, text string) int {
	if given > 0 {
		return given
	}
	return len(text)/4 + 1
}

func (h *Host) modelNames() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.models...)
}

func isEmbedding(name string) bool { return strings.Contains(strings.ToLower(name), "embed") }

// Intelligence is the default intelligence settings with every stage
// routed to the OpenAI-compatible API at h and Ollama at h, both asking for
// model, with a 2 s timeout.
func (h *Host) Intelligence(model string) config.Intelligence {
	cfg := config.Default().Intelligence
	cfg.Provider = "http"
	cfg.HTTP.BaseURL = h.OpenAIURL()
	cfg.HTTP.Model = model
	cfg.HTTP.TimeoutMS = 2000
	cfg.Ollama.Host = h.URL
	cfg.Ollama.Model = model
	cfg.Ollama.TimeoutMS = 2000
	return cfg
}

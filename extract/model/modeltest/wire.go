package modeltest

import (
	"encoding/json"
	"net/http"
)

// openAIModels answers GET /v1/models in the recorded list shape.
func (h *Host) openAIModels(w http.ResponseWriter, _ *http.Request) {
	resp := fixture("openai-models.json")
	proto := resp["data"].([]any)[0].(map[string]any)
	var data []any
	for _, name := range h.modelNames() {
		m := map[string]any{}
		for k, v := range proto {
			m[k] = v
		}
		m["id"] = name
		data = append(data, m)
	}
	resp["data"] = data
	writeJSON(w, http.StatusOK, resp)
}

// chatRequest is the part of an OpenAI chat request the host reads.
type chatRequest struct {
	Model          string `json:"model"`
	Messages       []struct{ Role, Content string }
	ResponseFormat *struct {
		Type       string          `json:"type"`
		JSONSchema json.RawMessage `json:"json_schema"`
	} `json:"response_format"`
}

func (r chatRequest) promptText() string {
	s := ""
	for _, m := range r.Messages {
		s += m.Content
	}
	return s
}

// openAIChat answers POST /v1/chat/completions from the script.
func (h *Host) openAIChat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		openAIError(w, http.StatusBadRequest, "invalid request body: "+err.Error(), "invalid_request_error")
		return
	}
	if req.ResponseFormat != nil {
		h.mu.Lock()
		msg, rejected := h.rejects[req.ResponseFormat.Type]
		h.mu.Unlock()
		if rejected {
			openAIError(w, http.StatusBadRequest, msg, "invalid_request_error")
			return
		}
		if req.ResponseFormat.Type == "json_schema" && len(req.ResponseFormat.JSONSchema) == 0 {
			openAIError(w, http.StatusBadRequest, "response_format.json_schema is required when type is json_schema", "invalid_request_error")
			return
		}
	}
	a, ok := h.next(r.URL.Path)
	if !ok {
		openAIError(w, http.StatusInternalServerError, "modeltest: no answer queued", "server_error")
		return
	}
	switch {
	case a.Hang:
		h.hang(r)
		return
	case a.Status != 0 && a.Status != http.StatusOK:
		openAIError(w, a.Status, http.StatusText(a.Status), "server_error")
		return
	case a.Raw != "":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(a.Raw))
		return
	}
	resp := fixture("openai-chat-completion.json")
	resp["model"] = req.Model
	choice := resp["choices"].([]any)[0].(map[string]any)
	choice["message"].(map[string]any)["content"] = a.Content
	if a.NoUsage {
		delete(resp, "usage")
	} else {
		in, out := tokens(a.InputTokens, req.promptText()), tokens(a.OutputTokens, a.Content)
		resp["usage"] = map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}
	}
	writeJSON(w, http.StatusOK, resp)
}

func openAIError(w http.ResponseWriter, status int, msg, typ string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
}

// ollamaTags answers GET /api/tags in the recorded shape.
func (h *Host) ollamaTags(w http.ResponseWriter, _ *http.Request) {
	resp := fixture("ollama-tags.json")
	protos := resp["models"].([]any)
	var models []any
	for _, name := range h.modelNames() {
		proto := protos[0].(map[string]any)
		if isEmbedding(name) {
			proto = protos[1].(map[string]any)
		}
		m := map[string]any{}
		for k, v := range proto {
			m[k] = v
		}
		m["name"], m["model"] = name, name
		models = append(models, m)
	}
	resp["models"] = models
	writeJSON(w, http.StatusOK, resp)
}

// ollamaChat answers POST /api/chat (non-streaming) from the script.
func (h *Host) ollamaChat(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string                           `json:"model"`
		Messages []struct{ Role, Content string } `json:"messages"`
		Stream   *bool                            `json:"stream"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	if req.Stream == nil || *req.Stream {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "modeltest: only non-streaming chat is scripted; send \"stream\": false"})
		return
	}
	a, ok := h.next(r.URL.Path)
	if !ok {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "modeltest: no answer queued"})
		return
	}
	switch {
	case a.Hang:
		h.hang(r)
		return
	case a.Status != 0 && a.Status != http.StatusOK:
		writeJSON(w, a.Status, map[string]string{"error": http.StatusText(a.Status)})
		return
	case a.Raw != "":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(a.Raw))
		return
	}
	resp := fixture("ollama-chat.json")
	resp["model"] = req.Model
	resp["message"].(map[string]any)["content"] = a.Content
	if a.NoUsage {
		delete(resp, "prompt_eval_count")
		delete(resp, "eval_count")
	} else {
		prompt := ""
		for _, m := range req.Messages {
			prompt += m.Content
		}
		resp["prompt_eval_count"], resp["eval_count"] = tokens(a.InputTokens, prompt), tokens(a.OutputTokens, a.Content)
	}
	writeJSON(w, http.StatusOK, resp)
}

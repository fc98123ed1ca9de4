package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/recollect/recollect/store/config"
)

// Response formats an OpenAI-compatible host may support, best first. A host
// that answers 400 to one is asked with the next for the rest of the run.
const (
	formatJSONSchema int32 = iota
	formatJSONObject
	formatPromptOnly
)

var formatNames = []string{"json_schema", "json_object", "prompt-only JSON"}

// httpHost is an OpenAI-compatible host's settings and go-openai client,
// built once with the router.
type httpHost struct {
	cfg    config.HTTPProvider
	client *openai.Client
	keyErr error
}

// httpProvider is one run's calls to an OpenAI-compatible host: the model
// it discovered and the response format the host accepts last the run.
type httpProvider struct {
	*httpHost
	warn   func(string)
	format atomic.Int32

	models modelChoice
}

var _ Provider = (*httpProvider)(nil)

func newHTTPHost(cfg config.HTTPProvider, getenv func(string) string) (*httpHost, error) {
	if _, err := url.Parse(cfg.BaseURL); err != nil {
		return nil, &config.Error{Path: "intelligence.http.base_url", Msg: fmt.Sprintf("%q is not a URL; write e.g. http://localhost:11434/v1", cfg.BaseURL)}
	}
	p := &httpHost{cfg: cfg}
	key := ""
	if cfg.APIKeyEnv != "" {
		if key = getenv(cfg.APIKeyEnv); key == "" {
			p.keyErr = fmt.Errorf("%w: intelligence.http.api_key_env names %s, which is not set; export %s with the host's API key", ErrSetup, cfg.APIKeyEnv, cfg.APIKeyEnv)
		}
	}
	oc := openai.DefaultConfig(key)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	oc.HTTPClient = BoundedClient(0)
	p.client = openai.NewClientWithConfig(oc)
	return p, nil
}

func (h *httpHost) forRun(warn func(string)) Provider {
	return &httpProvider{httpHost: h, warn: warn, models: modelChoice{model: h.cfg.Model}}
}

// Name implements Provider.
func (p *httpProvider) Name() string { return "http" }

// resolveModel returns the configured model or discovers the host's only
// chat model, once per run.
func (p *httpProvider) resolveModel(ctx context.Context) (string, error) {
	return p.models.resolve(ctx, p.timeout(), func(ctx context.Context) ([]string, error) {
		list, err := p.client.ListModels(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: intelligence.http.model is empty and listing the models at %s/models failed: %w", ErrSetup, p.cfg.BaseURL, err)
		}
		names := make([]string, 0, len(list.Models))
		for _, m := range list.Models {
			names = append(names, m.ID)
		}
		return names, nil
	}, p.cfg.BaseURL, "intelligence.http.model", p.warn)
}

// chooseChatModel picks the one chat model a host offers. Names containing
// "embed" are embedding models, not chat models. Several chat models are
// refused: recollect never guesses which one the user meant.
func chooseChatModel(names []string, where, key string) (model, warning string, err error) {
	chat := ChatModels(names)
	switch len(chat) {
	case 0:
		return "", "", fmt.Errorf("%w: %s offers no chat model; pull one or set %s", ErrSetup, where, key)
	case 1:
		return chat[0], fmt.Sprintf("%s is empty; using %s, the only chat model at %s — pin %s", key, chat[0], where, key), nil
	}
	return "", "", fmt.Errorf("%w: %s is empty and %s offers %d chat models (%s); set %s to one of them", ErrSetup, key, where, len(chat), strings.Join(chat, ", "), key)
}

// ChatModels filters a host's model list to chat models, sorted: names
// containing "embed" are embedding models.
func ChatModels(names []string) []string {
	var chat []string
	for _, n := range names {
		if !strings.Contains(strings.ToLower(n), "embed") {
			chat = append(chat, n)
		}
	}
	sort.Strings(chat)
	return chat
}

func (p *httpProvider) timeout() time.Duration {
	return time.Duration(p.cfg.TimeoutMS) * time.Millisecond
}

// Complete implements Provider: one chat completion asking for a JSON
// object of req.Schema, in the best response format the host accepts.
func (p *httpProvider) Complete(ctx context.Context, req Request) (Response, error) {
	if p.keyErr != nil {
		return Response{}, p.keyErr
	}
	model, err := p.resolveModel(ctx)
	if err != nil {
		return Response{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.timeout())
	defer cancel()
	for {
		mode := p.format.Load()
		creq := openai.ChatCompletionRequest{
			Model: model,
			Messages: []openai.ChatCompletionMessage{
				{Role: openai.ChatMessageRoleSystem, Content: systemWithSchema(req)},
				{Role: openai.ChatMessageRoleUser, Content: req.Prompt},
			},
		}
		switch mode {
		case formatJSONSchema:
			creq.ResponseFormat = &openai.ChatCompletionResponseFormat{
				Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
				JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: schemaName(req), Schema: req.Schema},
			}
		case formatJSONObject:
			creq.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
		}
		resp, err := p.client.CreateChatCompletion(ctx, creq)
		if err != nil {
			if mode < formatPromptOnly && httpStatus(err) == http.StatusBadRequest {
				if p.format.CompareAndSwap(mode, mode+1) {
					p.warn(fmt.Sprintf("%s rejected response_format %s (%s); asking with %s for the rest of this run", p.cfg.BaseURL, formatNames[mode], oneLineErr(err), formatNames[mode+1]))
				}
				continue
			}
			return Response{Model: model}, fmt.Errorf("chat completion at %s: %w", p.cfg.BaseURL, err)
		}
		out := Response{Model: model}
		if resp.Model != "" {
			out.Model = resp.Model
		}
		if resp.Usage.PromptTokens > 0 || resp.Usage.CompletionTokens > 0 {
			// A prompt is never zero tokens: zeros mean the host did not count.
			in, o := int64(resp.Usage.PromptTokens), int64(resp.Usage.CompletionTokens)
			out.InputTokens, out.OutputTokens = &in, &o
		}
		if len(resp.Choices) == 0 {
			return out, fmt.Errorf("%w: %s returned no choices", ErrJunk, p.cfg.BaseURL)
		}
		out.Text = resp.Choices[0].Message.Content
		return out, nil
	}
}

// httpStatus is the HTTP status of a go-openai error, or 0.
func httpStatus(err error) int {
	var ae *openai.APIError
	if errors.As(err, &ae) {
		return ae.HTTPStatusCode
	}
	var re *openai.RequestError
	if errors.As(err, &re) {
		return re.HTTPStatusCode
	}
	return 0
}

func oneLineErr(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clip(s, 160)
}

func schemaName(req Request) string {
	if req.SchemaName != "" {
		return req.SchemaName
	}
	return req.Stage
}

// systemWithSchema appends the answer's schema to the instructions, so a
// host without structured output still knows the shape wanted.
func systemWithSchema(req Request) string {
	var b strings.Builder
	b.WriteString(req.System)
	if len(req.Schema) > 0 {
		var compact bytes.Buffer
		if err := json.Compact(&compact, req.Schema); err == nil {
			b.WriteString("\n\nAnswer with one JSON object, and nothing else, matching this JSON Schema:\n")
			b.WriteString(compact.String())
		}
	}
	return b.String()
}

package model

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recollect/recollect/store/config"
)

// ollamaHost is an Ollama host's settings and client, built once with the
// router.
type ollamaHost struct {
	cfg       config.OllamaProvider
	client    *api.Client
	keepAlive *api.Duration
}

// ollamaProvider is one run's calls to Ollama's native /api/chat, with the
// answer's JSON schema as the format and no streaming; the model it
// discovered lasts the run.
type ollamaProvider struct {
	*ollamaHost
	warn func(string)

	models modelChoice
}

var _ Provider = (*ollamaProvider)(nil)

func newOllamaHost(cfg config.OllamaProvider) (*ollamaHost, error) {
	u, err := url.Parse(strings.TrimRight(cfg.Host, "/"))
	if err != nil || u.Host == "" {
		return nil, &config.Error{Path: "intelligence.ollama.host", Msg: fmt.Sprintf("%q is not a URL; write e.g. http://localhost:11434", cfg.Host)}
	}
	p := &ollamaHost{cfg: cfg, client: api.NewClient(u, BoundedClient(0))}
	if !cfg.KeepAlive.Empty() {
		if cfg.KeepAlive.Err() != nil {
			return nil, &config.Error{Path: "intelligence.ollama.keep_alive", Msg: fmt.Sprintf("%q is not a duration; write e.g. \"5m\"", cfg.KeepAlive)}
		}
		p.keepAlive = &api.Duration{Duration: cfg.KeepAlive.Duration()}
	}
	return p, nil
}

func (h *ollamaHost) forRun(warn func(string)) Provider {
	return &ollamaProvider{ollamaHost: h, warn: warn, models: modelChoice{model: h.cfg.Model}}
}

// Name implements Provider.
func (p *ollamaProvider) Name() string { return "ollama" }

// resolveModel returns the configured model or the host's only chat model
// from /api/tags, once per run.
func (p *ollamaProvider) resolveModel(ctx context.Context) (string, error) {
	return p.models.resolve(ctx, time.Duration(p.cfg.TimeoutMS)*time.Millisecond, func(ctx context.Context) ([]string, error) {
		list, err := p.client.List(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: intelligence.ollama.model is empty and listing the models at %s/api/tags failed: %w", ErrSetup, p.cfg.Host, err)
		}
		names := make([]string, 0, len(list.Models))
		for _, m := range list.Models {
			names = append(names, m.Name)
		}
		return names, nil
	}, p.cfg.Host, "intelligence.ollama.model", p.warn)
}

// Complete implements Provider.
func (p *ollamaProvider) Complete(ctx context.Context, req Request) (Response, error) {
	model, err := p.resolveModel(ctx)
	if err != nil {
		return Response{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(p.cfg.TimeoutMS)*time.Millisecond)
	defer cancel()
	stream := false
	creq := &api.ChatRequest{
		Model: model,
		Messages: []api.Message{
			{Role: "system", Content: systemWithSchema(req)},
			{Role: "user", Content: req.Prompt},
		},
		Stream:    &stream,
		Format:    req.Schema,
		KeepAlive: p.keepAlive,
	}
	out := Response{Model: model}
	var last api.ChatResponse
	var text strings.Builder
	err = p.client.Chat(ctx, creq, func(r api.ChatResponse) error {
		text.WriteString(r.Message.Content)
		last = r
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("ollama chat at %s: %w", p.cfg.Host, err)
	}
	if last.Model != "" {
		out.Model = last.Model
	}
	if last.PromptEvalCount > 0 || last.EvalCount > 0 {
		in, o := int64(last.PromptEvalCount), int64(last.EvalCount)
		out.InputTokens, out.OutputTokens = &in, &o
	}
	out.Text = text.String()
	return out, nil
}

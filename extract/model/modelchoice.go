package model

import (
	"context"
	"sync"
	"time"
)

// modelChoice is the model a provider uses for a run: the configured one,
// or the host's only chat model, discovered on first use. A refusal (no or
// several chat models) is kept for the run; a failed listing is not, since
// the host may answer the next call.
type modelChoice struct {
	mu    sync.Mutex
	model string
	err   error
}

// current is the model chosen so far, "" before discovery.
func (m *modelChoice) current() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.model
}

// resolve returns the model, listing the host's models with list (bounded by
// timeout) when none is configured yet, and warning once when it picks one.
func (m *modelChoice) resolve(ctx context.Context, timeout time.Duration, list func(context.Context) ([]string, error), where, key string, warn func(string)) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.model != "" || m.err != nil {
		return m.model, m.err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	names, err := list(ctx)
	if err != nil {
		return "", err
	}
	model, warning, err := chooseChatModel(names, where, key)
	if err != nil {
		m.err = err
		return "", err
	}
	m.model = model
	warn(warning)
	return model, nil
}

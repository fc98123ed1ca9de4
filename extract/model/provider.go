package model

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Request is one structured model call.
type Request struct {
	// Stage is the pipeline stage making the call (extract, classify, …).
	Stage string
	// System and Prompt are the instructions and the material.
	System, Prompt string
	// SchemaName names the answer's schema (OpenAI's json_schema.name; the
	// stage when empty).
	SchemaName string
	// Schema is the JSON Schema the answer must satisfy (ValidateAnswer).
	Schema json.RawMessage
}

// Response is a model's answer with what it cost.
type Response struct {
	// Text is the answer, stripped of a Markdown fence by the router.
	Text string
	// Model is the model that answered, as the host named it (else the
	// configured one).
	Model string
	// Provider names the provider that answered (it differs from the
	// stage's provider when the on_fail provider answered).
	Provider string
	// InputTokens and OutputTokens are nil when the provider did not report
	// them: unknown is never written as zero.
	InputTokens, OutputTokens *int64
	// Elapsed is the call's wall time, set by the router.
	Elapsed time.Duration
}

// Provider is a model behind one of the configured names. The heuristic
// provider does not implement it: stages that see the heuristic provider run
// their own rule-based code instead of a model call.
type Provider interface {
	// Name is the configured provider name (http, ollama, cli).
	Name() string
	// Complete makes one call and returns the raw answer text.
	Complete(ctx context.Context, req Request) (Response, error)
}

// ErrHeuristic is returned by a router asked for a model when the stage is
// routed to the heuristic provider.
var ErrHeuristic = errors.New("stage runs on the heuristic provider")

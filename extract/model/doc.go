// Package model is how recollect asks a model: the request and response
// types every model stage (extract here, classification, duplicates and
// supersession in integrate) speaks, the router that picks a stage's
// provider, retries once, falls back to the stage's on_fail provider and
// refuses calls over a token budget, and the providers behind it — an
// OpenAI-compatible http host, Ollama's native API, the Claude Code CLI —
// with the embedded heuristic that stands in when no model is used. It
// books every call (spend rows, stage health), checks that an answer is a
// JSON object of the requested schema, bounds what one answer may add, and
// chooses which provider `init` writes.
//
// It does not decide what a stage does with an answer: which events to
// read and which facts to keep is extract's job, what is already known is
// integrate's.
package model

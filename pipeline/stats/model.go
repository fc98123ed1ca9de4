package stats

import (
	"context"
	"fmt"

	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// ModelStats is how the model stages stand: where each stage runs, each
// stage's provider health and the conversations whose extraction is held.
// Token budgets are Stats.Budgets.
type ModelStats struct {
	// Routes names each stage's provider after the kill-switch.
	Routes map[string]string `json:"routes"`
	Health []StageHealth     `json:"stage_health"`
	Held   []HeldExtraction  `json:"held_conversations"`
	// Notes are what the router said at config load (a budget that cannot
	// be enforced).
	Notes []string `json:"notes,omitempty"`
}

// StageHealth is one stage's record with one provider.
type StageHealth struct {
	Stage               string `json:"stage"`
	Provider            string `json:"provider"`
	ConsecutiveFailures int    `json:"consecutive_failures"`
	LastError           string `json:"last_error,omitempty"`
	LastErrorAt         string `json:"last_error_at,omitempty"`
	LastOKAt            string `json:"last_ok_at,omitempty"`
}

// HeldExtraction is a conversation whose last extract batch failed; its
// watermark stays until a run succeeds.
type HeldExtraction struct {
	SessionID           string `json:"session_id"`
	ConsecutiveFailures int    `json:"consecutive_failures"`
	LastError           string `json:"last_error"`
	LastErrorAt         string `json:"last_error_at"`
}

func modelStats(ctx context.Context, p *pipeline.Pipeline, st *Stats) error {
	ms := ModelStats{Routes: map[string]string{}, Health: []StageHealth{}, Held: []HeldExtraction{}}
	run, err := p.Router().BeginRun(ctx)
	if err != nil {
		return err
	}
	for _, s := range config.Stages {
		ms.Routes[s] = run.ProviderFor(s)
	}
	ms.Notes = run.Warnings()
	rows, err := p.Store().QueryContext(ctx, `SELECT stage, provider, consecutive_failures, COALESCE(last_error, ''), COALESCE(last_error_at, ''), COALESCE(last_ok_at, '')
		FROM stage_health ORDER BY stage, provider`)
	if err != nil {
		return fmt.Errorf("stats: read stage health: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h StageHealth
		if err := rows.Scan(&h.Stage, &h.Provider, &h.ConsecutiveFailures, &h.LastError, &h.LastErrorAt, &h.LastOKAt); err != nil {
			return fmt.Errorf("stats: read stage health: %w", err)
		}
		ms.Health = append(ms.Health, h)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("stats: read stage health: %w", err)
	}
	if ms.Held, err = heldExtractions(ctx, p.Store()); err != nil {
		return err
	}
	st.Model = ms
	return nil
}

func heldExtractions(ctx context.Context, db store.Querier) ([]HeldExtraction, error) {
	rows, err := db.QueryContext(ctx, `SELECT session_id, consecutive_failures, COALESCE(last_error, ''), COALESCE(last_error_at, '')
		FROM extract_watermarks WHERE consecutive_failures > 0 ORDER BY last_error_at DESC, session_id`)
	if err != nil {
		return nil, fmt.Errorf("stats: read held conversations: %w", err)
	}
	defer rows.Close()
	out := []HeldExtraction{}
	for rows.Next() {
		var h HeldExtraction
		if err := rows.Scan(&h.SessionID, &h.ConsecutiveFailures, &h.LastError, &h.LastErrorAt); err != nil {
			return nil, fmt.Errorf("stats: read held conversations: %w", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

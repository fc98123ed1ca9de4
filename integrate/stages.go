package integrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/store"
)

// stageCall is one model decision: the request and how to read its answer.
type stageCall struct {
	stage, system, prompt string
	schemaName            string
	schema                string
	// out receives the decoded answer; check rejects an answer that decodes
	// but cannot be used (an unknown id, an empty domain).
	out   any
	check func() error
}

// outcome is how a stage was decided.
type outcome int

const (
	byModel     outcome = iota // the model's answer is in c.out
	byHeuristic                // the stage runs on the heuristic provider
	failed                     // the model was asked and failed; take the safe path
)

// ask runs one model stage. An unusable answer is recorded in stage_health
// and the report and comes back as failed, so the caller takes the safe
// path rather than the heuristic's guess. Only a cancelled ctx is an error.
func (in *Integrator) ask(ctx context.Context, c stageCall, rep *Report) (actor string, how outcome, err error) {
	if in.Model == nil {
		return "", byHeuristic, nil
	}
	resp, err := in.Model.Call(ctx, model.Request{Stage: c.stage, System: c.system, Prompt: c.prompt,
		SchemaName: c.schemaName, Schema: json.RawMessage(c.schema)})
	switch {
	case err == nil:
	case errors.Is(err, model.ErrHeuristic):
		return "", byHeuristic, nil
	case ctx.Err() != nil:
		return "", failed, fmt.Errorf("%s stage: %w", c.stage, ctx.Err())
	default:
		// The router booked the failed call in stage_health; integrate
		// never holds a fact for it but takes the safe path.
		in.logger().Warn("model stage failed; taking the safe path", "stage", c.stage, "err", err)
		rep.StageFailures[c.stage]++
		return "", failed, nil
	}
	if err := decodeAnswer(resp.Text, c.out); err != nil {
		return "", failed, in.stageFailed(ctx, c.stage, err, rep)
	}
	if c.check != nil {
		if err := c.check(); err != nil {
			return "", failed, in.stageFailed(ctx, c.stage, fmt.Errorf("unusable answer: %w", err), rep)
		}
	}
	who := resp.Provider
	if who == "" {
		who = in.stageProvider(c.stage)
	}
	if resp.Model != "" {
		who += "/" + resp.Model
	}
	return "integrate/" + c.stage + ":" + who, byModel, nil
}

// decodeAnswer reads a JSON object from a model's answer, tolerating a code
// fence around it.
func decodeAnswer(text string, out any) error {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "```") {
		t = strings.TrimPrefix(t, "```json")
		t = strings.TrimPrefix(t, "```")
		t = strings.TrimSuffix(strings.TrimSpace(t), "```")
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("answer is not the requested JSON object: %w", err)
	}
	return nil
}

// stageFailed records an unusable answer or a failed call in stage_health
// and the report. It returns an error only when the record itself fails:
// the caller goes on with its heuristic path.
func (in *Integrator) stageFailed(ctx context.Context, stage string, cause error, rep *Report) error {
	in.logger().Warn("model stage failed; taking the safe path", "stage", stage, "err", cause)
	rep.StageFailures[stage]++
	return RecordStageFailure(ctx, in.DB, stage, in.stageProvider(stage), cause)
}

// RecordStageFailure counts one failure of stage on provider in
// stage_health, with the error, so stats can show what is failing.
func RecordStageFailure(ctx context.Context, ex store.Execer, stage, provider string, cause error) error {
	now := store.Now()
	_, err := ex.ExecContext(ctx, `INSERT INTO stage_health(stage, provider, consecutive_failures, last_error, last_error_at)
		VALUES (?, ?, 1, ?, ?)
		ON CONFLICT(stage, provider) DO UPDATE SET consecutive_failures = stage_health.consecutive_failures + 1,
			last_error = excluded.last_error, last_error_at = excluded.last_error_at`,
		stage, provider, truncate(cause.Error(), 500), now)
	if err != nil {
		return fmt.Errorf("record %s failure: %w", stage, err)
	}
	return nil
}

// stageProvider is the provider the config routes stage to.
func (in *Integrator) stageProvider(stage string) string {
	if r, ok := in.Config.Intelligence.Stages[stage]; ok && r.Provider != "" {
		return r.Provider
	}
	if in.Config.Intelligence.Provider == "" {
		return "heuristic"
	}
	return in.Config.Intelligence.Provider
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/store/config"
)

// cliProvider runs the Claude Code CLI in print mode, one process per call,
// in a fresh temporary directory and with notice.EnvChild set so that the
// child session's own hooks never call back into recollect.
type cliProvider struct {
	cfg config.CLIProvider
}

var _ Provider = (*cliProvider)(nil)

func newCLIProvider(cfg config.CLIProvider) *cliProvider { return &cliProvider{cfg: cfg} }

// forRun returns p: a cli call learns nothing a run must keep.
func (p *cliProvider) forRun(func(string)) Provider { return p }

// Name implements Provider.
func (p *cliProvider) Name() string { return "cli" }

// cliEnvelope is what `claude -p --output-format json` prints.
type cliEnvelope struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	IsError bool   `json:"is_error"`
	Result  string `json:"result"`
	Usage   *struct {
		InputTokens              *int64 `json:"input_tokens"`
		OutputTokens             *int64 `json:"output_tokens"`
		CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	} `json:"usage"`
	TotalCostUSD *float64 `json:"total_cost_usd"`
}

// Complete implements Provider.
func (p *cliProvider) Complete(ctx context.Context, req Request) (Response, error) {
	out := Response{Model: p.cfg.Model}
	bin, err := exec.LookPath(p.cfg.Command)
	if err != nil {
		return out, fmt.Errorf("%w: intelligence.cli.command %q is not on PATH; install Claude Code or choose another provider", ErrSetup, p.cfg.Command)
	}
	dir, err := os.MkdirTemp("", "recollect-cli-")
	if err != nil {
		return out, fmt.Errorf("%w: make a working directory: %w", ErrSetup, err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, time.Duration(p.cfg.TimeoutMS)*time.Millisecond)
	defer cancel()
	args := []string{"-p", "--output-format", "json"}
	if p.cfg.Model != "" {
		args = append(args, "--model", p.cfg.Model)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), notice.EnvChild+"=1")
	cmd.Stdin = strings.NewReader(systemWithSchema(req) + "\n\n" + req.Prompt)
	cmd.WaitDelay = 2 * time.Second
	var stdout boundedBuffer
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if stdout.over {
			return out, fmt.Errorf("run %s: %w", p.cfg.Command, ErrAnswerTooLarge)
		}
		if ctx.Err() != nil {
			return out, fmt.Errorf("%s timed out after %s (intelligence.cli.timeout_ms): %w", p.cfg.Command, time.Duration(p.cfg.TimeoutMS)*time.Millisecond, ctx.Err())
		}
		return out, fmt.Errorf("run %s: %w: %s", p.cfg.Command, err, lastLine(stderr.String()))
	}
	var env cliEnvelope
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &env); err != nil {
		return out, fmt.Errorf("%w: %s printed no JSON envelope: %s", ErrJunk, p.cfg.Command, lastLine(stdout.String()))
	}
	if env.Usage != nil && (env.Usage.InputTokens != nil || env.Usage.OutputTokens != nil) {
		in := sumTokens(env.Usage.InputTokens, env.Usage.CacheCreationInputTokens, env.Usage.CacheReadInputTokens)
		out.InputTokens, out.OutputTokens = in, env.Usage.OutputTokens
	}
	if env.IsError || env.Type != "result" {
		return out, fmt.Errorf("%s answered with an error (%s): %s", p.cfg.Command, env.Subtype, lastLine(env.Result))
	}
	out.Text = env.Result
	return out, nil
}

// sumTokens adds the reported counts; nil when none is reported.
func sumTokens(ps ...*int64) *int64 {
	var sum int64
	seen := false
	for _, p := range ps {
		if p != nil {
			sum += *p
			seen = true
		}
	}
	if !seen {
		return nil
	}
	return &sum
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	s = clip(s, 200)
	if s == "" {
		return "(no output)"
	}
	return s
}

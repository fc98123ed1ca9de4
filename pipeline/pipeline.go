// Package pipeline runs recollect's stages in order — copy transcripts into
// events, extract facts from events, integrate facts into knowledge — with
// their caps and watermarks, and offers the store-wide operations built on
// them: record, stats. Front ends (the CLI, the daemon's scheduler, the MCP
// server) call pipeline; pipeline calls sources, extract, integrate and graph.
package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store"
)

// EnvProvider is the kill-switch: RECOLLECT_PROVIDER=heuristic forces the
// embedded heuristic provider for every stage.
const EnvProvider = "RECOLLECT_PROVIDER"

// Steps selects which stages a run performs; none set means all three.
type Steps struct {
	Copy, Extract, Integrate bool
}

// RunOptions bound a consolidation run.
type RunOptions struct {
	Steps
	Extract extract.Options
	// Trigger names the moment that started the run (cli, daemon-start, …).
	Trigger string
}

// Summary is what a consolidation run did, step by step. A step that did
// not run is nil, never a zero that reads as "ran and found nothing".
type Summary struct {
	RunID     int64             `json:"run_id"`
	Trigger   string            `json:"trigger"`
	Copy      *CopyReport       `json:"copy,omitempty"`
	Extract   *extract.Report   `json:"extract,omitempty"`
	Integrate *integrate.Report `json:"integrate,omitempty"`
	// Window is what the run deleted as past retention.window; nil when
	// no window is set or the run did not integrate.
	Window  *WindowReport `json:"window,omitempty"`
	Elapsed string        `json:"elapsed"`
	// Error is why the run stopped early; "" when every step finished.
	Error string `json:"error,omitempty"`
}

// CopyReport says what the copy step did.
type CopyReport struct {
	Files  int    `json:"files"`
	Events int    `json:"events"`
	Note   string `json:"note,omitempty"`
	// Detail is the copier's full report; nil in a record store.
	Detail *sources.Report `json:"detail,omitempty"`
}

// Run performs the selected steps in order: copy, extract, integrate. Every
// run it starts is finished in the runs table, a failed one with its error,
// so no run stays "in progress" after it returned.
func (p *Pipeline) Run(ctx context.Context, opts RunOptions) (Summary, error) {
	start := time.Now()
	if !opts.Copy && !opts.Steps.Extract && !opts.Integrate {
		opts.Steps = Steps{Copy: true, Extract: true, Integrate: true}
	}
	sum := Summary{Trigger: opts.Trigger}
	if sum.Trigger == "" {
		sum.Trigger = "cli"
	}
	if err := p.checkVersion(ctx); err != nil {
		return sum, fmt.Errorf("start run: %w", err)
	}
	var err error
	sum.RunID, _, err = p.db.InsertID(ctx, "id", `INSERT INTO runs(trigger, started_at) VALUES (?, ?)`, sum.Trigger, store.Now())
	if err != nil {
		return sum, fmt.Errorf("start run: %w", err)
	}
	p.optimize(ctx)
	err = p.runSteps(ctx, opts, &sum)
	sum.Elapsed = time.Since(start).Round(time.Millisecond).String()
	if err != nil {
		sum.Error = err.Error()
	}
	return sum, errors.Join(err, p.finishRun(ctx, sum))
}

// checkVersion refuses a run on a store a newer recollect has migrated
// since this process opened it — another machine's daemon on a shared
// PostgreSQL schema, or a newer binary's command beside this daemon — whose
// tables this binary no longer knows.
func (p *Pipeline) checkVersion(ctx context.Context) error {
	v, err := p.db.Version(ctx)
	if err != nil {
		return err
	}
	if v > store.SchemaVersion {
		return fmt.Errorf("%w: %s is at schema version %d since this process opened it, and this binary knows up to %d; upgrade recollect here and restart it",
			store.ErrNewerSchema, p.db.Path, v, store.SchemaVersion)
	}
	return nil
}

// runSteps runs the selected steps into sum, stopping at the first that
// fails.
func (p *Pipeline) runSteps(ctx context.Context, opts RunOptions, sum *Summary) error {
	ctx = model.WithRun(ctx, sum.RunID)
	run, err := p.router.BeginRun(ctx)
	if err != nil {
		return err
	}
	if opts.Copy {
		rep, err := p.Copy(ctx)
		if err != nil {
			return fmt.Errorf("copy: %w", err)
		}
		sum.Copy = &rep
	}
	if opts.Steps.Extract {
		rep, err := p.extractStage(run).Run(ctx, opts.Extract)
		if err != nil {
			return fmt.Errorf("extract: %w", err)
		}
		sum.Extract = &rep
	}
	if opts.Integrate {
		in, err := p.integrator(run)
		if err != nil {
			return err
		}
		rep, err := in.Run(ctx)
		if err != nil {
			return fmt.Errorf("integrate: %w", err)
		}
		sum.Integrate = &rep
		// A consolidation (the daemon's or consolidate's) also deletes
		// what has passed the retention window since the last one.
		if sum.Window, err = p.enforceWindow(ctx, "run:"+sum.Trigger); err != nil {
			return err
		}
	}
	return nil
}

func (p *Pipeline) finishRun(ctx context.Context, sum Summary) error {
	data, err := jsonString(sum)
	if err != nil {
		return err
	}
	if _, err := p.db.ExecContext(context.WithoutCancel(ctx), `UPDATE runs SET finished_at = ?, summary = ? WHERE id = ?`, store.Now(), data, sum.RunID); err != nil {
		return fmt.Errorf("finish run %d: %w", sum.RunID, err)
	}
	return nil
}

// Copy runs the copy step: new transcript lines into events. It copies
// with the pipeline's one Copier, the one the daemon's follower and the
// MCP server's tool calls use too.
func (p *Pipeline) Copy(ctx context.Context) (CopyReport, error) {
	if p.copier == nil {
		return CopyReport{Note: "record store: events come from record and log_event, there are no transcripts to copy"}, nil
	}
	rep, err := p.copier.CopyAll(ctx)
	out := CopyReport{Files: rep.Files, Events: int(rep.Events), Detail: &rep}
	if err != nil {
		return out, err
	}
	if n := len(rep.Errors); n > 0 {
		out.Note = fmt.Sprintf("%d events from %d files; %d could not be read (first: %s)", rep.Events, rep.Files, n, rep.Errors[0].Error())
	}
	return out, nil
}

// Router is the pipeline's one model router, built at Open from the config
// and the environment (the RECOLLECT_PROVIDER kill-switch, API keys): its
// providers and HTTP clients serve every run in the process.
func (p *Pipeline) Router() *model.Router { return p.router }

// ExtractStage builds the extract stage with the provider the config (or
// the kill-switch) selects, over a run of its own on the pipeline's router.
func (p *Pipeline) ExtractStage(ctx context.Context) (*extract.Stage, error) {
	run, err := p.router.BeginRun(ctx)
	if err != nil {
		return nil, err
	}
	return p.extractStage(run), nil
}

// extractStage builds the extract stage over run: the heuristic when the
// extract stage routes there, else one model call per conversation.
func (p *Pipeline) extractStage(run *model.Run) *extract.Stage {
	var ex extract.Extractor = extract.Heuristic{}
	if run.ProviderFor("extract") != "heuristic" {
		ex = &extract.ModelExtractor{DB: p.db, Run: run, Config: p.Config.Extraction, Log: p.Logger()}
	}
	return &extract.Stage{DB: p.db, Config: p.Config.Extraction, Extractor: ex, Log: p.Logger()}
}

// integrator builds the integrate stage whose model stages call run.
func (p *Pipeline) integrator(run *model.Run) (*integrate.Integrator, error) {
	in := &integrate.Integrator{DB: p.db, Config: p.Config, Log: p.Logger(), Model: run, Readings: p.readings}
	emb, err := p.Embedder()
	switch {
	case err == nil:
		in.Embedder = emb
	case !errors.Is(err, model.ErrEmbeddingsOff):
		return nil, err
	}
	return in, nil
}

// Embedder is the configured embedder, the one that wrote the facts'
// vectors, so a query embedded with it can be compared with them. It
// returns model.ErrEmbeddingsOff when embedding.provider is empty. It is
// built once per pipeline: every search's query embedding reuses its
// client and connections.
func (p *Pipeline) Embedder() (model.Embedder, error) {
	p.embedOnce.Do(func() { p.embedder, p.embedErr = model.NewEmbedder(p.Config.Embedding, p.Getenv) })
	return p.embedder, p.embedErr
}

// ProviderName is the provider the extract stage will use, after the
// kill-switch.
func (p *Pipeline) ProviderName() string {
	if p.Getenv(EnvProvider) == "heuristic" {
		return "heuristic"
	}
	return p.Config.Intelligence.Provider
}

func jsonString(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode: %w", err)
	}
	return string(b), nil
}

func jsonUnmarshal(s string, v any) error {
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	return nil
}

// BinaryVersion is the version to report: the one the front end set, else
// the module version from the build info.
func (p *Pipeline) BinaryVersion() string {
	if p.version != "" {
		return p.version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

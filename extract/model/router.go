package model

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// EnvProvider is the kill-switch: RECOLLECT_PROVIDER=heuristic routes every
// stage to the embedded heuristic provider, whatever config.json says.
const EnvProvider = "RECOLLECT_PROVIDER"

// ErrHeld means a stage's model calls failed (after the retry and the
// stage's on_fail provider) or were refused: the caller writes nothing and
// keeps its watermark, so the same input is tried again next run.
var ErrHeld = errors.New("held")

// ErrOverBudget means a provider's token budget is spent for one of its
// windows. A call refused for it is also ErrHeld and never falls back to
// another provider or the heuristic.
var ErrOverBudget = errors.New("over the token budget")

// ErrSetup marks a failure before any model was called (no model chosen, a
// missing API key, a missing executable). It is not retried and not billed.
var ErrSetup = errors.New("provider is not set up")

// Router resolves each stage's provider, makes the calls with one retry and
// the stage's fallback, checks token budgets first, and writes a spend row
// and the stage's health for every call. One Router serves a process: it
// holds the providers' settings and HTTP clients (their connection pools),
// built once. Calls go through a Run, which keeps what one run learns.
type Router struct {
	cfg    config.Intelligence
	db     *store.DB
	log    *slog.Logger
	killed bool
	hosts  map[string]host
}

// host is a provider's long-lived part: its settings and client. forRun
// gives the provider one run calls, with what that run learns (the
// discovered model, the response formats a host rejects) kept apart from
// every other run; warn takes the run's warnings.
type host interface {
	forRun(warn func(string)) Provider
}

// NewRouter builds the providers named by cfg. It makes no network call
// and reads no store; hosts are first contacted by a run's Call. getenv
// reads the kill-switch and API keys (os.Getenv in production).
func NewRouter(cfg config.Intelligence, db *store.DB, getenv func(string) string, log *slog.Logger) *Router {
	if log == nil {
		log = slog.Default()
	}
	r := &Router{cfg: cfg, db: db, log: log, killed: getenv(EnvProvider) == "heuristic", hosts: map[string]host{}}
	// A provider whose settings are wrong fails its calls, so a store that
	// never routes to it keeps working.
	if h, err := newHTTPHost(cfg.HTTP, getenv); err != nil {
		r.hosts["http"] = brokenProvider{name: "http", err: err}
	} else {
		r.hosts["http"] = h
	}
	if o, err := newOllamaHost(cfg.Ollama); err != nil {
		r.hosts["ollama"] = brokenProvider{name: "ollama", err: err}
	} else {
		r.hosts["ollama"] = o
	}
	r.hosts["cli"] = newCLIProvider(cfg.CLI)
	return r
}

// Run is one run's use of the shared router. What a run learns lasts as
// long as it does and no longer: the model discovered on a host whose
// model is not configured (a model pulled since is found by the next run;
// a failed discovery is never kept past the run), the response formats a
// host rejected, and the warnings, logged once per run. Spend rows carry
// the run id of the call's context (WithRun), so two runs at once in one
// process each book their own calls.
type Run struct {
	r         *Router
	providers map[string]Provider

	mu       sync.Mutex
	warnings []string
}

// BeginRun starts a run: fresh per-run provider state over the router's
// clients, and the token budgets checked, a budget that cannot be enforced
// being the run's first warning.
func (r *Router) BeginRun(ctx context.Context) (*Run, error) {
	run := &Run{r: r, providers: make(map[string]Provider, len(r.hosts))}
	for name, h := range r.hosts {
		run.providers[name] = h.forRun(run.warn)
	}
	if r.db != nil {
		if err := run.checkBudgetable(ctx); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// runKey is the context key of the run id spend rows are tagged with.
type runKey struct{}

// WithRun returns ctx tagged with a run: the spend rows of the calls made
// with it carry id. The id travels with the call, not the router, so runs
// sharing a router never tag each other's rows.
func WithRun(ctx context.Context, id int64) context.Context {
	return context.WithValue(ctx, runKey{}, id)
}

// runOf is the run id WithRun put in ctx, or nil (NULL) outside a run.
func runOf(ctx context.Context) any {
	if id, ok := ctx.Value(runKey{}).(int64); ok && id > 0 {
		return id
	}
	return nil
}

// Killed reports whether the RECOLLECT_PROVIDER kill-switch is on.
func (r *Router) Killed() bool { return r.killed }

// ProviderFor names the provider stage runs on: the kill-switch, then the
// stage's route, then intelligence.provider.
func (r *Router) ProviderFor(stage string) string {
	if r.killed {
		return "heuristic"
	}
	if route, ok := r.cfg.Stages[stage]; ok && route.Provider != "" {
		return route.Provider
	}
	return r.cfg.Provider
}

// ProviderFor names the provider stage runs on (Router.ProviderFor).
func (run *Run) ProviderFor(stage string) string { return run.r.ProviderFor(stage) }

// ModelFor names the model the stage's provider uses in this run: the
// configured one, the one the run discovered, or "" before discovery (or
// when there is none).
func (run *Run) ModelFor(stage string) string {
	switch p := run.providers[run.r.ProviderFor(stage)].(type) {
	case *httpProvider:
		return p.models.current()
	case *ollamaProvider:
		return p.models.current()
	case *cliProvider:
		return p.cfg.Model
	}
	return ""
}

// brokenProvider stands for a provider whose settings are invalid.
type brokenProvider struct {
	name string
	err  error
}

// Name implements Provider.
func (b brokenProvider) Name() string { return b.name }

// Complete implements Provider: it fails with the settings error.
func (b brokenProvider) Complete(context.Context, Request) (Response, error) {
	return Response{}, fmt.Errorf("%w: %w", ErrSetup, b.err)
}

func (b brokenProvider) forRun(func(string)) Provider { return b }

// onFail is the stage's fallback provider, or "" to hold.
func (r *Router) onFail(stage string) string {
	f := r.cfg.Stages[stage].OnFail
	if f == "none" {
		return ""
	}
	return f
}

// Warnings returns what the run noticed that the user should act on (an
// unpinned model, a host without JSON-schema support, a budget that cannot
// be enforced), once each.
func (run *Run) Warnings() []string {
	run.mu.Lock()
	defer run.mu.Unlock()
	return append([]string(nil), run.warnings...)
}

// warn logs msg the first time this run notices it.
func (run *Run) warn(msg string) {
	run.mu.Lock()
	defer run.mu.Unlock()
	for _, w := range run.warnings {
		if w == msg {
			return
		}
	}
	run.warnings = append(run.warnings, msg)
	run.r.log.Warn(msg)
}

// Call makes one structured call for req.Stage. It returns ErrHeuristic
// when the stage runs on the heuristic provider (the caller runs its rules),
// or when the stage's on_fail is heuristic and the model failed. Junk, an
// empty answer, a timeout or an HTTP error is retried once, then the
// stage's on_fail provider is tried; if that fails too the error wraps
// ErrHeld. A provider over its token budget is not called (ErrOverBudget,
// also ErrHeld). The spend rows carry the run id of ctx (WithRun).
func (run *Run) Call(ctx context.Context, req Request) (Response, error) {
	r := run.r
	name := r.ProviderFor(req.Stage)
	if name == "heuristic" {
		return Response{Provider: "heuristic"}, ErrHeuristic
	}
	resp, err := run.try(ctx, name, req)
	if err == nil {
		return resp, nil
	}
	if errors.Is(err, ErrOverBudget) || ctx.Err() != nil {
		return Response{}, fmt.Errorf("%w: %s on %s: %w", ErrHeld, req.Stage, name, err)
	}
	fb := r.onFail(req.Stage)
	switch {
	case fb == "" || fb == name:
	case fb == "heuristic":
		r.log.Warn("model failed; falling back to the heuristic", "stage", req.Stage, "provider", name, "err", err)
		return Response{Provider: "heuristic"}, fmt.Errorf("%s on %s failed (%s), on_fail is heuristic: %w", req.Stage, name, err, ErrHeuristic)
	default:
		r.log.Warn("model failed; trying on_fail provider", "stage", req.Stage, "provider", name, "on_fail", fb, "err", err)
		resp, ferr := run.try(ctx, fb, req)
		if ferr == nil {
			return resp, nil
		}
		err = fmt.Errorf("%w; on_fail %s: %w", err, fb, ferr)
	}
	return Response{}, fmt.Errorf("%w: %s on %s: %w", ErrHeld, req.Stage, name, err)
}

// try calls one provider, retrying once, and books every attempt.
func (run *Run) try(ctx context.Context, name string, req Request) (Response, error) {
	r := run.r
	p, ok := run.providers[name]
	if !ok {
		return Response{}, fmt.Errorf("%w: unknown provider %q", ErrSetup, name)
	}
	if err := r.checkBudget(ctx, name, time.Now()); err != nil {
		return Response{}, err
	}
	var last error
	for attempt := 1; attempt <= 2; attempt++ {
		if err := ctx.Err(); err != nil {
			return Response{}, err
		}
		start := time.Now()
		resp, err := p.Complete(ctx, req)
		resp.Elapsed = time.Since(start)
		resp.Provider = name
		if err == nil {
			resp.Text = answerJSON(resp.Text)
			err = ValidateAnswer(req.Schema, resp.Text)
		}
		if berr := r.book(ctx, req.Stage, name, resp, err); berr != nil {
			return Response{}, berr
		}
		if err == nil {
			return resp, nil
		}
		last = err
		if errors.Is(err, ErrSetup) {
			break
		}
		r.log.Warn("model call failed", "stage", req.Stage, "provider", name, "attempt", attempt, "err", err)
	}
	return Response{}, last
}

// book writes the spend row of a billed call and the stage's health.
func (r *Router) book(ctx context.Context, stage, provider string, resp Response, callErr error) error {
	if r.db == nil {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	now := store.Now()
	if !errors.Is(callErr, ErrSetup) {
		in, whyIn := saneTokens(resp.InputTokens)
		out, whyOut := saneTokens(resp.OutputTokens)
		for _, why := range []string{whyIn, whyOut} {
			if why != "" {
				r.log.Warn("model host reported an "+why, "stage", stage, "provider", provider)
			}
		}
		_, err := r.db.ExecContext(ctx, `INSERT INTO spend(run_id, stage, provider, model, input_tokens, output_tokens, elapsed_ms, ok, created_at)
			VALUES (?,?,?,?,?,?,?,?,?)`, runOf(ctx), stage, provider, nullIfEmpty(resp.Model), nullableInt(in), nullableInt(out),
			resp.Elapsed.Milliseconds(), callErr == nil, now)
		if err != nil {
			return fmt.Errorf("record spend: %w", err)
		}
	}
	var err error
	if callErr == nil {
		_, err = r.db.ExecContext(ctx, `INSERT INTO stage_health(stage, provider, consecutive_failures, last_ok_at) VALUES (?,?,0,?)
			ON CONFLICT(stage, provider) DO UPDATE SET consecutive_failures = 0, last_ok_at = excluded.last_ok_at`, stage, provider, now)
	} else {
		_, err = r.db.ExecContext(ctx, `INSERT INTO stage_health(stage, provider, consecutive_failures, last_error, last_error_at) VALUES (?,?,1,?,?)
			ON CONFLICT(stage, provider) DO UPDATE SET consecutive_failures = stage_health.consecutive_failures + 1,
				last_error = excluded.last_error, last_error_at = excluded.last_error_at`, stage, provider, callErr.Error(), now)
	}
	if err != nil {
		return fmt.Errorf("record stage health: %w", err)
	}
	return nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullableInt(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// checkBudget refuses a call when any of the provider's windows is spent.
func (r *Router) checkBudget(ctx context.Context, provider string, now time.Time) error {
	if r.db == nil || len(r.cfg.TokenBudget[provider]) == 0 {
		return nil
	}
	bs, err := budgetsFor(ctx, r.db, provider, r.cfg.TokenBudget[provider], now)
	if err != nil {
		return err
	}
	for _, b := range bs {
		if b.Remaining <= 0 {
			return fmt.Errorf("%w: %s used %s of its %s tokens per %s; %s", ErrOverBudget, provider,
				formatCount(b.Used), b.CapText, b.Window, b.agesOutText())
		}
	}
	return nil
}

// checkBudgetable warns, as a run begins, about a budget on a provider that
// has never reported token counts: such a budget cannot be enforced.
func (run *Run) checkBudgetable(ctx context.Context) error {
	r := run.r
	provs := make([]string, 0, len(r.cfg.TokenBudget))
	for p := range r.cfg.TokenBudget {
		provs = append(provs, p)
	}
	sort.Strings(provs)
	for _, p := range provs {
		note, err := unbudgetableNote(ctx, r.db, p)
		if err != nil {
			return err
		}
		if note != "" {
			run.warn("intelligence.token_budget." + p + ": " + note)
		}
	}
	return nil
}

// unbudgetableNote says why provider's budget cannot be enforced, or "".
func unbudgetableNote(ctx context.Context, db *store.DB, provider string) (string, error) {
	var calls, reported int
	err := db.QueryRowContext(ctx, `SELECT count(*), count(input_tokens) + count(output_tokens) FROM spend_counted WHERE provider = ? AND ok = 1`, provider).Scan(&calls, &reported)
	if err != nil {
		return "", fmt.Errorf("read spend: %w", err)
	}
	if calls > 0 && reported == 0 {
		return fmt.Sprintf("cannot be budgeted: the %s provider reported no token counts in %d calls, so its budget counts nothing; use a host that returns usage or remove the budget", provider, calls), nil
	}
	return "", nil
}

func formatCount(n int64) string {
	switch {
	case n >= 1e9:
		return strings.TrimSuffix(fmt.Sprintf("%.2f", float64(n)/1e9), ".00") + "G"
	case n >= 1e6:
		return strings.TrimSuffix(fmt.Sprintf("%.2f", float64(n)/1e6), ".00") + "M"
	case n >= 1e4:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e3), ".0") + "k"
	}
	return fmt.Sprint(n)
}

package stats

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
)

// SpendTotal sums model calls. Tokens a provider did not report are not
// guessed: those calls are counted in UnreportedCalls instead.
type SpendTotal struct {
	Calls           int   `json:"calls"`
	Failed          int   `json:"failed"`
	InputTokens     int64 `json:"input_tokens"`
	OutputTokens    int64 `json:"output_tokens"`
	UnreportedCalls int   `json:"unreported_calls"`
	ElapsedMS       int64 `json:"elapsed_ms"`
}

// RunSpend is one consolidation run with what its model calls cost.
type RunSpend struct {
	ID         int64  `json:"id"`
	Trigger    string `json:"trigger"`
	StartedAt  string `json:"started_at"`
	FinishedAt string `json:"finished_at,omitempty"`
	// Error is why the run stopped early; "" when it finished every step.
	Error string     `json:"error,omitempty"`
	Spend SpendTotal `json:"spend"`
}

// SpendStats is intelligence spend from the spend table.
type SpendStats struct {
	Last24h    SpendTotal            `json:"last_24h"`
	AllTime    SpendTotal            `json:"all_time"`
	ByStage    map[string]SpendTotal `json:"by_stage"`
	ByProvider map[string]SpendTotal `json:"by_provider"`
	// ByModel is keyed provider/model.
	ByModel  map[string]SpendTotal `json:"by_model"`
	LastRuns []RunSpend            `json:"last_runs"`
}

// DiskStats is the file and what prune could reclaim from it.
type DiskStats struct {
	// Engine is where FileBytes is measured: sqlite, the file with its
	// WAL; postgres, the schema's tables on the server.
	Engine    string `json:"engine"`
	FileBytes int64  `json:"file_bytes"`
	// Measured names what FileBytes is of: "file" or "schema"
	// (store.Engine.Footprint).
	Measured string `json:"measured"`
	// UsedBytes is what the pages hold; the budget is checked against it.
	UsedBytes int64 `json:"used_bytes"`
	// CacheBytes is the vector caches beside the store in its data
	// directory (sign codes and vectors, see pipeline.CacheBytes), outside the
	// budget.
	CacheBytes int64 `json:"cache_bytes"`
	// Privacy says who can read the data directory and its files (modes
	// on Unix, the access list on Windows); "unknown: …" when they could
	// not be read.
	Privacy           string            `json:"privacy"`
	Budget            string            `json:"budget,omitempty"`
	BudgetBytes       *int64            `json:"budget_bytes,omitempty"`
	ReclaimableEvents int               `json:"reclaimable_events"`
	ReclaimableBytes  int64             `json:"reclaimable_bytes"`
	WorkingMemory     int               `json:"working_memory"`
	LastRefusal       *pipeline.Refusal `json:"last_refusal,omitempty"`
	LastPruneAt       string            `json:"last_prune_at,omitempty"`
	LastPruneEvents   *int              `json:"last_prune_events,omitempty"`
	// Window is what is past retention.window now; nil when no window is
	// set.
	Window *pipeline.WindowReport `json:"window,omitempty"`
}

// DaemonStatus says whether a daemon answers on the data directory's
// control socket. It is probed read-only: one status request.
type DaemonStatus struct {
	Listening bool `json:"listening"`
	PID       int  `json:"pid,omitempty"`
	// Kind is who copies and consolidates: "daemon" (recollect daemon) or
	// "mcp" (recollect mcp, an MCP server, while no daemon runs); "" when
	// nobody listens or the process did not say.
	Kind   string `json:"kind,omitempty"`
	Socket string `json:"socket"`
	// Note says why not, or why the pid is not known.
	Note string `json:"note,omitempty"`
}

// SpaceVectors is how many vectors one embedding space holds.
type SpaceVectors struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Dim      int    `json:"dim"`
	Vectors  int    `json:"vectors"`
}

// SemanticCoverage is the configured (working) embedding space's coverage
// of active facts.
type SemanticCoverage struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// Dim is nil until the space holds a vector: the dimension is learnt
	// from the model's answers, not configured.
	Dim      *int `json:"dim,omitempty"`
	Embedded int  `json:"embedded"`
	Missing  int  `json:"missing"`
	// Uncoded counts vectors of the space without a sign code (stored
	// before codes existed): while it is above zero the similarity arm
	// scans every vector; the next consolidate writes them.
	Uncoded int `json:"uncoded"`
}

// EmbeddingStats lists the spaces present; Semantic is present only when an
// embedding provider is configured. Leftover spaces hold vectors that are
// kept but never compared with the working space's.
type EmbeddingStats struct {
	Semantic *SemanticCoverage `json:"semantic,omitempty"`
	Leftover []SpaceVectors    `json:"leftover_spaces"`
}

func spendStats(ctx context.Context, p *pipeline.Pipeline, st *Stats) error {
	sp := SpendStats{ByStage: map[string]SpendTotal{}, ByProvider: map[string]SpendTotal{}, ByModel: map[string]SpendTotal{}, LastRuns: []RunSpend{}}
	since := store.FormatTime(time.Now().Add(-24 * time.Hour))
	for _, g := range []struct {
		key   string
		where string
		args  []any
		into  map[string]SpendTotal
		one   *SpendTotal
	}{
		{key: "''", where: "created_at >= ?", args: []any{since}, one: &sp.Last24h},
		{key: "''", where: "1 = 1", one: &sp.AllTime},
		{key: "stage", where: "1 = 1", into: sp.ByStage},
		{key: "provider", where: "1 = 1", into: sp.ByProvider},
		{key: "provider || '/' || COALESCE(model, '(unnamed)')", where: "1 = 1", into: sp.ByModel},
	} {
		m, err := spendTotals(ctx, p.Store(), g.key, g.where, g.args...)
		if err != nil {
			return err
		}
		if g.one != nil {
			*g.one = m[""]
			continue
		}
		for k, v := range m {
			g.into[k] = v
		}
	}
	rows, err := p.Store().QueryContext(ctx, `SELECT id, trigger, started_at, COALESCE(finished_at, ''), COALESCE(summary, '')
		FROM runs ORDER BY id DESC LIMIT 10`)
	if err != nil {
		return fmt.Errorf("stats: read runs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r RunSpend
		var summary string
		if err := rows.Scan(&r.ID, &r.Trigger, &r.StartedAt, &r.FinishedAt, &summary); err != nil {
			return fmt.Errorf("stats: read runs: %w", err)
		}
		r.Error = runError(summary)
		sp.LastRuns = append(sp.LastRuns, r)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("stats: read runs: %w", err)
	}
	for i := range sp.LastRuns {
		m, err := spendTotals(ctx, p.Store(), "''", "run_id = ?", sp.LastRuns[i].ID)
		if err != nil {
			return err
		}
		sp.LastRuns[i].Spend = m[""]
	}
	st.Spend = sp
	return nil
}

// spendTotals sums spend rows matching where, grouped by key (an SQL
// expression; "”" for one total).
func spendTotals(ctx context.Context, q store.Querier, key, where string, args ...any) (map[string]SpendTotal, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+key+`, count(*), count(*) - sum(ok),
		COALESCE(sum(input_tokens), 0), COALESCE(sum(output_tokens), 0),
		sum(CASE WHEN input_tokens IS NULL AND output_tokens IS NULL THEN 1 ELSE 0 END), COALESCE(sum(elapsed_ms), 0)
		FROM spend_counted WHERE `+where+` GROUP BY 1`, args...)
	if err != nil {
		return nil, fmt.Errorf("stats: read spend: %w", err)
	}
	defer rows.Close()
	out := map[string]SpendTotal{}
	for rows.Next() {
		var k string
		var t SpendTotal
		if err := rows.Scan(&k, &t.Calls, &t.Failed, &t.InputTokens, &t.OutputTokens, &t.UnreportedCalls, &t.ElapsedMS); err != nil {
			return nil, fmt.Errorf("stats: read spend: %w", err)
		}
		out[k] = t
	}
	return out, rows.Err()
}

func diskStats(ctx context.Context, p *pipeline.Pipeline, st *Stats) error {
	d := DiskStats{Engine: p.Store().Engine().Name(), Budget: p.Config.Retention.DiskBudget.String()}
	var err error
	if d.FileBytes, d.Measured, err = p.Store().Engine().Footprint(ctx, p.Store()); err != nil {
		return err
	}
	if d.UsedBytes, err = p.Store().UsedBytes(ctx); err != nil {
		return err
	}
	d.CacheBytes = pipeline.CacheBytes(p.Dir())
	if d.Privacy, err = store.Privacy(p.Dir()); err != nil {
		d.Privacy = "unknown: " + err.Error()
	}
	if b, ok, err := p.DiskBudget(); err != nil {
		return err
	} else if ok {
		d.BudgetBytes = &b
	}
	rep, err := p.Reclaimable(ctx)
	if err != nil {
		return err
	}
	d.ReclaimableEvents, d.ReclaimableBytes, d.WorkingMemory = rep.Events, rep.Bytes, rep.WorkingMemory
	if d.Window, err = p.PastWindow(ctx); err != nil {
		return err
	}
	if r, ok, err := p.LastRefusal(ctx); err != nil {
		return err
	} else if ok {
		d.LastRefusal = &r
	}
	if d.LastPruneAt, d.LastPruneEvents, err = p.LastPrune(ctx); err != nil {
		return err
	}
	st.Disk = d
	st.FileBytes = d.FileBytes
	return nil
}

// probeDaemon asks the control socket for the daemon's status, read-only,
// with a short timeout: listening and pid come from the daemon's own answer.
func probeDaemon(ctx context.Context, dir string) DaemonStatus {
	ds := DaemonStatus{Socket: notice.SocketPath(dir)}
	if _, err := os.Stat(ds.Socket); errors.Is(err, os.ErrNotExist) {
		ds.Note = "no daemon: the control socket does not exist; start one with recollect daemon"
		return ds
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	resp, err := control.Send(ctx, ds.Socket, notice.Request{Op: notice.OpStatus})
	switch {
	case errors.Is(err, notice.ErrNoDaemon):
		ds.Note = "no daemon listening: the control socket is stale; start one with recollect daemon"
		return ds
	case err != nil:
		ds.Note = "unknown: the control socket did not answer a status request (" + err.Error() + ")"
		return ds
	}
	ds.Listening = true
	if resp.Status == nil || resp.Status.PID <= 0 {
		ds.Note = "pid unknown: the daemon's status carried no pid"
		return ds
	}
	ds.PID = resp.Status.PID
	ds.Kind = resp.Status.Kind
	return ds
}

// embeddingStats reads coverage through integrate, which owns the working
// space (the configured provider and model, in the dimension learnt from
// its first answer).
func embeddingStats(ctx context.Context, p *pipeline.Pipeline, st *Stats) error {
	es := EmbeddingStats{Leftover: []SpaceVectors{}}
	cfg := p.Config.Embedding
	sp, known, err := integrate.WorkingSpace(ctx, p.Store(), cfg)
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	if cfg.Provider == "" {
		sp = vector.Space{} // no working space: every stored space is leftover
	}
	cov, err := integrate.EmbeddingCoverage(ctx, p.Store(), sp)
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	if cfg.Provider != "" {
		es.Semantic = &SemanticCoverage{Provider: cfg.Provider, Model: cfg.Model, Embedded: cov.Embedded, Missing: cov.Missing}
		if known {
			dim := sp.Dim
			es.Semantic.Dim = &dim
			if err := p.Store().QueryRowContext(ctx, `SELECT
				(SELECT count(*) FROM embeddings WHERE provider = ?1 AND model = ?2 AND dim = ?3) -
				(SELECT count(*) FROM vector_codes WHERE provider = ?1 AND model = ?2 AND dim = ?3)`,
				sp.Provider, sp.Model, sp.Dim).Scan(&es.Semantic.Uncoded); err != nil {
				return fmt.Errorf("stats: count vectors without a sign code: %w", err)
			}
		}
	}
	for _, l := range cov.Leftover {
		es.Leftover = append(es.Leftover, SpaceVectors{Provider: l.Space.Provider, Model: l.Space.Model, Dim: l.Space.Dim, Vectors: l.Vectors})
	}
	st.Embeddings = es
	return nil
}

// runError is the error a run's report records, or "" when it records none
// (or the report is not JSON).
func runError(summary string) string {
	var run struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal([]byte(summary), &run) != nil || len(run.Error) == 0 || string(run.Error) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(run.Error, &s) == nil {
		return s
	}
	return string(run.Error)
}

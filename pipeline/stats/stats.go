// Package stats reads a store's self-report — what `recollect stats`, the
// inspect page and the MCP get_stats tool show: counts of events and
// facts, storage and disk, the backlog's projection, model spend and
// health, embedding coverage, sources, claims, what the copier could not
// read and whether a daemon answers. It reads through the Pipeline a
// process opened; pipeline itself never imports it. Every number is read
// from the store or is reported unknown with the reason.
package stats

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
)

// Stats is the store's self-report. Every number is read from the store;
// a number that cannot be known is absent with a reason in Unknown.
type Stats struct {
	DataDir       string `json:"data_dir"`
	SchemaVersion int    `json:"schema_version"`
	// Storage is the engine the store lives in and how it keeps vectors.
	Storage     StorageStats   `json:"storage"`
	FileBytes   int64          `json:"file_bytes"`
	Facts       FactCounts     `json:"facts"`
	FactsBy     map[string]int `json:"facts_by_producer"`
	Entities    int            `json:"entities"`
	Domains     map[string]int `json:"domains"`
	Events      EventCounts    `json:"events"`
	Unextracted int            `json:"unextracted_events"`
	// Backlog is how the unextracted events are worked through and how
	// long that will take.
	Backlog    BacklogStats   `json:"backlog"`
	Pending    int            `json:"pending_facts"`
	PendingBy  map[string]int `json:"pending_by_producer"`
	Skipped    map[string]int `json:"skipped_records"`
	Redactions map[string]int `json:"redactions"`
	// NotRead is what the copier could not read, and why.
	NotRead NotReadStats `json:"not_read"`
	// Sources is what each configured source sees and what was copied
	// from it.
	Sources []SourceStats `json:"sources"`
	// Claims is the pending facts an integrate run holds, by claimer.
	Claims []ClaimStats `json:"claims"`
	// SignUpTo is the newest fact the next integrate run signs again for
	// near-duplicate lookups (a store from before a signature change, once);
	// 0 when none waits.
	SignUpTo      int64            `json:"sign_again_up_to_fact"`
	Provider      string           `json:"provider"`
	LastRun       *json.RawMessage `json:"last_run,omitempty"`
	BinaryVersion string           `json:"binary_version"`
	// Produced counts I facts by the provider (and model) that extracted
	// them, every status included.
	Produced   map[string]int `json:"session_facts_by_producer"`
	Embeddings EmbeddingStats `json:"embeddings"`
	Spend      SpendStats     `json:"spend"`
	Disk       DiskStats      `json:"disk"`
	Daemon     DaemonStatus   `json:"daemon"`
	// Budgets is every configured token budget: used, remaining, and when
	// the oldest counted usage ages out of its rolling window.
	Budgets []model.Budget `json:"token_budgets"`
	// Model is where the model stages run and how they fare.
	Model ModelStats `json:"model"`
	// Unknown names each number that could not be read, with the reason.
	Unknown map[string]string `json:"unknown,omitempty"`
}

// FactCounts counts knowledge; Total includes superseded history.
type FactCounts struct {
	Active     int `json:"active"`
	Superseded int `json:"superseded"`
	Total      int `json:"total"`
}

// EventCounts counts raw events by source and by type.
type EventCounts struct {
	Count  int                      `json:"count"`
	Bytes  int64                    `json:"bytes"`
	ByKind map[string]CountAndBytes `json:"by_source_and_type"`
}

// CountAndBytes is a count with the content bytes it holds.
type CountAndBytes struct {
	Count int   `json:"count"`
	Bytes int64 `json:"bytes"`
}

// Read reads the self-report of the store p has open.
func Read(ctx context.Context, p *pipeline.Pipeline) (Stats, error) {
	st := Stats{DataDir: p.Dir(), FactsBy: map[string]int{}, Domains: map[string]int{}, PendingBy: map[string]int{},
		Skipped: map[string]int{}, Redactions: map[string]int{}, Events: EventCounts{ByKind: map[string]CountAndBytes{}},
		Produced: map[string]int{}, Unknown: map[string]string{}, BinaryVersion: p.BinaryVersion()}
	// A number that cannot be read is reported in Unknown with the reason;
	// it never fails the whole report, which is most needed when a store
	// is in trouble. Only a cancelled ctx ends it early.
	unknown := func(key string, err error) bool {
		if err == nil {
			return false
		}
		st.Unknown[key] = "could not be read: " + err.Error()
		return true
	}
	var err error
	if st.SchemaVersion, err = p.Store().Version(ctx); unknown("schema_version", err) {
		st.SchemaVersion = 0
	}
	st.Provider = p.ProviderName()
	storageStats(ctx, p, &st, unknown)
	countStats(ctx, p, &st, unknown)
	stage, err := p.ExtractStage(ctx)
	if !unknown("unextracted_events", err) {
		st.Unextracted, err = stage.Remaining(ctx)
		unknown("unextracted_events", err)
	}
	for _, step := range []struct {
		key string
		fn  func(context.Context, *pipeline.Pipeline, *Stats) error
	}{{"backlog", backlogStats}, {"spend", spendStats}, {"disk", diskStats}, {"embeddings", embeddingStats}, {"model", modelStats}, {"not_read", notReadStats}, {"sources", sourceStats}, {"claims", claimStats}, {"sign_again_up_to_fact", signStats}} {
		unknown(step.key, step.fn(ctx, p, &st))
	}
	if err := ctx.Err(); err != nil {
		return st, fmt.Errorf("stats: %w", err)
	}
	st.Daemon = probeDaemon(ctx, p.Dir())
	st.Budgets, err = model.Budgets(ctx, p.Store(), p.Config.Intelligence, time.Now())
	unknown("token_budgets", err)
	if st.Budgets == nil {
		st.Budgets = []model.Budget{}
	}
	if len(st.Unknown) == 0 {
		st.Unknown = nil
	}
	return st, nil
}

type scanFunc = func(...any) error

// countStats runs the store-wide counts, one query each; a count that
// fails is handed to unknown under its key and the others still run.
func countStats(ctx context.Context, p *pipeline.Pipeline, st *Stats, unknown func(string, error) bool) {
	into := func(m map[string]int) func(scanFunc) error {
		return func(scan scanFunc) error {
			var k string
			var n int
			err := scan(&k, &n)
			m[k] = n
			return err
		}
	}
	steps := []struct {
		key   string
		query string
		fn    func(scanFunc) error
	}{
		{"facts", `SELECT status, count(*) FROM facts GROUP BY status`, func(scan scanFunc) error {
			var s string
			var n int
			if err := scan(&s, &n); err != nil {
				return err
			}
			st.Facts.Total += n
			switch s {
			case "active":
				st.Facts.Active = n
			case "superseded":
				st.Facts.Superseded = n
			}
			return nil
		}},
		{"facts_by_producer", `SELECT producer, count(*) FROM facts WHERE status = 'active' GROUP BY producer`, into(st.FactsBy)},
		{"domains", `SELECT domain, count(*) FROM facts WHERE status = 'active' GROUP BY domain`, into(st.Domains)},
		{"entities", `SELECT count(*) FROM entities`, func(scan scanFunc) error { return scan(&st.Entities) }},
		{"events", `SELECT source, event_type, count(*), COALESCE(sum(octet_length(content)), 0) FROM session_events GROUP BY source, event_type`, func(scan scanFunc) error {
			var src, typ string
			var cb CountAndBytes
			if err := scan(&src, &typ, &cb.Count, &cb.Bytes); err != nil {
				return err
			}
			st.Events.ByKind[src+"/"+typ] = cb
			st.Events.Count += cb.Count
			st.Events.Bytes += cb.Bytes
			return nil
		}},
		{"pending_facts", `SELECT producer, count(*) FROM session_facts WHERE status IN ('pending','claimed') GROUP BY producer`, into(st.PendingBy)},
		{"skipped_records", `SELECT source || '/' || record_type, count FROM skipped_records`, into(st.Skipped)},
		{"redactions", `SELECT kind, count FROM redactions`, into(st.Redactions)},
		{"session_facts_by_producer", `SELECT producer || COALESCE('/' || model, ''), count(*) FROM session_facts GROUP BY 1`, into(st.Produced)},
		{"last_run", `SELECT summary FROM runs WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT 1`, func(scan scanFunc) error {
			var s string
			if err := scan(&s); err != nil {
				return err
			}
			raw := json.RawMessage(s)
			st.LastRun = &raw
			return nil
		}},
	}
	for _, s := range steps {
		unknown(s.key, eachRow(ctx, p.Store(), s.query, s.fn))
	}
	for _, n := range st.PendingBy {
		st.Pending += n
	}
}

// eachRow runs query and hands every row's Scan to fn.
func eachRow(ctx context.Context, q store.Querier, query string, fn func(scanFunc) error) error {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows.Scan); err != nil {
			return fmt.Errorf("stats: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	return nil
}

// StorageStats names the engine a store lives in: sqlite (Where is the
// file) or postgres (Where is the schema and server), and how vectors are
// kept there.
type StorageStats struct {
	Engine string `json:"engine"`
	// Server says the store is kept on a database server (PostgreSQL),
	// not in a file of the data directory.
	Server  bool   `json:"server"`
	Where   string `json:"where"`
	Vectors string `json:"vectors"`
	// Machine is this machine's id (store.MachineID), which keys its copy
	// progress; Machines counts the machines with copy progress in the
	// store, and Unowned the files whose progress was recorded before
	// machines were told apart and no copier has taken over yet.
	Machine  string `json:"machine"`
	Machines int    `json:"machines_copying"`
	Unowned  int    `json:"files_before_machines"`
	// LeftBehind is a memory.db in the data directory of a store that lives
	// elsewhere (PostgreSQL): a SQLite store this one does not read, most
	// likely the one kept before storage.provider changed; LeftBehindBytes
	// is its size on disk.
	LeftBehind      string `json:"left_behind,omitempty"`
	LeftBehindBytes int64  `json:"left_behind_bytes,omitempty"`
}

func storageStats(ctx context.Context, p *pipeline.Pipeline, st *Stats, unknown func(string, error) bool) {
	st.Storage = StorageStats{Engine: p.Store().Engine().Name(), Server: p.Store().Engine().Remote(), Where: p.Store().Path}
	machine, err := store.MachineID(p.Getenv)
	if !unknown("storage.machine", err) {
		st.Storage.Machine = machine
	}
	err = p.Store().QueryRowContext(ctx, `SELECT count(DISTINCT NULLIF(machine, '')), count(*) FILTER (WHERE machine = '') FROM source_files`).
		Scan(&st.Storage.Machines, &st.Storage.Unowned)
	unknown("storage.machines_copying", err)
	// A store kept elsewhere than the data directory's file leaves that
	// file, when there is one, unread.
	if path := filepath.Join(p.Dir(), store.DBFile); p.Dir() != "" && filepath.Clean(p.Store().Path) != path {
		if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
			st.Storage.LeftBehind, st.Storage.LeftBehindBytes = path, pipeline.FileBytes(path)
		}
	}
	v, err := p.Store().Engine().VectorStorage(ctx, p.Store())
	if !unknown("storage.vectors", err) {
		st.Storage.Vectors = v
	}
}

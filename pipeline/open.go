package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/postgres"
	"github.com/recollect/recollect/store/sqlite"
)

// Options are what the caller of Open injects. The zero value reads the
// process environment and logs to slog.Default().
type Options struct {
	// Getenv reads the environment (HOME, CLAUDE_CONFIG_DIR, API keys, the
	// RECOLLECT_PROVIDER kill-switch); os.Getenv when nil.
	Getenv func(string) string
	// Log receives every stage's lines, the copier's included;
	// slog.Default() when nil.
	Log *slog.Logger
	// Version is the binary's version for stats; the build info's when "".
	Version string
	// Config, when set, is the config to use instead of loading
	// config.json: the one a trust check read and checked
	// (config.TrustedConfig), so the bytes checked are the bytes used.
	Config *config.Config
}

// Pipeline is one opened data directory with its config and the
// long-lived parts built from them once, at Open: one process opens one
// Pipeline and hands it to the scheduler and the MCP server, so every
// copy in the process goes through the same Copier.
type Pipeline struct {
	// db is the store; Store hands it to the callers that do storage work
	// of their own.
	db *store.DB
	// Reader is the store's read side, built once with the pipeline and
	// kept, so its vector-code index stays warm across searches.
	Reader *graph.Reader
	// Config is config.json as Open loaded it; the copier was built from
	// its mode, sources and redaction then, the model router from its
	// intelligence section.
	Config config.Config

	getenv  func(string) string
	log     *slog.Logger
	version string
	// copier copies the transcripts of a copy store; nil in a record
	// store. The store's compare-and-swap on each file's progress still
	// guards against a copier in another process.
	copier *sources.Copier
	// router is the one model router: its providers and HTTP clients are
	// built once; each run begins its own model.Run over it.
	router *model.Router
	// readings keeps the statements integrate runs read for supersession
	// from one run to the next (bounded; see integrate.Readings).
	readings *integrate.Readings
	// optimized is when a run last brought the store's statistics up to
	// date (optimize).
	optimizeMu sync.Mutex
	optimized  time.Time
	// embedder is built once, on first use (Embedder), and its HTTP
	// client reused by every query and run.
	embedOnce sync.Once
	embedder  model.Embedder
	embedErr  error
}

// Open opens the store and config of data directory dir and builds the
// pipeline's long-lived parts once: the read side, the copier and the model
// router. It makes no network call and reads no transcript: a copier meets
// its files at its first copy, a model host its first call.
func Open(ctx context.Context, dir string, opts Options) (*Pipeline, error) {
	var cfg config.Config
	if opts.Config != nil {
		cfg = *opts.Config
	} else {
		var err error
		if cfg, err = config.Load(dir); err != nil {
			return nil, err
		}
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	db, err := OpenStore(ctx, dir, cfg.Storage, getenv)
	if err != nil {
		return nil, err
	}
	p := &Pipeline{db: db, Reader: graph.NewReader(db), Config: cfg, getenv: opts.Getenv, log: opts.Log, version: opts.Version}
	p.Reader.Retain(cfg.Retention.Window.Duration())
	if p.getenv == nil {
		p.getenv = os.Getenv
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	if cfg.Mode == config.ModeCopy {
		machine, err := store.MachineID(p.getenv)
		if err != nil {
			db.Close()
			return nil, err
		}
		p.copier = &sources.Copier{DB: db, Sources: cfg.Sources, Redaction: cfg.Redaction, Log: p.log, Getenv: p.getenv, Machine: machine}
	}
	p.router = model.NewRouter(cfg.Intelligence, db, p.getenv, p.log)
	p.readings = integrate.NewReadings(integrate.DefaultReadings)
	db.Room = p.EnsureRoom
	return p, nil
}

// OpenStore opens (creating and migrating if needed) the store of data
// directory dir in the engine storage names: memory.db in dir, or a schema
// on the PostgreSQL server whose URL the variable storage.postgres.url_env
// names holds (read with getenv). It never falls back from one engine to
// the other.
func OpenStore(ctx context.Context, dir string, storage config.Storage, getenv func(string) string) (*store.DB, error) {
	// The directory and config.json are the owner's alone, on either
	// engine, however they were made.
	if err := store.Private(dir, config.FileName); err != nil {
		return nil, err
	}
	if storage.Provider == "postgres" {
		if _, err := os.Stat(dir); err == nil {
			if err := store.PrivateDir(dir); err != nil {
				return nil, err
			}
		}
		return postgres.OpenStore(ctx, dir, postgres.Config{URLEnv: storage.Postgres.URLEnv, Schema: storage.Postgres.Schema, Getenv: getenv})
	}
	// A project store's WAL is replayed only when this machine's
	// recollect wrote it (config.CheckWAL); each open and close records
	// the one it keeps.
	if err := config.CheckWAL(dir, getenv); err != nil {
		return nil, err
	}
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	if err := config.RecordWAL(dir, getenv); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	db.OnClose = func() error { return config.RecordWAL(dir, getenv) }
	return db, nil
}

// Dir is the data directory the pipeline was opened on: where its
// config, its inspect page, its vector files, its daemon's lock and socket
// are, whichever engine holds the rows.
func (p *Pipeline) Dir() string { return p.db.Dir }

// Store is the pipeline's store handle, for callers whose work is storage
// itself: copying a store to another engine (storecopy), recording the
// identity of a store a command created, tuning or checking the
// connection (daemon, mcp), handing the store to an integrate command
// that reads or changes its knowledge rows (why, conflicts), the self-report
// in pipeline/stats, and benchmarks that seed and measure rows. Searching
// goes through Reader, running the stages through Run, and deleting
// through Forget, ForgetSelected and Prune.
func (p *Pipeline) Store() *store.DB { return p.db }

// Close closes the read side, then the store.
func (p *Pipeline) Close() error {
	var rerr error
	if p.Reader != nil {
		rerr = p.Reader.Close()
	}
	return errors.Join(rerr, p.db.Close())
}

// Logger is where the pipeline's stages log (Options.Log).
func (p *Pipeline) Logger() *slog.Logger { return p.log }

// Getenv reads the environment the pipeline was opened with
// (Options.Getenv).
func (p *Pipeline) Getenv(key string) string { return p.getenv(key) }

// CopyFile copies the new complete lines of one transcript with the
// pipeline's Copier: the daemon's follower calls it for each file the
// watcher reports. A record store has no transcripts to copy: it returns
// an error wrapping sources.ErrNotSelected.
func (p *Pipeline) CopyFile(ctx context.Context, path string) (sources.Report, error) {
	if p.copier == nil {
		return sources.Report{}, fmt.Errorf("copy %s: %w (a record store follows no transcripts)", path, sources.ErrNotSelected)
	}
	return p.copier.CopyFile(ctx, path)
}

// RecordFolders records the source folders a walk could not list, for
// stats; a folder readable again drops out. A record store has none.
func (p *Pipeline) RecordFolders(ctx context.Context, unreadable []sources.FileError) error {
	if p.copier == nil {
		return nil
	}
	return p.copier.RecordFolders(ctx, unreadable)
}

// CopyStats is what the pipeline's Copier stored since Open, and how
// often another process's copier made it start a file again; zero in a
// record store.
func (p *Pipeline) CopyStats() sources.Stats {
	if p.copier == nil {
		return sources.Stats{}
	}
	return p.copier.Stats()
}

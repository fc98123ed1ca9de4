package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/postgres"
	"github.com/recollect/recollect/store/sqlite"
)

// Stores opens the throwaway stores of the copy and search parts in the
// engine a user's config.json names: memory.db in the part's directory
// (the zero value), or, when Storage's provider is postgres, a schema of
// its own per store on the server the URL variable names, dropped when the
// store is closed.
type Stores struct {
	Storage config.Storage
	// Getenv reads the URL variable (os.Getenv when nil).
	Getenv func(string) string
	// run names this run's schemas apart from any other run's.
	run string
}

// Engine names the engine the stores live in.
func (s Stores) Engine() string {
	if s.Storage.Provider == "postgres" {
		return "postgres"
	}
	return "sqlite"
}

// named returns s with a fresh run name, so its schemas are this run's.
func (s Stores) named() (Stores, error) {
	var run [4]byte
	if _, err := rand.Read(run[:]); err != nil {
		return s, fmt.Errorf("name the run: %w", err)
	}
	s.run = hex.EncodeToString(run[:])
	return s, nil
}

// open opens the store called name in dir, through the same code path a
// user's store opens by; close closes it and, on PostgreSQL, drops its
// schema.
func (s Stores) open(ctx context.Context, dir, name string) (db *store.DB, closeFn func() error, err error) {
	if s.Engine() != "postgres" {
		db, err := sqlite.Open(ctx, dir)
		if err != nil {
			return nil, nil, err
		}
		return db, db.Close, nil
	}
	if s.run == "" {
		if s, err = s.named(); err != nil {
			return nil, nil, err
		}
	}
	storage := s.Storage
	storage.Postgres.Schema = s.schema(name)
	db, err = pipeline.OpenStore(ctx, dir, storage, s.Getenv)
	if err != nil {
		return nil, nil, err
	}
	return db, func() error {
		derr := postgres.DropSchema(context.WithoutCancel(ctx), db)
		return errors.Join(derr, db.Close())
	}, nil
}

// schema is the PostgreSQL schema of the store called name.
func (s Stores) schema(name string) string {
	return postgres.DefaultSchema("bench-" + s.run + "-" + name)
}

// reopen opens the store open made in dir under name again, through a new
// handle, as a new process would; close only closes that handle.
func (s Stores) reopen(ctx context.Context, dir, name string) (*store.DB, error) {
	if s.Engine() != "postgres" {
		return sqlite.Open(ctx, dir)
	}
	storage := s.Storage
	storage.Postgres.Schema = postgres.DefaultSchema("bench-" + s.run + "-" + name)
	return pipeline.OpenStore(ctx, dir, storage, s.Getenv)
}

// settle brings a freshly built store to rest as a user's store is when it
// is searched: SQLite's log checkpointed into the file (a read through a
// log of tens of megabytes pays a lookup per page), PostgreSQL's tables
// vacuumed and analysed (autovacuum does both after a bulk load; the
// planner needs the statistics, and counting reads only the index of a
// vacuumed table).
func settle(ctx context.Context, db *store.DB) error {
	if err := db.Engine().Settle(ctx, db); err != nil {
		return fmt.Errorf("settle the bench store: %w", err)
	}
	return nil
}

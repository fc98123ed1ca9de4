package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNoStore means a data directory holds no database yet.
var ErrNoStore = errors.New("no store in this data directory")

// ErrOlderSchema means a store still needs a migration that a reader may
// not run.
var ErrOlderSchema = errors.New("store needs a migration")

// OpenReader opens the store in data directory dir for reading only, as a
// hook does on every session start and prompt: it creates nothing (a
// missing database is ErrNoStore), migrates nothing (a store at another
// schema version is refused with the command that fixes it), and its
// connection cannot write. Readers still see every committed write, WAL
// included.
func OpenReader(ctx context.Context, dir string) (*DB, error) {
	path := filepath.Join(dir, DBFile)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s; run recollect init", ErrNoStore, dir)
		}
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	dsn := fileURI(path) + "?mode=ro&_busy_timeout=2000&_query_only=1"
	sqlDB, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	sqlDB.SetMaxOpenConns(1)
	db := Wrap(sqlDB, sqliteEngine{}, dir, path)
	v, err := db.Version(ctx)
	if err != nil {
		sqlDB.Close()
		return nil, err
	}
	switch {
	case v > SchemaVersion:
		sqlDB.Close()
		return nil, fmt.Errorf("%w: %s is at schema version %d, this binary knows up to %d; upgrade recollect", ErrNewerSchema, path, v, SchemaVersion)
	case v < SchemaVersion:
		sqlDB.Close()
		return nil, fmt.Errorf("%w: %s is at schema version %d, this binary's is %d; run any recollect command (e.g. recollect stats) to migrate it", ErrOlderSchema, path, v, SchemaVersion)
	}
	return db, nil
}

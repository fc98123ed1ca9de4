package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/recollect/recollect/store"
)

// OpenReader opens the store in data directory dir for reading only, as a
// hook does on every session start and prompt: it creates nothing (a
// missing database is store.ErrNoStore), migrates nothing (a store at another
// schema version is refused with the command that fixes it), and its
// connection cannot write. Readers still see every committed write, WAL
// included.
func OpenReader(ctx context.Context, dir string) (*store.DB, error) {
	path := filepath.Join(dir, store.DBFile)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s; run recollect init", store.ErrNoStore, dir)
		}
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	dsn := fileURI(path) + "?mode=ro&_busy_timeout=2000&_query_only=1"
	sqlDB, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	sqlDB.SetMaxOpenConns(1)
	db := store.Wrap(sqlDB, sqliteEngine{}, dir, path)
	v, err := db.Version(ctx)
	if err != nil {
		sqlDB.Close()
		return nil, err
	}
	switch {
	case v > store.SchemaVersion:
		sqlDB.Close()
		return nil, fmt.Errorf("%w: %s is at schema version %d, this binary knows up to %d; upgrade recollect", store.ErrNewerSchema, path, v, store.SchemaVersion)
	case v < store.SchemaVersion:
		sqlDB.Close()
		return nil, fmt.Errorf("%w: %s is at schema version %d, this binary's is %d; run any recollect command (e.g. recollect stats) to migrate it", store.ErrOlderSchema, path, v, store.SchemaVersion)
	}
	return db, nil
}

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/regfile"
)

// fileURI is path as an SQLite file: URI: the characters a URI gives a
// meaning ('%', '?', '#') escaped, so a data directory named "notes#2" or
// "what?" opens its own memory.db rather than a file named by the part
// before them.
func fileURI(path string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}

// ErrNoFTS5 means the binary's SQLite lacks FTS5: it was built without the
// sqlite_fts5 tag.
var ErrNoFTS5 = errors.New("this recollect was built without FTS5; rebuild with: go install -tags sqlite_fts5 ./cmd/recollect")

// Open opens (creating if needed) the store in data directory dir and
// migrates it to store.SchemaVersion.
func Open(ctx context.Context, dir string) (*store.DB, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory %s: %w", dir, err)
	}
	if err := store.PrivateDir(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, store.DBFile)
	db, err := OpenFile(ctx, path)
	if err != nil {
		return nil, err
	}
	db.Dir = dir
	return db, nil
}

// OpenFile opens the database at path without touching its directory. The
// file (and so its -wal and -shm) is its owner's alone: created 0600, or
// tightened to it.
func OpenFile(ctx context.Context, path string) (*store.DB, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("open %s: %w (%s); move it away or point --data at another directory", path, regfile.ErrNotRegular, fi.Mode().Type())
	}
	if err := store.PrivateDB(path); err != nil {
		return nil, err
	}
	// Each connection keeps up to 16 MiB of pages (SQLite's default is 2
	// MiB): a search of a large store reads the index's row sizes and
	// doclists again and again, and a page not held is a read from the
	// file system (at a million facts, search 1.5x as fast under load).
	dsn := fileURI(path) + "?_journal_mode=WAL&_busy_timeout=" + strconv.Itoa(busyTimeoutMS) + "&_foreign_keys=on&_synchronous=NORMAL&_txlock=immediate&_secure_delete=on&_cache_size=-16384"
	h := &handle{path: path}
	sqlDB := sql.OpenDB(watchedConnector{dsn: dsn, h: h})
	sqlDB.SetMaxIdleConns(idleConns)
	h.pool = sqlDB
	db := store.WrapHandle(sqlDB, sqliteEngine{counts: newCountCache(h, sqlDB), lists: newListCache(h, sqlDB)}, h, filepath.Dir(path), path)
	if err := checkFTS5(ctx, db); err != nil {
		sqlDB.Close()
		return nil, err
	}
	if err := db.Migrate(ctx, store.SchemaVersion); err != nil {
		sqlDB.Close()
		return nil, err
	}
	if err := h.watchFiles(); err != nil {
		sqlDB.Close()
		return nil, err
	}
	return db, nil
}

// checkFTS5 refuses a binary whose SQLite lacks FTS5 (ErrNoFTS5).
func checkFTS5(ctx context.Context, db *store.DB) error {
	var used int
	if err := db.QueryRowContext(ctx, `SELECT sqlite_compileoption_used('ENABLE_FTS5')`).Scan(&used); err != nil {
		return fmt.Errorf("open %s: %w", db.Path, err)
	}
	if used != 1 {
		return ErrNoFTS5
	}
	return nil
}

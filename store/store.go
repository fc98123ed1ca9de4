// Package store owns what every engine of a recollect store shares: the
// Engine interface (the seam: every statement only one engine understands
// — full-text search, PRAGMA, VACUUM, JSON arrays, the schema — is an
// Engine method), the DB and Tx wrappers that rebind the portable SQL the
// layers above write, the schema version both engines migrate to, the row
// types and small write helpers every layer shares (events, sessions, the
// mutation log, meta), the text index and query types, the rows graph's
// search arms read (each engine reads them its own way; the portable forms
// are here), the copy between stores and the data directory's privacy. The engines live below it:
// store/sqlite (the default, a file in the data directory) and
// store/postgres; each opens a store and hands back a *DB.
//
// It knows nothing about transcripts, models or ranking; those live in
// sources, extract, integrate and graph, which all import store.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/recollect/recollect/store/datadir"
)

// DBFile is the database file name inside a data directory.
const DBFile = datadir.StoreFile

// ErrNewerSchema means the file was written by a newer recollect.
var ErrNewerSchema = errors.New("store written by a newer recollect")

// ErrNoStore means a data directory holds no database yet.
var ErrNoStore = errors.New("no store in this data directory")

// ErrOlderSchema means a store still needs a migration that a reader may
// not run.
var ErrOlderSchema = errors.New("store needs a migration")

// SchemaVersion is the version a store has after every migration ran, on
// either engine: store/sqlite and store/postgres each migrate to it, and
// their tests pin that each has exactly this many migrations.
const SchemaVersion = 30

// DB is an open store. Packages above run their own portable queries
// through its ExecContext, QueryContext and QueryRowContext (and Tx), which
// rebind them for the engine, while sharing one connection pool and one set
// of connection settings. The embedded *sql.DB is the engine's raw handle,
// for the engines' packages (store/sqlite, store/postgres) and for tests.
type DB struct {
	*sql.DB
	eng Engine
	// Dir is the data directory, Path the database file inside it.
	Dir, Path string
	// Room, when set, is called by EnsureRoom before raw events are
	// written (see room.go).
	Room func(ctx context.Context) error

	// h is what the engine keeps beside the pool for this store (see
	// Handle); nil when it keeps nothing.
	h Handle
	// OnClose, when set, runs once the database is closed (after its
	// last connection, so a WAL SQLite removes is gone by then).
	OnClose func() error
}

// InDir reports whether the store is the database file in its data
// directory (Dir/DBFile), as SQLite's is; a store on a server is not.
func (db *DB) InDir() bool {
	return db.Dir != "" && filepath.Clean(db.Path) == filepath.Join(db.Dir, DBFile)
}

// Version reports the store's schema version.
func (db *DB) Version(ctx context.Context) (int, error) { return db.eng.Version(ctx, db) }

// Migrate moves the schema forward to version target, one transaction per
// step. A store newer than this binary is refused, never touched.
func (db *DB) Migrate(ctx context.Context, target int) error { return db.eng.Migrate(ctx, db, target) }

// Tx runs fn in one write transaction (BEGIN IMMEDIATE), committing when fn
// returns nil and rolling back otherwise. It refuses (ErrFilesChanged) once
// the database or its WAL was deleted or replaced under this handle.
func (db *DB) Tx(ctx context.Context, fn func(*Tx) error) error {
	if err := db.CheckWrite(); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(&Tx{tx: tx, eng: db.eng}); err != nil {
		return errors.Join(err, rollback(tx))
	}
	// Checked again under the write lock, right before the commit is
	// acknowledged: a write into a deleted WAL would be lost at close.
	if err := db.CheckWrite(); err != nil {
		return errors.Join(err, rollback(tx))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func rollback(tx *sql.Tx) error {
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}

// Now is the store's clock format: UTC RFC 3339 with nanoseconds, so text
// comparison orders times correctly.
func Now() string { return FormatTime(time.Now()) }

// FormatTime renders t in the store's time format.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// TimeLayout is the layout of every time column. Fixed width, so that text
// order is time order.
const TimeLayout = "2006-01-02T15:04:05.000000000Z"

// ParseAsOf reads a point in time given by a person: RFC 3339, or a date
// meaning the end of that day (UTC), so that "2026-03-03" includes
// everything recorded that day. The CLI's --as-of and the MCP tools' as_of
// both read it; an empty s is the zero time (now).
func ParseAsOf(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := ParseTime(s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse %q: not RFC 3339 (2026-03-03T12:00:00Z) or a date (2026-03-03)", s)
	}
	return t.Add(24*time.Hour - time.Nanosecond), nil
}

// ParseTime reads a time column written by FormatTime or any RFC 3339 time.
func ParseTime(s string) (time.Time, error) {
	if t, err := time.Parse(TimeLayout, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse time %q: %w", s, err)
	}
	return t.UTC(), nil
}

// Execer is what write helpers need: a *Tx or *DB.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// LogMutation appends one entry to the mutation log. Every supersede, merge,
// forget and prune goes through here.
func LogMutation(ctx context.Context, ex Execer, op, target, actor, reason, detail string) error {
	var d any
	if detail != "" {
		d = detail
	}
	_, err := ex.ExecContext(ctx,
		`INSERT INTO mutation_log(op, target, actor, reason, detail, created_at) VALUES (?,?,?,?,?,?)`,
		op, target, actor, reason, d, Now())
	if err != nil {
		return fmt.Errorf("log %s %s: %w", op, target, err)
	}
	return nil
}

// GetMeta reads a key from the meta table; ok is false when it is absent.
func GetMeta(ctx context.Context, ex Execer, key string) (value string, ok bool, err error) {
	err = ex.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read meta %s: %w", key, err)
	}
	return value, true, nil
}

// SetMeta writes a key to the meta table.
func SetMeta(ctx context.Context, ex Execer, key, value string) error {
	_, err := ex.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("write meta %s: %w", key, err)
	}
	return nil
}

package store

import (
	"database/sql"
	"errors"
)

// Wrap makes a store of a handle that another engine's package opened and
// migrated (store/postgres), so that package can import store without
// store importing it. dir is the data directory, which still holds the
// config, socket and logs; where names the database in messages (a schema
// on a server) as Path names SQLite's file.
func Wrap(raw *sql.DB, eng Engine, dir, where string) *DB {
	return WrapHandle(raw, eng, nil, dir, where)
}

// WrapHandle is Wrap for an engine that keeps more than the pool for one
// open store (h; see Handle).
func WrapHandle(raw *sql.DB, eng Engine, h Handle, dir, where string) *DB {
	return &DB{DB: raw, eng: eng, h: h, Dir: dir, Path: where}
}

// Handle is what an engine keeps for one open store beside its connection
// pool, for the DB methods the pool alone cannot answer: SQLite's
// connection pinned for the handle's life and the identity of the files
// it opened (store/sqlite). An engine that keeps nothing has none.
type Handle interface {
	// CheckWrite is nil while a write may commit; once the store's files
	// were deleted or replaced under this process, it is the error that
	// says so, every time.
	CheckWrite() error
	// DataVersion is a number that changes whenever anything commits to
	// the store; ok is false when there is none.
	DataVersion() (version int64, ok bool, err error)
	// KnowledgeVersion is a number that changes whenever a commit writes
	// the facts, their full-text index, entities or provenance, and with
	// no other commit; ok is false when there is none.
	KnowledgeVersion() (version int64, ok bool, err error)
	// LimitCache holds each new connection's page cache to kib KiB.
	LimitCache(kib int)
	// Close releases what the handle keeps; DB.Close calls it once the
	// pool is closed.
	Close() error
}

// CheckWrite is nil while a write to the store may commit, and the
// engine's error once it may not (SQLite: ErrFilesChanged in store/sqlite,
// after the store's files were deleted or replaced under this process).
// Tx checks it before a transaction and again before its commit.
func (db *DB) CheckWrite() error {
	if db.h == nil {
		return nil
	}
	return db.h.CheckWrite()
}

// DataVersion is a number that changes whenever anything commits to the
// store — this process's pool or another process — read from SQLite's
// pinned connection, which never writes (PRAGMA data_version). ok is false
// when the handle has no such number: a reader (OpenReader), or a store on
// PostgreSQL. Whoever keeps what it read must read the version before
// reading the store, so a commit in between is seen at the next call.
func (db *DB) DataVersion() (version int64, ok bool, err error) {
	if db.h == nil {
		return 0, false, nil
	}
	return db.h.DataVersion()
}

// KnowledgeVersion is a number that changes whenever a commit writes the
// facts (and with them their full-text index), the facts' entities, the
// entities and their aliases, the facts' provenance or the times of the
// events it cites — by this process's pool or another process — and with
// no other commit: a transcript line copied leaves it. ok is false when
// the handle has no such number: a reader (OpenReader), or a store on
// PostgreSQL. As with DataVersion, whoever keeps what it read must read
// the version before reading the store.
func (db *DB) KnowledgeVersion() (version int64, ok bool, err error) {
	if db.h == nil {
		return 0, false, nil
	}
	return db.h.KnowledgeVersion()
}

// LimitCache holds each of the store's connections to kib KiB of pages
// instead of what an open keeps (SQLite's PRAGMA cache_size; 16 MiB a
// connection): for a process that stays up, whose pool keeps several
// connections with a cache each. It does nothing on an engine without a
// cache of its own per connection, or when kib is not above zero.
func (db *DB) LimitCache(kib int) {
	if db.h == nil || kib <= 0 {
		return
	}
	db.h.LimitCache(kib)
}

// Close closes the pool and then what the engine keeps beside it (SQLite:
// the pinned connection, the last of the store's connections, whose close
// checkpoints the WAL and removes it), and then runs OnClose.
func (db *DB) Close() error {
	err := db.DB.Close()
	if db.h != nil {
		err = errors.Join(err, db.h.Close())
	}
	if db.OnClose != nil {
		err = errors.Join(err, db.OnClose())
	}
	return err
}

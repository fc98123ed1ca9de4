package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattn/go-sqlite3"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/regfile"
)

// ErrFilesChanged means the database file or its write-ahead log is no
// longer the one this handle opened: deleted (rm memory.db-wal under a
// running daemon) or replaced. A write committed now would land in a file
// nobody will read again, so the handle stops writing: every write
// transaction fails with this error until the process restarts.
var ErrFilesChanged = errors.New("the store's files changed under this process")

// fileWatch holds what the handle opened, to notice a vanished WAL or a
// replaced database before acknowledging a write. One connection stays
// open for the handle's life (pin, outside the pool), so SQLite never
// deletes the WAL itself while this process runs: a WAL that is gone, or
// has another inode, was removed by someone else.
type fileWatch struct {
	pin     *pin
	db, wal fileIdentity
	// walFile is the WAL opened read-only, never read: after an rm its link
	// count is zero even when a new connection has since made another WAL
	// at the path, so the error can say the WAL was deleted rather than
	// replaced. SQLite takes no locks on the WAL file itself, so this
	// descriptor's close releases none of its locks.
	walFile   *os.File
	mu        sync.Mutex
	broken    error
	unchecked bool // the platform has no inode, or the files were not found at open
	// known is the knowledge version last read (KnowledgeVersion) and the
	// data version read just before it.
	known struct {
		data, knowledge int64
		held            bool
	}
}

type fileIdentity struct{ dev, ino uint64 }

// handle is what an SQLite store opened for writing keeps beside its
// connection pool (store.Handle): the pinned connection and the identity
// of the files it opened, and the page cache of each new connection.
type handle struct {
	path string
	pool *sql.DB
	// files notices the database or its WAL deleted or replaced under
	// this handle; nil until watchFiles.
	files *fileWatch
	// cacheKiB, when above zero, is the page cache of each new
	// connection (LimitCache).
	cacheKiB atomic.Int64
}

var _ store.Handle = (*handle)(nil)

// watchFiles pins a connection and notes the files it opened.
func (h *handle) watchFiles() error {
	pin, err := openPin(h.path, busyTimeoutMS)
	if err != nil {
		return fmt.Errorf("open %s: %w", h.path, err)
	}
	w := &fileWatch{pin: pin}
	var okDB, okWAL bool
	w.db, okDB = identityOf(h.path)
	w.wal, okWAL = identityOf(h.path + "-wal")
	w.unchecked = !okDB || !okWAL
	if !w.unchecked {
		if f, err := os.Open(h.path + "-wal"); err == nil {
			if fi, err := f.Stat(); err == nil && sameFile(fi, w.wal) {
				w.walFile = f
			} else {
				f.Close()
			}
		}
	}
	h.files = w
	return nil
}

// CheckWrite returns ErrFilesChanged (wrapped with what changed) when the
// database or WAL at the path is not the one opened; once it has, it
// keeps returning it.
func (h *handle) CheckWrite() error {
	w := h.files
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.broken != nil || w.unchecked {
		return w.broken
	}
	what := ""
	if id, ok := identityOf(h.path); !ok {
		what = h.path + " was deleted"
	} else if id != w.db {
		what = h.path + " was replaced by another file"
	} else if w.walDeleted() {
		what = h.path + "-wal was deleted"
		if _, ok := identityOf(h.path + "-wal"); ok {
			what += "; the one at its path now is new"
		}
	} else if id, ok := identityOf(h.path + "-wal"); !ok {
		what = h.path + "-wal was deleted"
	} else if id != w.wal {
		what = h.path + "-wal was replaced by another file"
	}
	if what != "" {
		w.broken = fmt.Errorf("%w: %s; nothing more is written by this process (writes since the change may be lost); stop it and start it again", ErrFilesChanged, what)
	}
	return w.broken
}

// DataVersion is PRAGMA data_version read from the pinned connection,
// which never writes: it changes whenever anything commits to the store,
// this process's pool or another process.
func (h *handle) DataVersion() (version int64, ok bool, err error) {
	return h.onPin(func(w *fileWatch) (int64, error) { return h.dataVersion(w) })
}

// onPin runs read on the store's watch with its lock held, when the
// handle has a pinned connection: ok is false, and nothing read, when it
// has none.
func (h *handle) onPin(read func(w *fileWatch) (int64, error)) (version int64, ok bool, err error) {
	w := h.files
	if w == nil {
		return 0, false, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pin == nil {
		return 0, false, nil
	}
	if version, err = read(w); err != nil {
		return 0, false, err
	}
	return version, true, nil
}

// dataVersion reads PRAGMA data_version on w's pin; w.mu is held.
func (h *handle) dataVersion(w *fileWatch) (int64, error) {
	v, err := w.pin.dataVersion()
	if err != nil {
		return 0, fmt.Errorf("read the data version of %s: %w", h.path, err)
	}
	return v, nil
}

// KnowledgeVersion is a number that changes whenever a commit writes what
// the search caches derive from — the facts with their full-text index,
// the facts' entities, the entities and their aliases, the facts'
// provenance and the times of the events it cites — and with no other
// commit: not a copy of new transcript lines into session_events. It is
// knowledge_version's row (kept by triggers, migration v30), read on the
// pinned connection only when the data version changed since it was last
// read: the data version is read first, so a commit after it changes the
// data version the next call reads, and the row is read again.
func (h *handle) KnowledgeVersion() (version int64, ok bool, err error) {
	return h.onPin(func(w *fileWatch) (int64, error) {
		dv, err := h.dataVersion(w)
		if err != nil {
			return 0, err
		}
		if w.known.held && w.known.data == dv {
			return w.known.knowledge, nil
		}
		kv, err := w.pin.knowledgeVersion()
		if err != nil {
			w.known.held = false
			return 0, fmt.Errorf("read the knowledge version of %s: %w", h.path, err)
		}
		w.known.data, w.known.knowledge, w.known.held = dv, kv, true
		return kv, nil
	})
}

// Close closes the pinned connection once the pool is closed: the last
// of the store's connections to close checkpoints the WAL and removes it.
func (h *handle) Close() error {
	if h.files == nil {
		return nil
	}
	err := h.files.pin.close()
	if h.files.walFile != nil {
		h.files.walFile.Close()
	}
	return err
}

// walDeleted reports whether the WAL this handle opened has no name left.
func (w *fileWatch) walDeleted() bool {
	if w.walFile == nil {
		return false
	}
	fi, err := w.walFile.Stat()
	if err != nil {
		return false
	}
	n, ok := regfile.Links(fi)
	return ok && n == 0
}

// sameFile reports whether fi is the file whose identity is id.
func sameFile(fi os.FileInfo, id fileIdentity) bool {
	dev, ino, ok := regfile.FileID(fi)
	return ok && fileIdentity{dev, ino} == id
}

// watchedConnector opens the pool's connections, refusing a new one once
// the files changed: a connection opened after an rm of the WAL would make
// a new one at the path and answer its first read with SQLite's "disk I/O
// error"; the caller gets ErrFilesChanged, which says what happened and
// what to do, and no WAL is made.
type watchedConnector struct {
	dsn string
	h   *handle
}

// Connect opens a connection unless the handle's files changed.
func (c watchedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := c.h.CheckWrite(); err != nil {
		return nil, fmt.Errorf("open %s: %w", c.h.path, err)
	}
	// Opening a connection sets the journal mode, which on a store another
	// process is creating at the same moment can answer "locked" at once,
	// without waiting as the busy timeout waits for statements: it is
	// tried again, within the same bound.
	deadline := time.Now().Add(busyTimeoutMS * time.Millisecond)
	for {
		conn, err := c.Driver().Open(c.dsn)
		if err == nil {
			return c.h.sizeCache(conn)
		}
		if !busy(err) || time.Now().After(deadline) {
			return conn, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// LimitCache holds each of the handle's connections to kib KiB of pages
// (PRAGMA cache_size) instead of the 16 MiB a connection opened by Open
// keeps. The idle connections are closed, so the next statements open
// connections with the limit.
func (h *handle) LimitCache(kib int) {
	if h.files == nil || kib <= 0 {
		return
	}
	h.cacheKiB.Store(int64(kib))
	h.pool.SetMaxIdleConns(0)
	h.pool.SetMaxIdleConns(idleConns)
}

// sizeCache sets a new connection's page cache to the handle's limit
// (LimitCache), when one is set.
func (h *handle) sizeCache(conn driver.Conn) (driver.Conn, error) {
	kib := h.cacheKiB.Load()
	if kib <= 0 {
		return conn, nil
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		return conn, nil
	}
	if _, err := ex.ExecContext(context.Background(), "PRAGMA cache_size = -"+strconv.FormatInt(kib, 10), nil); err != nil {
		conn.Close()
		return nil, fmt.Errorf("open %s: set the page cache: %w", h.path, err)
	}
	return conn, nil
}

// Driver is the sqlite3 driver, with the functions the schema calls
// registered on each connection it opens (registerFuncs).
func (watchedConnector) Driver() driver.Driver {
	return &sqlite3.SQLiteDriver{ConnectHook: registerFuncs}
}

// identityOf is path's device and inode; ok is false when it does not
// exist or the platform has none.
func identityOf(path string) (fileIdentity, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileIdentity{}, false
	}
	dev, ino, ok := regfile.FileID(fi)
	return fileIdentity{dev, ino}, ok
}

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/store"
)

func setMeta(db *store.DB, key string) error {
	return db.Tx(context.Background(), func(tx *store.Tx) error { return store.SetMeta(context.Background(), tx, key, "v") })
}

// openWritten opens a store in a new directory and commits one write, so
// its WAL exists; the store closes when the test ends.
func openWritten(t *testing.T) (*store.DB, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := setMeta(db, "before"); err != nil {
		t.Fatal(err)
	}
	return db, dir
}

// Deleting memory.db-wal (or replacing memory.db) under a running process
// lost acknowledged writes silently: now every write transaction after
// the change fails with ErrFilesChanged naming what changed.
func TestWritesStopWhenStoreFilesChange(t *testing.T) {
	for _, tc := range []struct {
		name, says string
		change     func(t *testing.T, path string)
	}{
		{"wal deleted", "-wal was deleted", func(t *testing.T, path string) {
			if err := os.Remove(path + "-wal"); err != nil {
				t.Fatal(err)
			}
		}},
		// Another process opening the store after the deletion makes a new
		// WAL at the path: the file this process wrote to was still deleted,
		// and the error says so (it said "replaced", which sent a user who
		// had run rm looking for someone else).
		{"wal deleted and made again", "-wal was deleted; the one at its path now is new", func(t *testing.T, path string) {
			if err := os.Remove(path + "-wal"); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path+"-wal", nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"database replaced", "memory.db was replaced", func(t *testing.T, path string) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tmp := path + ".new"
			if err := os.WriteFile(tmp, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, dir := openWritten(t)
			tc.change(t, filepath.Join(dir, store.DBFile))
			for i := range 2 {
				err := setMeta(db, "after")
				if !errors.Is(err, ErrFilesChanged) || !strings.Contains(err.Error(), tc.says) {
					t.Fatalf("write %d after the change: %v; want ErrFilesChanged saying %q", i, err, tc.says)
				}
			}
		})
	}
}

// A connection the pool opens after the WAL was deleted is refused with
// ErrFilesChanged: SQLite would make a new WAL at the path and answer the
// read with "disk I/O error", which says neither what happened nor what to
// do.
func TestNewConnectionRefusedAfterWALDeleted(t *testing.T) {
	db, dir := openWritten(t)
	wal := filepath.Join(dir, store.DBFile) + "-wal"
	if err := os.Remove(wal); err != nil {
		t.Fatal(err)
	}
	db.SetMaxIdleConns(0) // the next statement needs a new connection
	db.SetMaxIdleConns(idleConns)
	var n int
	err := db.QueryRow(`SELECT count(*) FROM meta`).Scan(&n)
	if !errors.Is(err, ErrFilesChanged) || !strings.Contains(err.Error(), "-wal was deleted; nothing more is written") {
		t.Fatalf("read on a new connection after rm of the WAL: %v; want ErrFilesChanged saying the WAL was deleted", err)
	}
	if _, err := os.Stat(wal); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a WAL is at the path again (stat: %v); the refused connection should make none", err)
	}
}

// Reopening (a restart) writes again, and a handle kept open across its
// own checkpoints never trips the check.
func TestFilesCheckQuietOnHealthyStore(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if err := setMeta(db, "k"); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		if i%10 == 0 {
			if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				t.Fatal(err)
			}
		}
	}
	other, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if err := setMeta(db, "after another process came and went"); err != nil {
		t.Fatalf("write after a second handle closed: %v", err)
	}
	db.Close()
}

// The connection that keeps the WAL is SQLite's own, outside the pool:
// the connection Open read the schema on waits idle for the first query
// (a pinned pooled one made a new handle's first search open another),
// and closing every pooled connection leaves the WAL in place, so writes
// go on.
func TestPinKeepsTheWALOutsideThePool(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if st := db.Stats(); st.Idle != 1 || st.InUse != 0 {
		t.Fatalf("after Open: %d idle, %d in use; want the one connection Open used idle", st.Idle, st.InUse)
	}
	if err := setMeta(db, "k"); err != nil {
		t.Fatal(err)
	}
	db.SetMaxIdleConns(0) // closes every pooled connection
	db.SetMaxIdleConns(idleConns)
	if st := db.Stats(); st.OpenConnections != 0 {
		t.Fatalf("%d pooled connections still open", st.OpenConnections)
	}
	if _, err := os.Stat(db.Path + "-wal"); err != nil {
		t.Fatalf("the WAL went with the pool's last connection: %v", err)
	}
	if err := setMeta(db, "after the pool emptied"); err != nil {
		t.Fatalf("write after the pool emptied: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(db.Path + "-wal"); !os.IsNotExist(err) {
		t.Fatalf("the WAL outlived the handle's last connection (err %v); the pin's close should checkpoint and remove it", err)
	}
}

// TestLimitCache: after LimitCache every connection the handle uses keeps
// the smaller page cache, the idle ones opened before it included; a
// handle without the limit keeps the 16 MiB Open gives.
func TestLimitCache(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cacheSize := func() int {
		t.Helper()
		var n int
		if err := db.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := cacheSize(); n != -16384 {
		t.Fatalf("a new handle's cache_size is %d, want -16384", n)
	}
	db.LimitCache(2048)
	// Several at once, so the pool opens more than the one it had.
	conns := make([]*sql.Conn, 3)
	for i := range conns {
		if conns[i], err = db.Conn(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range conns {
		var n int
		if err := c.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != -2048 {
			t.Errorf("connection %d after LimitCache(2048): cache_size %d, want -2048", i, n)
		}
		c.Close()
	}
}

// TestDataVersion: the data version changes with every commit, this
// handle's or another's, and not otherwise; a reader has none.
func TestDataVersion(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	version := func() int64 {
		t.Helper()
		v, ok, err := db.DataVersion()
		if err != nil || !ok {
			t.Fatalf("data version: %v, %v", ok, err)
		}
		return v
	}
	v0 := version()
	if v := version(); v != v0 {
		t.Fatalf("the data version moved from %d to %d with no commit", v0, v)
	}
	if err := setMeta(db, "a"); err != nil {
		t.Fatal(err)
	}
	v1 := version()
	if v1 == v0 {
		t.Fatal("a commit through the handle's pool left the data version as it was")
	}
	other, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := setMeta(other, "b"); err != nil {
		t.Fatal(err)
	}
	if v := version(); v == v1 {
		t.Fatal("a commit through another handle left the data version as it was")
	}
	r, err := OpenReader(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, ok, err := r.DataVersion(); ok || err != nil {
		t.Fatalf("a reader's data version: ok %v, err %v; want none", ok, err)
	}
}

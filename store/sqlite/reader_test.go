package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/recollect/recollect/store"
)

// TestOpenReader: a reader creates nothing, migrates nothing and cannot
// write, yet sees what the writer committed (WAL included).
func TestOpenReader(t *testing.T) {
	ctx := context.Background()
	empty := t.TempDir()
	if _, err := OpenReader(ctx, empty); !errors.Is(err, store.ErrNoStore) {
		t.Fatalf("empty directory: %v, want ErrNoStore", err)
	}
	if _, err := os.Stat(filepath.Join(empty, store.DBFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the reader created %s", store.DBFile)
	}

	w := openTemp(t)
	if _, err := w.ExecContext(ctx, `INSERT INTO facts(content, digest, producer, recorded_at) VALUES ('a fact', 'd', 'test', ?)`, store.Now()); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(ctx, w.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var n int
	if err := r.QueryRowContext(ctx, `SELECT count(*) FROM facts`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("reader sees %d facts (%v), want the writer's 1", n, err)
	}
	if _, err := r.ExecContext(ctx, `DELETE FROM facts`); err == nil {
		t.Fatal("the reader could write")
	}

	old := t.TempDir()
	o, err := OpenFile(ctx, filepath.Join(old, store.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.ExecContext(ctx, `PRAGMA user_version = 3`); err != nil {
		t.Fatal(err)
	}
	o.Close()
	if _, err := OpenReader(ctx, old); !errors.Is(err, store.ErrOlderSchema) {
		t.Fatalf("older store: %v, want ErrOlderSchema", err)
	}
}

package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/sqlite"
	"github.com/recollect/recollect/store/storetest"
)

// TestInDir: a store is in its data directory exactly when it is the file
// there (SQLite's), not when it lives on a server (PostgreSQL's, whose
// data directory holds no store file) or in a file elsewhere.
func TestInDir(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		_, err := os.Stat(filepath.Join(db.Dir, store.DBFile))
		if file := err == nil; db.InDir() != file {
			t.Errorf("InDir() = %v, but the data directory's store file exists: %v", db.InDir(), file)
		}
	})
	dir := t.TempDir()
	db, err := sqlite.OpenFile(context.Background(), filepath.Join(t.TempDir(), store.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.Dir = dir
	if db.InDir() {
		t.Errorf("a store file outside its data directory %s (at %s) is reported in it", dir, db.Path)
	}
}

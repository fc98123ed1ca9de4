package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/recollect/recollect/fixtures/testdir"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/owneronly"
)

// TestOpenRestrictsOnWindows opens a real SQLite store: the data directory
// and memory.db then grant only the current user. Wine keeps no DACL on
// files, so there the test stops after the open, which still proves the
// restricting path runs without error.
func TestOpenRestrictsOnWindows(t *testing.T) {
	dir := filepath.Join(testdir.New(t), "data")
	db, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if testdir.UnderWine() {
		t.Skip("Wine keeps no DACL on files; the access lists are checked on real Windows only")
	}
	for _, p := range []string{dir, filepath.Join(dir, store.DBFile)} {
		r, err := owneronly.Check(p)
		if err != nil {
			t.Fatal(err)
		}
		if !r.OwnerOnly {
			t.Errorf("%s lets in %v after Open; want the current user only", p, r.Others)
		}
	}
}

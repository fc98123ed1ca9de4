//go:build cgo

package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/recollect/recollect/store"
)

// A connection's allocations take no process-wide mutex: SQLite keeps no
// allocation statistics (with them on, it counts the open store's
// memory here).
func TestSQLiteKeepsNoAllocationStatistics(t *testing.T) {
	db, err := OpenFile(context.Background(), filepath.Join(t.TempDir(), store.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if allocationsCounted() {
		t.Fatal("SQLite counts its allocations (SQLITE_CONFIG_MEMSTATUS on): every allocation of every connection takes one process-wide mutex")
	}
}

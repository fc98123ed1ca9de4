//go:build unix

package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/regfile"
)

// A FIFO (or folder) where memory.db goes is refused with what to do.
func TestOpenRefusesNonRegularDatabase(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, store.DBFile), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), dir)
	if !errors.Is(err, regfile.ErrNotRegular) || !strings.Contains(err.Error(), "move it away") {
		t.Fatalf("Open over a FIFO memory.db: %v; want ErrNotRegular with the fix", err)
	}
}

// Package testbin builds the recollect binary for tests and benchmarks that
// need a real process (the daemon, notify). It is test support only: no
// production code imports it.
package testbin

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

var (
	once   sync.Once
	binDir string
	bin    string
	err    error
)

// Build compiles cmd/recollect (with the sqlite_fts5 tag) once per test
// process into a temporary directory and returns the binary's path. Call
// Cleanup from TestMain after m.Run.
func Build(ctx context.Context) (string, error) {
	once.Do(func() {
		binDir, err = os.MkdirTemp("", "recollect-testbin-")
		if err != nil {
			err = fmt.Errorf("create build dir: %w", err)
			return
		}
		bin = filepath.Join(binDir, "recollect")
		cmd := exec.CommandContext(ctx, "go", "build", "-tags", "sqlite_fts5", "-o", bin, "github.com/recollect/recollect/cmd/recollect")
		out, berr := cmd.CombinedOutput()
		if berr != nil {
			err = fmt.Errorf("build recollect: %w\n%s", berr, out)
		}
	})
	return bin, err
}

// Binary is Build for a test: it fails tb when the build fails.
func Binary(tb testing.TB) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	b, err := Build(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Cleanup removes the built binary.
func Cleanup() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

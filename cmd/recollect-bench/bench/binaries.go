package bench

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// BuildCommand builds recollect, recollect-notify and recollect-bench into
// one directory, where each finds the others.
const BuildCommand = "go build -tags sqlite_fts5 -o bin/ ./cmd/..."

// RecollectName is the file name of the recollect binary on this system.
var RecollectName = exeName("recollect")

func exeName(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// FindRecollect returns the recollect binary the harness drives (its
// daemon, its CLI, and the recollect-notify beside it). given, the
// --recollect flag, names a directory holding recollect or the binary
// itself and, when set, is the only place looked. Otherwise the binary
// beside self (the harness's own executable) is used, else the one on
// PATH (lookPath). When none is found the error says what to build.
func FindRecollect(given, self string, lookPath func(string) (string, error)) (string, error) {
	if given != "" {
		bin := given
		if fi, err := os.Stat(given); err == nil && fi.IsDir() {
			bin = filepath.Join(given, RecollectName)
		}
		if err := isExecutable(bin); err != nil {
			return "", fmt.Errorf("--recollect %s: %w; build it with `%s` and give --recollect bin", given, err, BuildCommand)
		}
		return bin, nil
	}
	if self != "" {
		beside := filepath.Join(filepath.Dir(self), RecollectName)
		if isExecutable(beside) == nil {
			return beside, nil
		}
	}
	if bin, err := lookPath(RecollectName); err == nil {
		return bin, nil
	}
	where := "on PATH"
	if self != "" {
		where = "beside " + self + " or on PATH"
	}
	return "", fmt.Errorf("no recollect binary %s; build all three binaries into one directory with `%s` and run bin/recollect-bench, or give --recollect DIR", where, BuildCommand)
}

// isExecutable says why path is not a binary to run, or nil.
func isExecutable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no %s there", filepath.Base(path))
	case err != nil:
		return err
	case fi.IsDir():
		return fmt.Errorf("%s is a directory, not the recollect binary", path)
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("%s is not executable", path)
	}
	return nil
}

package postgres

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/recollect/recollect/store/datadir"
)

// EnvFileName is the file, in the user's config directory
// ($XDG_CONFIG_HOME/recollect, else ~/.config/recollect), that holds the
// URL variable for the processes that do not start from the user's shell
// and so do not inherit it: a daemon run as a user service, an editor
// started from the desktop that runs the MCP server or the hooks. One
// NAME='value' line each, readable by its owner alone (`recollect service
// print` gives the line that writes it).
const EnvFileName = "postgres.env"

// EnvFilePath is where EnvFileName is read from, "" when neither
// XDG_CONFIG_HOME nor HOME is set.
func EnvFilePath(getenv func(string) string) string {
	dir := datadir.ConfigDir(getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, EnvFileName)
}

// lookupEnvFile reads name's value from the env file at path: lines
// NAME=value, NAME='value' or NAME="value" (an `export ` before NAME is
// allowed; blank lines and # comments are skipped). ok is false when the
// file does not exist or does not set name. A file others may read is
// refused: it holds a URL that may carry a password.
func lookupEnvFile(path, name string) (value string, ok bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return "", false, fmt.Errorf("read %s: not a regular file; make it one NAME='value' line per variable", path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", false, fmt.Errorf("%s may be read by others (mode %04o) and can hold a password; run chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, found := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		if !found || strings.TrimSpace(k) != name {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '\'' && v[len(v)-1] == '\'' || v[0] == '"' && v[len(v)-1] == '"') {
			v = v[1 : len(v)-1]
		}
		value, ok = v, true // the last line that sets it wins, as in a shell
	}
	if err := sc.Err(); err != nil {
		return "", false, fmt.Errorf("read %s: %w", path, err)
	}
	return value, ok, nil
}

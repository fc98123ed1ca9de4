// Package datadir decides which data directory a recollect command uses:
// the --data flag, RECOLLECT_DATA, a project's .recollect/, or
// ~/.recollect. It links nothing but the standard library's file and path
// packages, so the hook binary (cmd/recollect-notify) resolves exactly as
// the main binary does without linking SQLite.
package datadir

import (
	"errors"
	"os"
	"path/filepath"
)

// DirName is the name of a project-local store directory.
const DirName = ".recollect"

// StoreFile is the SQLite database file inside a data directory (the
// store package opens it; a trust check looks for it).
const StoreFile = "memory.db"

// EnvData names the environment variable that selects the data directory.
const EnvData = "RECOLLECT_DATA"

// Usage is the --data flag's help text, the same in every binary.
const Usage = "data directory (default: $RECOLLECT_DATA, a .recollect/ in this directory or a parent up to the repository root, then ~/.recollect)"

// Source says which rule chose a data directory.
type Source string

// The resolution rules, in priority order.
const (
	FromFlag    Source = "flag"
	FromEnv     Source = "env"
	FromProject Source = "project"
	FromHome    Source = "home"
)

// Resolve picks the data directory: the --data flag, then RECOLLECT_DATA,
// then a .recollect/ directory in cwd or a parent up to the repository root
// (the first directory holding .git), then ~/.recollect. The result is
// absolute. getenv is os.Getenv in production; tests pass their own.
func Resolve(flag, cwd string, getenv func(string) string) (string, Source, error) {
	if flag != "" {
		p, err := filepath.Abs(expandHome(flag, getenv))
		return p, FromFlag, err
	}
	if env := getenv(EnvData); env != "" {
		p, err := filepath.Abs(expandHome(env, getenv))
		return p, FromEnv, err
	}
	if cwd != "" {
		for dir := filepath.Clean(cwd); ; dir = filepath.Dir(dir) {
			if isDir(filepath.Join(dir, DirName)) {
				return filepath.Join(dir, DirName), FromProject, nil
			}
			if exists(filepath.Join(dir, ".git")) || filepath.Dir(dir) == dir {
				break
			}
		}
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", "", errors.New("find home directory: " + err.Error() + "; pass --data DIR or set " + EnvData)
		}
		home = h
	}
	return filepath.Join(home, DirName), FromHome, nil
}

func expandHome(p string, getenv func(string) string) string {
	if p == "~" || (len(p) > 1 && p[:2] == "~/") {
		if home := getenv("HOME"); home != "" {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil || !errors.Is(err, os.ErrNotExist)
}

// ConfigDir is recollect's directory of per-user files (approvals, the
// PostgreSQL env file): $XDG_CONFIG_HOME/recollect when that is an
// absolute path, else ~/.config/recollect; "" when neither variable is
// set.
func ConfigDir(getenv func(string) string) string {
	base := getenv("XDG_CONFIG_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "recollect")
}

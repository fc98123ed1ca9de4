//go:build !windows

package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A store holds what people said to their agents: its directory is the
// owner's alone (0700) and every file in it is created 0600, whoever
// creates it and whatever the umask. SQLite gives the -wal and -shm files
// the database file's mode, so creating memory.db 0600 before SQLite
// opens it is what keeps all three private.

// PrivateDir restricts dir, a data directory, to its owner when its mode
// lets anyone else in, and its config.json to its owner too: for a store
// whose data lives elsewhere (PostgreSQL), the directory still holds the
// config, the control socket and the logs.
func PrivateDir(dir string) error {
	if err := privateDir(dir); err != nil {
		return err
	}
	return restrictFile(filepath.Join(dir, "config.json"))
}

// privateDir restricts dir, a data directory, to its owner when its mode
// lets anyone else in.
func privateDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("stat data directory: %w", err)
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("restrict %s to its owner (mode %o): %w; run chmod 700 %s", dir, fi.Mode().Perm(), err, dir)
	}
	return nil
}

// PrivateDB creates the database file at path with mode 0600 when it does
// not exist, and takes group and other access away from it and from its
// -wal and -shm files when an older binary or a loose umask left them
// readable.
func PrivateDB(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		if err := f.Close(); err != nil {
			return fmt.Errorf("create %s: %w", path, err)
		}
	case !errors.Is(err, os.ErrExist):
		return fmt.Errorf("create %s: %w", path, err)
	}
	// config.json beside it holds where text is sent and which variable
	// holds a key: as private as the store (a hand-written one may be
	// 0644).
	for _, p := range []string{path, path + "-wal", path + "-shm", filepath.Join(filepath.Dir(path), "config.json")} {
		if err := restrictFile(p); err != nil {
			return err
		}
	}
	return nil
}

// restrictFile takes group and other access away from the regular file p,
// when it exists and its mode lets anyone else in.
func restrictFile(p string) error {
	fi, err := os.Lstat(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stat %s: %w", p, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	if err := os.Chmod(p, fi.Mode().Perm()&0o700); err != nil {
		return fmt.Errorf("restrict %s to its owner (mode %o): %w; run chmod 600 %s", p, fi.Mode().Perm(), err, p)
	}
	return nil
}

// Privacy says who can read the data directory dir and the files in it
// that hold what was said (memory.db, its -wal and -shm, config.json), as
// stats shows it: only the owner, or which of them others can read, with
// their modes.
func Privacy(dir string) (string, error) {
	var open []string
	for _, name := range append([]string{""}, privateFiles...) {
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("stat %s: %w", p, err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			if name == "" {
				name = "the directory"
			}
			open = append(open, fmt.Sprintf("%s (mode %04o)", name, fi.Mode().Perm()))
		}
	}
	if len(open) == 0 {
		return "only you: the data directory is 0700 and its files 0600", nil
	}
	return "others can read " + strings.Join(open, ", ") + "; run chmod go-rwx on them, or open the store as its owner, which tightens them", nil
}

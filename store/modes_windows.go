package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/recollect/recollect/store/owneronly"
)

// On Windows a store's privacy is an access list rather than modes: the
// data directory gets a protected DACL that grants only the current user
// and is inherited by every file created in it; files that predate it
// get the same list of their own.

// PrivateDir restricts dir, a data directory, and its config.json to the
// current user when their access lists let anyone else in.
func PrivateDir(dir string) error {
	if err := privateDir(dir); err != nil {
		return err
	}
	return restrictFile(filepath.Join(dir, "config.json"))
}

// privateDir restricts dir to the current user.
func privateDir(dir string) error {
	if _, err := owneronly.Restrict(dir, owneronly.Dir); err != nil {
		return fmt.Errorf("restrict data directory: %w", err)
	}
	return nil
}

// PrivateDB creates the database file at path when it does not exist and
// restricts it, its -wal and -shm files and config.json to the current
// user.
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
	for _, p := range []string{path, path + "-wal", path + "-shm", filepath.Join(filepath.Dir(path), "config.json")} {
		if err := restrictFile(p); err != nil {
			return err
		}
	}
	return nil
}

// restrictFile restricts the regular file p, when it exists, to the
// current user.
func restrictFile(p string) error {
	fi, err := os.Lstat(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stat %s: %w", p, err)
	}
	if !fi.Mode().IsRegular() {
		return nil
	}
	_, err = owneronly.Restrict(p, owneronly.File)
	return err
}

// Privacy says who can read the data directory dir and the files in it
// that hold what was said (memory.db, its -wal and -shm, config.json), as
// stats shows it: only the current user, or which of them other accounts
// can read, and which accounts.
func Privacy(dir string) (string, error) {
	var open []string
	for _, name := range append([]string{""}, privateFiles...) {
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			continue
		}
		r, err := owneronly.Check(p)
		if err != nil {
			return "", err
		}
		if !r.OwnerOnly {
			if name == "" {
				name = "the directory"
			}
			open = append(open, fmt.Sprintf("%s (%s)", name, strings.Join(r.Others, ", ")))
		}
	}
	if len(open) == 0 {
		return "only you: the data directory's access list grants your account alone, and its files inherit it", nil
	}
	return "others can read " + strings.Join(open, ", ") + "; opening the store as its owner restricts them", nil
}

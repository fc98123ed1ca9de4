package store

import (
	"errors"
	"os"
	"path/filepath"
)

// Private makes a data directory and the named files in it (config.json)
// the owner's alone when a hand-made directory or file, an older binary
// or a loose umask left them open to others (modes on Unix, an access
// list on Windows): what every open of a store does, whichever engine
// holds its data. A directory that does not exist yet is left to whoever
// creates it.
func Private(dir string, files ...string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := privateDir(dir); err != nil {
		return err
	}
	for _, name := range files {
		if err := restrictFile(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// privateFiles are the files of a data directory that hold what was said,
// whose privacy stats reports.
var privateFiles = []string{DBFile, DBFile + "-wal", DBFile + "-shm", "config.json"}

// Package regfile opens regular files without ever blocking on something
// that only looks like one: a FIFO, a socket or a device named like a
// transcript or a config file. It is the one door recollect reads user
// files through where a hostile or mistaken file type could hang a read.
//
// It does not read, parse or cache anything.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNotRegular means a path names a FIFO, socket, device or folder where a
// regular file was expected; it was not read.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading if it is a regular file (or a symlink to
// one). The type is checked with Lstat before opening, and the open itself
// does not block (O_NONBLOCK where the platform has it), so a FIFO swapped
// in between the check and the open is refused rather than waited on. The
// FileInfo is the opened file's own.
func Open(path string) (*os.File, os.FileInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		if fi, err = os.Stat(path); err != nil {
			return nil, nil, err
		}
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, notRegular(fi)
	}
	f, err := openNonblock(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(fi)
	}
	return f, fi, nil
}

func notRegular(fi os.FileInfo) error {
	return fmt.Errorf("%w (%s)", ErrNotRegular, describe(fi.Mode()))
}

func describe(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	}
	return "type " + m.Type().String()
}

// ReadFile reads the whole of path like os.ReadFile, refusing what is not
// a regular file (ErrNotRegular) instead of blocking on it.
func ReadFile(path string) ([]byte, error) {
	f, _, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

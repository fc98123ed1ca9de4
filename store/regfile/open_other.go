//go:build !unix

package regfile

import "os"

// openNonblock opens path read-only; platforms without O_NONBLOCK rely on
// the Lstat check before it.
func openNonblock(path string) (*os.File, error) { return os.Open(path) }

// FileID reports no identity where the platform has no inode numbers: the
// store's files are then not checked, and a renamed transcript is read as a
// new one (its events deduplicate by path).
func FileID(os.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }

// Links reports no count where the platform has none.
func Links(os.FileInfo) (n uint64, ok bool) { return 0, false }

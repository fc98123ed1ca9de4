//go:build !unix

package store

import "os"

// FileID reports no identity where the platform has no inode numbers: the
// store's files are then not checked, and a renamed transcript is read as a
// new one (its events deduplicate by path).
func FileID(os.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }

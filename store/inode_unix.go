//go:build unix

package store

import (
	"os"
	"syscall"
)

// FileID is fi's device and inode number: a file's identity across
// renames, and the check that a path still names the file a handle opened.
func FileID(fi os.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}

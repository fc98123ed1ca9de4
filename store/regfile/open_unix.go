//go:build unix

package regfile

import (
	"os"
	"syscall"
)

// openNonblock opens path read-only without waiting for a FIFO's writer.
// O_NONBLOCK changes nothing for a regular file's reads.
func openNonblock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// FileID is fi's device and inode number: a file's identity across
// renames, and the check that a path still names the file that was opened
// or approved.
func FileID(fi os.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}

// Links is how many names fi's file has; zero means it was deleted while
// something still held it open.
func Links(fi os.FileInfo) (n uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true
}

//go:build unix

package sources

import (
	"os"
	"syscall"
)

// fileID is the device and inode fi was read from; ok is false where the
// platform has none.
func fileID(fi os.FileInfo) (dev, ino int64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int64(st.Dev), int64(st.Ino), true
}

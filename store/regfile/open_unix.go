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

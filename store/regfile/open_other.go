//go:build !unix

package regfile

import "os"

// openNonblock opens path read-only; platforms without O_NONBLOCK rely on
// the Lstat check before it.
func openNonblock(path string) (*os.File, error) { return os.Open(path) }

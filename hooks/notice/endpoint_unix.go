//go:build !windows

package notice

import "path/filepath"

// SocketPath is the control endpoint of data directory dataDir: the Unix
// socket recollect.sock inside it.
func SocketPath(dataDir string) string { return filepath.Join(dataDir, SocketName) }

//go:build unix

package scheduler

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"syscall"
	"time"
)

// maxSocketPath is the longest Unix socket path every platform accepts
// (sun_path is 104 bytes on macOS, 108 on Linux, both with the NUL).
const maxSocketPath = 103

// privateDir makes dir enterable by its owner only, as the socket inside it
// must not be reachable by other users whatever its own mode.
func privateDir(dir string, log *slog.Logger) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("stat data directory: %w", err)
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("restrict %s to its owner (mode %o): %w; run chmod 700 %s", dir, fi.Mode().Perm(), err, dir)
	}
	log.Info("data directory restricted to its owner", "dir", dir, "was", fmt.Sprintf("%o", fi.Mode().Perm()))
	return nil
}

// listen opens the control socket at path. An existing file there is
// probed first: a socket nobody answers on is a stale one from a killed
// process and is replaced; a live socket or a file that is not a socket is
// left alone and reported.
func listen(path string, log *slog.Logger) (net.Listener, error) {
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("socket path %s is %d bytes, longer than the %d a Unix socket allows; use a shorter --data directory", path, len(path), maxSocketPath)
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("stat %s: %w", path, err)
	case fi.Mode()&os.ModeSocket == 0:
		return nil, fmt.Errorf("%s exists and is not a socket; move it away and start again", path)
	default:
		conn, derr := net.DialTimeout("unix", path, 500*time.Millisecond)
		if derr == nil {
			conn.Close()
			return nil, fmt.Errorf("another process answers on %s; stop it first", path)
		}
		if !errors.Is(derr, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("probe %s: %w", path, derr)
		}
		log.Info("replacing stale control socket", "path", path)
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("remove stale socket %s: %w", path, err)
		}
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("restrict %s to its owner: %w", path, err)
	}
	return ln, nil
}

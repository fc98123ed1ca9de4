package scheduler

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/recollect/recollect/hooks"
	"github.com/recollect/recollect/hooks/notice"
)

// maxSocketPath is the longest Unix socket path every platform accepts
// (sun_path is 104 bytes on macOS, 108 on Linux, both with the NUL).
const maxSocketPath = 103

// connTimeout bounds one client conversation on the socket.
const connTimeout = 2 * time.Second

// maxRequest bounds one request line.
const maxRequest = 64 << 10

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
func listen(path string, log *slog.Logger) (*net.UnixListener, error) {
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

// server answers control requests, one JSON line in, one out, per
// connection.
type server struct {
	ln     *net.UnixListener
	handle func(context.Context, hooks.Request) hooks.Response
	log    *slog.Logger
	wg     sync.WaitGroup
}

// serve accepts until the listener is closed.
func (s *server) serve(ctx context.Context) error {
	backoff := 5 * time.Millisecond
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			s.log.Warn("accept on control socket", "err", err)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 5 * time.Millisecond
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.answer(ctx, conn)
		}()
	}
}

// close stops accepting (removing the socket file) and waits for the
// conversations in progress.
func (s *server) close() error {
	err := s.ln.Close()
	s.wg.Wait()
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("close control socket: %w", err)
	}
	return nil
}

func (s *server) answer(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(connTimeout)); err != nil {
		return
	}
	line, err := bufio.NewReader(io.LimitReader(conn, maxRequest)).ReadBytes('\n')
	var resp hooks.Response
	var req hooks.Request
	switch {
	case err != nil:
		resp = hooks.Response{Message: fmt.Sprintf("read request: %v; send one JSON line", err)}
	case json.Unmarshal(line, &req) != nil:
		resp = hooks.Response{Message: "request is not a JSON object; send one JSON line such as {\"op\":\"status\"}"}
	default:
		if req.Op == hooks.OpWait && req.WaitMS > 0 {
			// A wait may hold the connection for as long as it asks, within
			// the bound the handler applies.
			wait := time.Duration(min(req.WaitMS, notice.MaxWaitMS)) * time.Millisecond
			if err := conn.SetDeadline(time.Now().Add(wait + connTimeout)); err != nil {
				return
			}
		}
		resp = s.handle(ctx, req)
	}
	out, err := json.Marshal(resp)
	if err != nil {
		s.log.Error("encode control answer", "err", err)
		return
	}
	if _, err := conn.Write(append(out, '\n')); err != nil {
		s.log.Debug("write control answer", "err", err)
	}
}

//go:build unix

package notice

import (
	"errors"
	"strconv"
	"syscall"
	"time"
)

// Exchange is the one path every client request takes: dial socketPath,
// write line (one request ending in a newline), and return the one-line
// answer, all before deadline. op names the request in errors. A missing
// or stale socket returns an error wrapping ErrNoDaemon.
func Exchange(socketPath, op string, line []byte, deadline time.Time) ([]byte, error) {
	if len(socketPath) > maxSocketPath {
		return nil, errors.New("socket path " + socketPath + " is " + strconv.Itoa(len(socketPath)) +
			" bytes, longer than the " + strconv.Itoa(maxSocketPath) + " a Unix socket allows; use a shorter data directory")
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, wrap("open a socket", err)
	}
	defer syscall.Close(fd)
	syscall.CloseOnExec(fd) // SOCK_CLOEXEC is Linux-only; this works on every Unix
	if err := setTimeouts(fd, deadline); err != nil {
		return nil, err
	}
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: socketPath})
		if err != syscall.EINTR {
			break
		}
	}
	switch {
	case err == syscall.ENOENT || err == syscall.ECONNREFUSED:
		return nil, &noDaemonError{path: socketPath, err: err}
	case err == syscall.EAGAIN || err == syscall.EINPROGRESS:
		return nil, timeout("dial " + socketPath + ": the daemon did not accept the connection in time")
	case err != nil:
		return nil, wrap("dial "+socketPath, err)
	}
	for again := false; len(line) > 0; again = true {
		if again {
			if err := setTimeouts(fd, deadline); err != nil {
				return nil, err
			}
		}
		n, err := syscall.Write(fd, line)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return nil, timeout("send " + op + " request: the daemon did not read it in time")
		case err != nil:
			return nil, wrap("send "+op+" request", err)
		}
		line = line[n:]
	}
	answer, err := readLine(fd, deadline)
	if err != nil {
		return nil, wrap("read answer to "+op, err)
	}
	return answer, nil
}

// maxSocketPath is the longest path a Unix socket address holds on Linux
// (sun_path is 108 bytes with its terminating NUL).
const maxSocketPath = 107

// readLine reads up to and including the first newline, at most MaxLine
// bytes, before deadline.
func readLine(fd int, deadline time.Time) ([]byte, error) {
	buf := make([]byte, 0, 512)
	for again := false; ; again = true {
		if again {
			if err := setTimeouts(fd, deadline); err != nil {
				return nil, err
			}
		}
		if len(buf) == cap(buf) {
			if len(buf) >= MaxLine {
				return nil, errors.New("answer longer than " + strconv.Itoa(MaxLine) + " bytes")
			}
			grown := make([]byte, len(buf), min(2*cap(buf), MaxLine))
			copy(grown, buf)
			buf = grown
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return nil, timeout("no answer in time")
		case err != nil:
			return nil, err
		case n == 0:
			return nil, errors.New("the daemon closed the connection without an answer")
		}
		start := len(buf)
		buf = buf[:start+n]
		for i := start; i < len(buf); i++ {
			if buf[i] == '\n' {
				return buf[:i+1], nil
			}
		}
	}
}

// setTimeouts makes blocking calls on fd give up at deadline: the kernel's
// send and receive timeouts, set to the time left (again before a call
// that follows a partial read or write).
func setTimeouts(fd int, deadline time.Time) error {
	left := time.Until(deadline)
	if left <= 0 {
		return timeout("out of time before the daemon answered")
	}
	if left < time.Microsecond {
		left = time.Microsecond
	}
	tv := syscall.NsecToTimeval(left.Nanoseconds())
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv); err != nil {
		return wrap("set receive timeout", err)
	}
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv); err != nil {
		return wrap("set send timeout", err)
	}
	return nil
}

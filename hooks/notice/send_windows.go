package notice

import (
	"errors"
	"io"
	"os"
	"strconv"
	"syscall"
	"time"
)

// Windows error numbers and open flags the pipe client branches on;
// package syscall names only some of them.
const (
	errorPipeBusy          = syscall.Errno(231)
	securitySQOSPresent    = 0x00100000
	securityIdentification = 0x00010000
)

// Exchange is the one path every client request takes: open the named
// pipe pipeName, write line (one request ending in a newline), and return
// the one-line answer, all before deadline. op names the request in
// errors. A pipe that does not exist returns an error wrapping
// ErrNoDaemon.
func Exchange(pipeName, op string, line []byte, deadline time.Time) ([]byte, error) {
	f, err := dialPipe(pipeName, deadline)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := f.SetDeadline(deadline); err != nil {
		return nil, wrap("set a deadline on "+pipeName, err)
	}
	if _, err := f.Write(line); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, timeout("send " + op + " request: the daemon did not read it in time")
		}
		return nil, wrap("send "+op+" request", err)
	}
	answer, err := readPipeLine(f)
	if err != nil {
		return nil, wrap("read answer to "+op, err)
	}
	return answer, nil
}

// dialPipe opens the client end of pipeName for overlapped I/O, so that
// reads and writes honour a deadline. While every instance of the pipe is
// busy it retries until deadline. The daemon may identify the client but
// not impersonate it.
func dialPipe(pipeName string, deadline time.Time) (*os.File, error) {
	name, err := syscall.UTF16PtrFromString(pipeName)
	if err != nil {
		return nil, wrap("pipe name "+pipeName, err)
	}
	for {
		h, err := syscall.CreateFile(name, syscall.GENERIC_READ|syscall.GENERIC_WRITE, 0, nil,
			syscall.OPEN_EXISTING, syscall.FILE_FLAG_OVERLAPPED|securitySQOSPresent|securityIdentification, 0)
		switch {
		case err == nil:
			return os.NewFile(uintptr(h), pipeName), nil
		case err == syscall.ERROR_FILE_NOT_FOUND || err == syscall.ERROR_PATH_NOT_FOUND:
			return nil, &noDaemonError{path: pipeName, err: err}
		case err != errorPipeBusy:
			return nil, wrap("open "+pipeName, err)
		}
		if !time.Now().Before(deadline) {
			return nil, timeout("open " + pipeName + ": the daemon did not accept the connection in time")
		}
		time.Sleep(time.Millisecond)
	}
}

// readPipeLine reads up to and including the first newline, at most
// MaxLine bytes, before the deadline set on f.
func readPipeLine(f *os.File) ([]byte, error) {
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= MaxLine {
				return nil, errors.New("answer longer than " + strconv.Itoa(MaxLine) + " bytes")
			}
			grown := make([]byte, len(buf), min(2*cap(buf), MaxLine))
			copy(grown, buf)
			buf = grown
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		start := len(buf)
		buf = buf[:start+n]
		for i := start; i < len(buf); i++ {
			if buf[i] == '\n' {
				return buf[:i+1], nil
			}
		}
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, timeout("no answer in time")
		case err == io.EOF || errors.Is(err, syscall.ERROR_BROKEN_PIPE):
			return nil, errors.New("the daemon closed the connection without an answer")
		case err != nil:
			return nil, err
		}
	}
}

package scheduler

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"

	"golang.org/x/sys/windows"

	"github.com/recollect/recollect/store/owneronly"
)

// privateDir gives dir, the data directory, an access list that lets only
// the current user in (the Windows form of mode 0700), inherited by the
// files created in it.
func privateDir(dir string, log *slog.Logger) error {
	changed, err := owneronly.Restrict(dir, owneronly.Dir)
	if err != nil {
		return err
	}
	if changed {
		log.Info("data directory restricted to its owner", "dir", dir)
	}
	return nil
}

// listen creates the control pipe name. The pipe's access list lets only
// the current user in and remote clients are refused. A pipe cannot go
// stale (its name goes with the last handle on it), so the probe a Unix
// socket needs becomes: when a client can open the name, another process
// serves it and listen refuses; FILE_FLAG_FIRST_PIPE_INSTANCE closes the
// race between that check and the first instance.
func listen(name string, log *slog.Logger) (net.Listener, error) {
	sa, err := owneronly.Attributes(owneronly.Pipe)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", name, err)
	}
	if answering(name) {
		return nil, fmt.Errorf("another process answers on %s; stop it first", name)
	}
	l := &pipeListener{name: name, sa: sa}
	l.next, err = l.instance(true)
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_PIPE_BUSY) {
		return nil, fmt.Errorf("another process answers on %s; stop it first", name)
	}
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", name, err)
	}
	if l.closed, err = windows.CreateEvent(nil, 1, 0, nil); err != nil {
		windows.CloseHandle(l.next)
		return nil, fmt.Errorf("listen on %s: %w", name, err)
	}
	log.Debug("control pipe open", "pipe", name)
	return l, nil
}

// answering reports whether a process serves the pipe name: opening it
// as a client succeeds, or every instance is busy.
func answering(name string) bool {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return false
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING, 0, 0)
	if err == nil {
		windows.CloseHandle(h)
		return true
	}
	return errors.Is(err, windows.ERROR_PIPE_BUSY)
}

// pipeListener is a net.Listener over a named pipe: one instance always
// waits for the next client, and each client gets its own instance.
type pipeListener struct {
	name string
	sa   *windows.SecurityAttributes

	mu        sync.Mutex
	next      windows.Handle // the instance waiting for a client
	closed    windows.Handle // event set by Close
	isClosed  bool
	accepting bool
}

// instance creates one instance of the pipe, for overlapped I/O so that
// the connection's reads and writes honour deadlines.
func (l *pipeListener) instance(first bool) (windows.Handle, error) {
	name, err := windows.UTF16PtrFromString(l.name)
	if err != nil {
		return windows.InvalidHandle, err
	}
	flags := uint32(windows.PIPE_ACCESS_DUPLEX | windows.FILE_FLAG_OVERLAPPED)
	if first {
		flags |= windows.FILE_FLAG_FIRST_PIPE_INSTANCE
	}
	mode := uint32(windows.PIPE_TYPE_BYTE | windows.PIPE_READMODE_BYTE | windows.PIPE_WAIT | windows.PIPE_REJECT_REMOTE_CLIENTS)
	return windows.CreateNamedPipe(name, flags, mode, windows.PIPE_UNLIMITED_INSTANCES, maxRequest, maxRequest, 0, l.sa)
}

// Accept waits for a client on the waiting instance, puts a fresh
// instance in its place and returns the connected one.
func (l *pipeListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if l.isClosed {
		l.mu.Unlock()
		return nil, net.ErrClosed
	}
	l.accepting = true
	h := l.next
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.accepting = false
		if l.isClosed {
			l.release()
		}
		l.mu.Unlock()
	}()

	if err := l.connect(h); err != nil {
		return nil, err
	}
	fresh, err := l.instance(false)
	if err != nil {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("create the next instance of %s: %w", l.name, err)
	}
	l.mu.Lock()
	l.next = fresh
	l.mu.Unlock()
	return pipeConn{File: os.NewFile(uintptr(h), l.name), addr: pipeAddr(l.name)}, nil
}

// connect waits until a client opens instance h or the listener closes.
func (l *pipeListener) connect(h windows.Handle) error {
	ev, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return fmt.Errorf("accept on %s: %w", l.name, err)
	}
	defer windows.CloseHandle(ev)
	ov := windows.Overlapped{HEvent: ev}
	err = windows.ConnectNamedPipe(h, &ov)
	switch {
	case err == nil || errors.Is(err, windows.ERROR_PIPE_CONNECTED):
		return nil
	case !errors.Is(err, windows.ERROR_IO_PENDING):
		return fmt.Errorf("accept on %s: %w", l.name, err)
	}
	which, err := windows.WaitForMultipleObjects([]windows.Handle{ev, l.closed}, false, windows.INFINITE)
	if err != nil {
		return fmt.Errorf("accept on %s: %w", l.name, err)
	}
	if which == windows.WAIT_OBJECT_0+1 {
		windows.CancelIoEx(h, &ov)
		var n uint32
		windows.GetOverlappedResult(h, &ov, &n, true)
		return net.ErrClosed
	}
	var n uint32
	if err := windows.GetOverlappedResult(h, &ov, &n, false); err != nil && !errors.Is(err, windows.ERROR_PIPE_CONNECTED) {
		return fmt.Errorf("accept on %s: %w", l.name, err)
	}
	return nil
}

// Close stops Accept; the waiting instance goes with it, and with the
// last instance the pipe's name. Connections already accepted stay open.
func (l *pipeListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.isClosed {
		return net.ErrClosed
	}
	l.isClosed = true
	err := windows.SetEvent(l.closed)
	if !l.accepting {
		l.release()
	}
	return err
}

// release closes the waiting instance and the close event, once no
// Accept uses them; l.mu is held.
func (l *pipeListener) release() {
	if l.next != windows.InvalidHandle {
		windows.CloseHandle(l.next)
		l.next = windows.InvalidHandle
	}
	if l.closed != 0 {
		windows.CloseHandle(l.closed)
		l.closed = 0
	}
}

// Addr is the pipe's name.
func (l *pipeListener) Addr() net.Addr { return pipeAddr(l.name) }

// pipeAddr is a pipe's name as a net.Addr.
type pipeAddr string

func (a pipeAddr) Network() string { return "pipe" }
func (a pipeAddr) String() string  { return string(a) }

// pipeConn is one connected pipe instance as a net.Conn; os.File brings
// Read, Write, Close and the deadlines, through the runtime's I/O
// completion port.
type pipeConn struct {
	*os.File
	addr pipeAddr
}

func (c pipeConn) LocalAddr() net.Addr  { return c.addr }
func (c pipeConn) RemoteAddr() net.Addr { return c.addr }

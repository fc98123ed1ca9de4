package scheduler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/recollect/recollect/fixtures/testdir"
	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
)

// TestControlChannel runs the platform's control endpoint (a Unix socket,
// or a named pipe on Windows) with the real server and client: a request
// is answered, a second listener on the same endpoint is refused while the
// first serves, and once it closes a client finds no daemon.
func TestControlChannel(t *testing.T) {
	dir := testdir.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	path := notice.SocketPath(dir)
	ln, err := listen(path, log)
	if err != nil {
		t.Fatal(err)
	}
	srv := &server{ln: ln, log: log, handle: func(_ context.Context, req notice.Request) control.Response {
		return control.Response{OK: true, Message: "got " + req.Op}
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.serve(ctx) }()

	for i := range 3 {
		resp, err := control.Send(ctx, path, notice.Request{Op: notice.OpStatus})
		if err != nil || resp.Message != "got status" {
			t.Fatalf("request %d: %+v, %v; want the server's answer", i, resp, err)
		}
	}
	if _, err := listen(path, log); err == nil || !strings.Contains(err.Error(), "another process answers on "+path+"; stop it first") {
		t.Fatalf("second listen on a served endpoint: %v; want it refused", err)
	}

	if err := srv.close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := control.Send(context.Background(), path, notice.Request{Op: notice.OpStatus}); !errors.Is(err, notice.ErrNoDaemon) {
		t.Fatalf("request after close: %v; want ErrNoDaemon", err)
	}
}

// TestLockNamesTheHolder takes the data directory's lock (flock, or
// LockFileEx on Windows) and tries again through another handle: the
// second attempt names this process's pid, which stays readable while
// the lock is held, and once released the lock can be taken again.
func TestLockNamesTheHolder(t *testing.T) {
	dir := testdir.New(t)
	release, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(dir)
	want := fmt.Sprintf("already running (pid %d, recollect daemon) for %s; stop that process first", os.Getpid(), dir)
	if !errors.Is(err, ErrRunning) || err.Error() != want {
		t.Fatalf("second Lock: %v; want %q", err, want)
	}
	if _, held, err := TryLock(dir); !held || err != nil {
		t.Fatalf("TryLock while held = held %v, %v; want held", held, err)
	}
	release()
	release()
	again, err := Lock(dir)
	if err != nil {
		t.Fatalf("Lock after release: %v", err)
	}
	again()
}

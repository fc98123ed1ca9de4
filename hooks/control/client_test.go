package control_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
)

// TestSendStatus sends a status request over a real socket and decodes
// the whole answer, status included.
func TestSendStatus(t *testing.T) {
	path := filepath.Join(t.TempDir(), notice.SocketName)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		line, _ := bufio.NewReader(conn).ReadString('\n')
		got <- line
		conn.Write([]byte(`{"ok":true,"message":"idle","status":{"pid":42,"data_dir":"/d","running":true,"runs":{"compaction":2}}}` + "\n"))
	}()
	resp, err := control.Send(context.Background(), path, notice.Request{Op: notice.OpStatus})
	if err != nil {
		t.Fatal(err)
	}
	if line := <-got; line != `{"op":"status"}`+"\n" {
		t.Errorf("daemon got %q", line)
	}
	if s := resp.Status; s == nil || s.PID != 42 || !s.Running || s.Runs["compaction"] != 2 || resp.Message != "idle" {
		t.Fatalf("%+v %+v", resp, resp.Status)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	if _, err := control.Send(ctx, path, notice.Request{Op: notice.OpStatus}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("expired ctx: %v", err)
	}
	if _, err := control.Send(context.Background(), filepath.Join(t.TempDir(), notice.SocketName), notice.Request{Op: notice.OpStatus}); !errors.Is(err, notice.ErrNoDaemon) {
		t.Errorf("no socket: %v, want ErrNoDaemon", err)
	}
}

package hooks_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/hooks"
)

func TestReadPiped(t *testing.T) {
	t.Run("a file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "payload")
		os.WriteFile(path, []byte(`{"hook_event_name":"PreCompact"}`), 0o600)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		data, err := hooks.ReadPiped(f, time.Second)
		if err != nil || string(data) != `{"hook_event_name":"PreCompact"}` {
			t.Fatalf("%q, %v", data, err)
		}
	})
	t.Run("a pipe that stays open", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		defer r.Close()
		w.Write([]byte(`{"hook_event`))
		_, err = hooks.ReadPiped(r, 50*time.Millisecond)
		if !errors.Is(err, hooks.ErrStdinTimeout) {
			t.Fatalf("err %v, want ErrStdinTimeout", err)
		}
	})
	t.Run("too large", func(t *testing.T) {
		_, err := hooks.ReadPiped(strings.NewReader(strings.Repeat("x", 2<<20)), time.Second)
		if err == nil || !strings.Contains(err.Error(), "payload larger than 1024 KiB") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("a character device is never read", func(t *testing.T) {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		data, err := hooks.ReadPiped(f, time.Second)
		if data != nil || err != nil {
			t.Fatalf("%q, %v", data, err)
		}
	})
}

func TestNotifyRequest(t *testing.T) {
	cases := []struct {
		name, input string
		want        hooks.Request
		warn        string
	}{
		{"no payload", "", hooks.Request{Op: "notify", Moment: "compaction"}, ""},
		{"payload", `{"hook_event_name":"PreCompact","session_id":"s1","transcript_path":"/t/s1.jsonl","trigger":"auto"}`,
			hooks.Request{Op: "notify", Moment: "compaction", SessionID: "s1", TranscriptPath: "/t/s1.jsonl"}, ""},
		{"not a payload", "hello", hooks.Request{Op: "notify", Moment: "compaction"}, "ignoring stdin: not a hook payload"},
		{"malformed", `{"hook_event_name": 3}`, hooks.Request{Op: "notify", Moment: "compaction"},
			"ignoring stdin: hook payload: field hook_event_name: wrong type (got a JSON number); pipe the payload exactly as Claude Code wrote it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := hooks.NotifyRequest(hooks.MomentCompaction, []byte(c.input))
			warn := ""
			if err != nil {
				warn = err.Error()
			}
			if got != c.want || warn != c.warn {
				t.Errorf("got %+v, %q; want %+v, %q", got, warn, c.want, c.warn)
			}
		})
	}
}

func TestParseMoment(t *testing.T) {
	for _, ok := range []string{"compaction", "threshold"} {
		if m, err := hooks.ParseMoment(ok); err != nil || string(m) != ok {
			t.Errorf("ParseMoment(%q) = %q, %v", ok, m, err)
		}
	}
	for _, bad := range []string{"", "daemon-start", "shutdown", "Compaction"} {
		_, err := hooks.ParseMoment(bad)
		if err == nil || !strings.HasSuffix(err.Error(), "use one of compaction, threshold") {
			t.Errorf("ParseMoment(%q): %v", bad, err)
		}
	}
}

// serveOnce answers one request on a real socket with answer.
func serveOnce(t *testing.T, answer string) (path string, got chan hooks.Request) {
	t.Helper()
	path = filepath.Join(t.TempDir(), hooks.SocketName)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); ln.Close() })
	got = make(chan hooks.Request, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		line, _ := bufio.NewReader(conn).ReadBytes('\n')
		var req hooks.Request
		json.Unmarshal(line, &req)
		got <- req
		if answer != "" {
			conn.Write([]byte(answer))
		} else {
			<-stop // a daemon that never answers
		}
	}()
	return path, got
}

func TestSend(t *testing.T) {
	ctx := context.Background()
	t.Run("ok", func(t *testing.T) {
		path, got := serveOnce(t, `{"ok":true,"message":"compaction noted; run queued"}`+"\n")
		req := hooks.Request{Op: hooks.OpNotify, Moment: hooks.MomentCompaction, SessionID: "s"}
		resp, err := hooks.Send(ctx, path, req)
		if err != nil || resp.Message != "compaction noted; run queued" {
			t.Fatalf("%+v, %v", resp, err)
		}
		if r := <-got; r != req {
			t.Errorf("daemon got %+v", r)
		}
	})
	t.Run("refused", func(t *testing.T) {
		path, _ := serveOnce(t, `{"ok":false,"message":"unknown moment \"x\""}`+"\n")
		_, err := hooks.Send(ctx, path, hooks.Request{Op: hooks.OpNotify, Moment: "x"})
		if err == nil || err.Error() != `daemon refused notify: unknown moment "x"` {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("no answer", func(t *testing.T) {
		path, _ := serveOnce(t, "")
		_, err := hooks.Send(ctx, path, hooks.Request{Op: hooks.OpStatus})
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("err %v, want a deadline error", err)
		}
	})
	t.Run("no socket", func(t *testing.T) {
		_, err := hooks.Send(ctx, filepath.Join(t.TempDir(), hooks.SocketName), hooks.Request{Op: hooks.OpStatus})
		if !errors.Is(err, hooks.ErrNoDaemon) {
			t.Fatalf("err %v, want ErrNoDaemon", err)
		}
	})
}

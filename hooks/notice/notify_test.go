package notice_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/hooks/notice"
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
		data, err := notice.ReadPiped(f, time.Second)
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
		_, err = notice.ReadPiped(r, 50*time.Millisecond)
		if !errors.Is(err, notice.ErrStdinTimeout) {
			t.Fatalf("err %v, want ErrStdinTimeout", err)
		}
	})
	t.Run("too large", func(t *testing.T) {
		_, err := notice.ReadPiped(strings.NewReader(strings.Repeat("x", 2<<20)), time.Second)
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
		data, err := notice.ReadPiped(f, time.Second)
		if data != nil || err != nil {
			t.Fatalf("%q, %v", data, err)
		}
	})
}

func TestNotifyRequest(t *testing.T) {
	cases := []struct {
		name, input string
		want        notice.Request
		warn        string
	}{
		{"no payload", "", notice.Request{Op: "notify", Moment: "compaction"}, ""},
		{"payload", `{"hook_event_name":"PreCompact","session_id":"s1","transcript_path":"/t/s1.jsonl","trigger":"auto"}`,
			notice.Request{Op: "notify", Moment: "compaction", SessionID: "s1", TranscriptPath: "/t/s1.jsonl"}, ""},
		{"not a payload", "hello", notice.Request{Op: "notify", Moment: "compaction"}, "ignoring stdin: not a hook payload"},
		{"malformed", `{"hook_event_name": 3}`, notice.Request{Op: "notify", Moment: "compaction"},
			"ignoring stdin: hook payload: field hook_event_name: wrong type (got a JSON number); pipe the payload exactly as Claude Code wrote it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := notice.NotifyRequest(notice.MomentCompaction, []byte(c.input))
			warn := ""
			if err != nil {
				warn = err.Error()
			}
			if !reflect.DeepEqual(got, c.want) || warn != c.warn {
				t.Errorf("got %+v, %q; want %+v, %q", got, warn, c.want, c.warn)
			}
		})
	}
}

func TestParseMoment(t *testing.T) {
	for _, ok := range []string{"compaction", "threshold"} {
		if m, err := notice.ParseMoment(ok); err != nil || string(m) != ok {
			t.Errorf("ParseMoment(%q) = %q, %v", ok, m, err)
		}
	}
	for _, bad := range []string{"", "daemon-start", "shutdown", "Compaction"} {
		_, err := notice.ParseMoment(bad)
		if err == nil || !strings.HasSuffix(err.Error(), "use one of compaction, threshold") {
			t.Errorf("ParseMoment(%q): %v", bad, err)
		}
	}
}

// serveOnce answers one request on a real socket with answer: "" never
// answers, "close" closes the connection without a word.
func serveOnce(t *testing.T, answer string) (path string, got chan notice.Request) {
	t.Helper()
	path = filepath.Join(t.TempDir(), notice.SocketName)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); ln.Close() })
	got = make(chan notice.Request, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		line, _ := bufio.NewReader(conn).ReadBytes('\n')
		var req notice.Request
		json.Unmarshal(line, &req)
		got <- req
		switch answer {
		case "close":
		case "":
			<-stop // a daemon that never answers
		default:
			conn.Write([]byte(answer))
		}
	}()
	return path, got
}

func TestSend(t *testing.T) {
	soon := func() time.Time { return time.Now().Add(2 * time.Second) }
	t.Run("ok", func(t *testing.T) {
		path, got := serveOnce(t, `{"ok":true,"message":"compaction noted; run queued","status":{"pid":1}}`+"\n")
		req := notice.Request{Op: notice.OpNotify, Moment: notice.MomentCompaction, SessionID: "s\"1", TranscriptPath: "/t/é.jsonl"}
		ans, err := notice.Send(path, req, soon())
		if err != nil || ans != (notice.Answer{OK: true, Message: "compaction noted; run queued"}) {
			t.Fatalf("%+v, %v", ans, err)
		}
		if r := <-got; !reflect.DeepEqual(r, req) {
			t.Errorf("daemon got %+v", r)
		}
	})
	t.Run("refused", func(t *testing.T) {
		path, _ := serveOnce(t, `{"ok":false,"message":"unknown moment \"x\""}`+"\n")
		_, err := notice.Send(path, notice.Request{Op: notice.OpNotify, Moment: "x"}, soon())
		if err == nil || err.Error() != `daemon refused notify: unknown moment "x"` {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("junk answer", func(t *testing.T) {
		path, _ := serveOnce(t, "<html>\n")
		_, err := notice.Send(path, notice.Request{Op: notice.OpNotify, Moment: "compaction"}, soon())
		if err == nil || err.Error() != "decode answer: not an object at byte 0" {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("answer without ok", func(t *testing.T) {
		path, _ := serveOnce(t, `{"message":"?"}`+"\n")
		_, err := notice.Send(path, notice.Request{Op: notice.OpNotify, Moment: "compaction"}, soon())
		if err == nil || err.Error() != "decode answer: ok is a nothing, want a bool" {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("answer too long", func(t *testing.T) {
		path, _ := serveOnce(t, strings.Repeat("x", notice.MaxLine+10))
		_, err := notice.Send(path, notice.Request{Op: notice.OpStatus}, soon())
		if err == nil || err.Error() != "read answer to status: answer longer than 8388608 bytes" {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("closed without answer", func(t *testing.T) {
		path, _ := serveOnce(t, "close")
		_, err := notice.Send(path, notice.Request{Op: notice.OpStatus}, soon())
		if err == nil || err.Error() != "read answer to status: the daemon closed the connection without an answer" {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("no answer", func(t *testing.T) {
		path, _ := serveOnce(t, "")
		_, err := notice.Send(path, notice.Request{Op: notice.OpStatus}, time.Now().Add(100*time.Millisecond))
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("err %v, want a deadline error", err)
		}
	})
	t.Run("no socket", func(t *testing.T) {
		_, err := notice.Send(filepath.Join(t.TempDir(), notice.SocketName), notice.Request{Op: notice.OpStatus}, soon())
		if !errors.Is(err, notice.ErrNoDaemon) {
			t.Fatalf("err %v, want ErrNoDaemon", err)
		}
	})
	t.Run("stale socket", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), notice.SocketName)
		ln, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		ln.(*net.UnixListener).SetUnlinkOnClose(false)
		ln.Close()
		_, err = notice.Send(path, notice.Request{Op: notice.OpStatus}, soon())
		if !errors.Is(err, notice.ErrNoDaemon) || !strings.Contains(err.Error(), "connection refused") {
			t.Fatalf("err %v, want ErrNoDaemon (connection refused)", err)
		}
	})
	t.Run("socket path too long", func(t *testing.T) {
		path := "/" + strings.Repeat("d", 120) + "/" + notice.SocketName
		_, err := notice.Send(path, notice.Request{Op: notice.OpStatus}, soon())
		if err == nil || !strings.HasSuffix(err.Error(), "bytes, longer than the 107 a Unix socket allows; use a shorter data directory") {
			t.Fatalf("err %v", err)
		}
	})
}

// TestRun pins every line a hook's notify may print, and that it prints
// nothing at all when the daemon takes the notice.
func TestRun(t *testing.T) {
	noEnv := func(string) string { return "" }
	run := func(dir string, stdin string, getenv func(string) string) string {
		var errb strings.Builder
		notice.Run(context.Background(), dir, notice.MomentCompaction, strings.NewReader(stdin), &errb, getenv)
		return errb.String()
	}
	t.Run("taken", func(t *testing.T) {
		path, got := serveOnce(t, `{"ok":true,"message":"noted"}`+"\n")
		if out := run(filepath.Dir(path), `{"hook_event_name":"PreCompact","session_id":"s1","transcript_path":"/t/s1.jsonl"}`, noEnv); out != "" {
			t.Errorf("stderr %q, want nothing", out)
		}
		if r := <-got; !reflect.DeepEqual(r, notice.Request{Op: "notify", Moment: "compaction", SessionID: "s1", TranscriptPath: "/t/s1.jsonl"}) {
			t.Errorf("daemon got %+v", r)
		}
	})
	t.Run("no daemon", func(t *testing.T) {
		dir := t.TempDir()
		want := "recollect: no daemon is running for " + dir + "; nothing was done now, the next `recollect daemon` start will catch up\n"
		if out := run(dir, "", noEnv); out != want {
			t.Errorf("stderr %q, want %q", out, want)
		}
	})
	t.Run("refused, with a bad payload", func(t *testing.T) {
		path, _ := serveOnce(t, `{"ok":false,"message":"shutting down"}`+"\n")
		want := "recollect: ignoring stdin: hook payload: malformed JSON (unexpected end of input in an object at byte 31); pipe the payload exactly as Claude Code wrote it\n" +
			"recollect: the daemon did not take the compaction notice (daemon refused notify: shutting down); it keeps following and will catch up\n"
		if out := run(filepath.Dir(path), `{"hook_event_name":"PreCompact"`, noEnv); out != want {
			t.Errorf("stderr %q\nwant   %q", out, want)
		}
	})
	t.Run("child of recollect", func(t *testing.T) {
		dir := t.TempDir()
		if out := run(dir, "", func(k string) string {
			if k == notice.EnvChild {
				return "1"
			}
			return ""
		}); out != "" {
			t.Errorf("stderr %q, want nothing", out)
		}
	})
}

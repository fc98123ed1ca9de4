package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// TestRun pins every exit status and line of the command, in process. No
// daemon runs: a notify that reaches none says so and still exits 0.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	noDaemon := notice.NoDaemonMessage(dir) + "\n"
	see := "; see recollect-notify --help\n"
	cases := []struct {
		name       string
		args       []string
		env        map[string]string
		code       int
		stdout     string
		stderr     string
		stdoutHas  string
		stdinInput string
	}{
		{name: "flag after the moment", args: []string{"compaction", "--data", dir}, stderr: noDaemon},
		{name: "flag before the moment", args: []string{"--data=" + dir, "threshold"}, stderr: noDaemon},
		{name: "single dash", args: []string{"-data", dir, "compaction"}, stderr: noDaemon},
		{name: "RECOLLECT_DATA", args: []string{"compaction"}, env: map[string]string{"RECOLLECT_DATA": dir}, stderr: noDaemon},
		{name: "payload that is not one", args: []string{"compaction", "--data", dir}, stdinInput: "hello",
			stderr: "recollect: ignoring stdin: not a hook payload\n" + noDaemon},
		{name: "codex notify JSON argument, stdin left alone", args: []string{"threshold", "--data", dir, `{"type":"agent-turn-complete","thread-id":"t1","turn-id":"1","cwd":"/w/app","input-messages":["fix it"],"last-assistant-message":"Done."}`},
			stdinInput: "hello", stderr: noDaemon},
		{name: "child of recollect", args: []string{"compaction", "--data", dir}, env: map[string]string{notice.EnvChild: "1"}},
		{name: "help", args: []string{"--help"}, stdoutHas: "usage: recollect-notify MOMENT [--data DIR]"},
		{name: "no moment", args: nil, code: 1, stderr: "recollect-notify: say which moment: compaction or threshold, or which context hook: session-start or user-prompt" + see},
		{name: "unknown moment", args: []string{"shutdown"}, code: 1,
			stderr: `recollect-notify: unknown moment "shutdown"; use one of compaction, threshold` + see},
		{name: "two moments", args: []string{"compaction", "threshold"}, code: 1,
			stderr: "recollect-notify: one moment only, got compaction and threshold" + see},
		{name: "unknown flag", args: []string{"compaction", "--dta", dir}, code: 1, stderr: "recollect-notify: unknown flag --dta" + see},
		{name: "data without a value", args: []string{"compaction", "--data"}, code: 1, stderr: "recollect-notify: --data needs a directory" + see},
		{name: "data empty", args: []string{"compaction", "--data="}, code: 1, stderr: "recollect-notify: --data needs a directory" + see},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			var environ []string
			for k, v := range c.env {
				environ = append(environ, k+"="+v)
			}
			code := run(c.args, strings.NewReader(c.stdinInput), &out, &errb, environ)
			if code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			if c.stdoutHas != "" {
				if !strings.Contains(out.String(), c.stdoutHas) {
					t.Errorf("stdout %q lacks %q", out.String(), c.stdoutHas)
				}
			} else if out.String() != c.stdout {
				t.Errorf("stdout %q, want %q", out.String(), c.stdout)
			}
			if errb.String() != c.stderr {
				t.Errorf("stderr %q\nwant   %q", errb.String(), c.stderr)
			}
		})
	}
}

// TestHookAgainstRealDaemon runs the built recollect-notify the way Claude
// Code runs a hook (payload on stdin) against a real `recollect daemon`,
// and checks that it is silent and that the daemon took the notice and ran
// the compaction.
func TestHookAgainstRealDaemon(t *testing.T) {
	bin := testbin.Binary(t)
	hook := testbin.NotifyBinary(t)
	base, err := os.MkdirTemp("", "rcn") // short: Unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	dir := filepath.Join(base, "d")
	daemon := exec.Command(bin, "daemon", "--data", dir)
	var dlog bytes.Buffer
	daemon.Stderr = &dlog
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	defer daemon.Process.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	status := func() *control.Status {
		resp, err := control.Send(ctx, notice.SocketPath(dir), notice.Request{Op: notice.OpStatus})
		if err != nil {
			return nil
		}
		return resp.Status
	}
	for status() == nil {
		if ctx.Err() != nil {
			t.Fatalf("daemon did not answer: %s", dlog.String())
		}
		time.Sleep(20 * time.Millisecond) // polling the socket, not waiting blind
	}
	cmd := exec.Command(hook, "compaction", "--data", dir)
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreCompact","session_id":"s1","transcript_path":"/nonexistent/s1.jsonl","cwd":"/tmp","trigger":"auto"}`)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("hook: %v: %s", err, errb.String())
	}
	if out.Len() > 0 || errb.Len() > 0 {
		t.Fatalf("a taken notice must be silent; stdout %q stderr %q", out.String(), errb.String())
	}
	for {
		if s := status(); s != nil && s.Runs["compaction"] == 1 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the daemon ran no compaction: %+v\n%s", status(), dlog.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

package notice_test

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/hooks/notice"
)

// TestRunContext pins what a lean context hook does with each answer a
// control socket can give: the daemon's bytes as they are, the recollect
// binary when no daemon serves the store, one line when the daemon is
// too slow, and nothing for a claude that recollect started.
func TestRunContext(t *testing.T) {
	const payload = `{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":"/w/app","prompt":"which database?"}`
	cases := []struct {
		name   string
		answer string // "none": no socket at all
		env    string
		stdout string
		stderr string
		direct bool
		sent   bool
	}{
		{name: "answered", answer: `{"ok":true,"message":"context","stdout":"{\"hookSpecificOutput\":{}}\n","stderr":"a line\n"}` + "\n",
			stdout: "{\"hookSpecificOutput\":{}}\n", stderr: "a line\n", sent: true},
		{name: "answered with nothing", answer: `{"ok":true,"message":"context"}` + "\n", sent: true},
		{name: "no daemon", answer: "none", direct: true},
		{name: "an older daemon", answer: `{"ok":false,"message":"unknown op \"context\"; use notify, status, wait or yield"}` + "\n", direct: true, sent: true},
		{name: "closed without an answer", answer: "close", direct: true, sent: true},
		{name: "too slow", answer: "", sent: true,
			stderr: "recollect: UserPromptSubmit hook: the store did not answer within 300ms; nothing added this time (recollect stats --data DIR says what is wrong)\n"},
		{name: "child of recollect", answer: "none", env: notice.EnvChild},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var path string
			var got chan notice.Request
			if c.answer == "none" {
				path = filepath.Join(t.TempDir(), notice.SocketName)
			} else {
				path, got = serveOnce(t, c.answer)
			}
			dir := filepath.Dir(path)
			var out, errb bytes.Buffer
			var direct []byte
			notice.RunContext(notice.ContextCall{Verb: notice.VerbUserPrompt, DataFlag: dir, Cwd: "/w", Environ: []string{"HOME=/h"},
				Getenv: func(k string) string {
					if k == c.env {
						return "1"
					}
					return ""
				},
				Stdin: strings.NewReader(payload), Stdout: &out, Stderr: &errb,
				DataDir: func(cwd string) (string, error) {
					if cwd != "/w/app" {
						t.Errorf("data directory resolved from %q, want the payload's cwd", cwd)
					}
					return dir, nil
				},
				Direct:  func(p []byte) { direct = p },
				Timeout: 300 * time.Millisecond})
			if want := strings.ReplaceAll(c.stderr, "DIR", dir); out.String() != c.stdout || errb.String() != want {
				t.Errorf("stdout %q stderr %q, want %q %q", out.String(), errb.String(), c.stdout, want)
			}
			if c.direct != (direct != nil) || c.direct && string(direct) != payload {
				t.Errorf("direct run with %q, want one: %v", direct, c.direct)
			}
			if !c.sent {
				return
			}
			req := <-got
			req.TimeoutMS = 0 // what is left of the bound varies
			want := notice.Request{Op: notice.OpContext, Hook: "user-prompt", Payload: payload, Data: dir, Cwd: "/w", Env: []string{"HOME=/h"}}
			if !reflect.DeepEqual(req, want) {
				t.Errorf("sent %+v\nwant %+v", req, want)
			}
		})
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/hookctx"
	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store/datadir"
)

// readServer answers the scheduler's read requests over p: context hooks
// (contextServer) and searches (searchServer).
func readServer(p *pipeline.Pipeline) func(context.Context, notice.Request) control.Response {
	hook, search := contextServer(p), searchServer(p)
	return func(ctx context.Context, req notice.Request) control.Response {
		if req.Op == notice.OpSearch {
			return search(ctx, req)
		}
		return hook(ctx, req)
	}
}

// searchServer answers search requests as `recollect search` prints its
// answer, searched through p (its open reader, and its embedder when
// embeddings are on). The recollect binary has resolved and checked the
// data directory (Data); a request from recollect-notify, which names
// its working directory (Cwd), has it resolved and checked here as the
// command would, from its --data flag (Data) and environment. A directory
// that is not p's is refused, as is one the checks refuse and a search
// that fails: the client then runs `recollect search` itself, which says
// what went wrong.
func searchServer(p *pipeline.Pipeline) func(context.Context, notice.Request) control.Response {
	return func(ctx context.Context, req notice.Request) control.Response {
		var stderr bytes.Buffer
		dir := req.Data
		if req.Cwd != "" {
			var msg string
			if dir, msg = leanSearchDir(req, &stderr); msg != "" {
				return control.Response{Message: msg}
			}
		}
		if !sameDir(dir, p.Dir()) {
			return control.Response{Message: "this daemon serves " + p.Dir() + ", not " + dir}
		}
		var q graph.Query
		if err := json.Unmarshal([]byte(req.Query), &q); err != nil {
			return control.Response{Message: "decode query: " + err.Error()}
		}
		ans, err := p.Search(ctx, q)
		if err != nil {
			return control.Response{Message: "search: " + err.Error()}
		}
		var out bytes.Buffer
		if req.Format == "json" {
			if err := printJSON(&out, ans); err != nil {
				return control.Response{Message: "encode answer: " + err.Error()}
			}
		} else {
			graph.RenderAnswer(&out, ans)
		}
		return control.Response{OK: true, Message: "search", Stdout: out.String(), Stderr: stderr.String()}
	}
}

// leanSearchDir resolves and checks the data directory of a search
// request from recollect-notify as `recollect search` does in the
// client's directory and environment (what the checks print going to
// stderr); msg says why the request is refused instead.
func leanSearchDir(req notice.Request, stderr io.Writer) (dir, msg string) {
	getenv := environLookup(req.Env)
	if relative(req.Data) || relative(getenv(datadir.EnvData)) {
		return "", "a relative data directory is resolved by the client's own process; run recollect search instead"
	}
	env := Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: stderr, Getenv: getenv}
	dir, err := trustedDataDirAt(req.Data, req.Cwd, env)
	if err == nil {
		err = storeExists(dir)
	}
	if err == nil {
		_, err = loadConfig(dir, env)
	}
	if err != nil {
		return "", "the recollect binary says what is wrong: " + err.Error()
	}
	return dir, ""
}

// contextServer answers context requests (notice.OpContext) for the
// scheduler over p: the hook runs as `recollect hooks VERB` runs it
// (runContextHook), with the hook process's payload, --data flag,
// directory and environment, but reads through p's open reader, which
// stays warm from one hook to the next, and keeps the session-start
// context until something commits to the store (hookctx.Briefings). A
// request for another data directory is refused, and the hook binary runs
// the recollect binary.
func contextServer(p *pipeline.Pipeline) func(context.Context, notice.Request) control.Response {
	briefings := &hookctx.Briefings{}
	return func(ctx context.Context, req notice.Request) control.Response {
		var event string
		switch req.Hook {
		case notice.VerbSessionStart:
			event = hookctx.EventSessionStart
		case notice.VerbUserPrompt:
			event = hookctx.EventUserPromptSubmit
		default:
			return control.Response{Message: "unknown context hook " + req.Hook + "; use " + strings.Join(notice.ContextVerbs, " or ")}
		}
		getenv := environLookup(req.Env)
		if relative(req.Data) || relative(getenv(datadir.EnvData)) {
			// Resolved against this process's directory, not the hook's.
			return control.Response{Message: "a relative data directory is resolved by the hook's own process; run recollect hooks " + req.Hook + " instead"}
		}
		var stdout, stderr bytes.Buffer
		env := Env{Stdin: strings.NewReader(req.Payload), Stdout: &stdout, Stderr: &stderr, Getenv: getenv}
		// The hook's own bound, what is left of it; the whole bound when
		// the request names none.
		timeout := contextHookTimeout
		if req.TimeoutMS > 0 {
			timeout = min(time.Duration(req.TimeoutMS)*time.Millisecond, contextHookTimeout)
		}
		h := contextHook{env: env, event: event, flag: req.Data, cwd: req.Cwd, deadline: time.Now().Add(timeout), briefings: briefings,
			warm: func(dir string) (*graph.Reader, error) {
				if !sameDir(dir, p.Dir()) {
					return nil, errNotServed
				}
				return p.Reader, nil
			}}
		if err := runContextHook(ctx, h); err != nil {
			return control.Response{Message: "this daemon serves " + p.Dir() + ", not the hook's data directory; run recollect hooks " + req.Hook + " instead"}
		}
		return control.Response{OK: true, Message: "context", Stdout: stdout.String(), Stderr: stderr.String()}
	}
}

// environLookup is os.Getenv over environ (KEY=value lines, the last of a
// key winning as in a process's environment).
func environLookup(environ []string) func(string) string {
	vars := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	return func(key string) string { return vars[key] }
}

// relative reports whether path, a --data value, names a directory
// relative to the working directory.
func relative(path string) bool {
	return path != "" && !filepath.IsAbs(path) && path != "~" && !strings.HasPrefix(path, "~/")
}

// sameDir reports whether a and b name one directory.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

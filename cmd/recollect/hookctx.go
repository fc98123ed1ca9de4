package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/hookctx"
	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/install"
	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/hooks/payload"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/pipeline/firstrun"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/datadir"
	"github.com/recollect/recollect/store/sqlite"
)

// contextHookCommands are the hook commands that add memory to an agent's
// context: they read the hook payload on stdin, print the hook JSON or
// nothing, and always exit 0 — a failure is one line on stderr.
func contextHookCommands(env Env) []*cli.Command {
	quiet := func(c *cli.Context, err error, _ bool) error {
		fmt.Fprintln(env.Stderr, "recollect: "+oneLine(err.Error()))
		return nil
	}
	return []*cli.Command{
		{
			Name:         "session-start",
			Usage:        "SessionStart hook: print the memory briefing as hook JSON within context.session_budget tokens (after a compaction, what this session taught first)",
			OnUsageError: quiet,
			Action: func(c *cli.Context) error {
				runContextHook(c.Context, processHook(c, env, hookctx.EventSessionStart))
				return nil
			},
		},
		{
			Name:         "user-prompt",
			Usage:        "UserPromptSubmit hook (opt-in: context.prompt): print the facts relevant to the prompt as hook JSON, or nothing",
			OnUsageError: quiet,
			Action: func(c *cli.Context) error {
				runContextHook(c.Context, processHook(c, env, hookctx.EventUserPromptSubmit))
				return nil
			},
		},
	}
}

// contextHook is one context hook's run: in this process, or in a daemon
// answering a lean hook binary (contextServer) with that process's flag,
// directory and environment.
type contextHook struct {
	env   Env
	event string
	// flag is the --data flag, "" when not given; cwd is the hook
	// process's working directory.
	flag string
	cwd  string
	// deadline bounds the whole run: reading the payload and the store.
	deadline time.Time
	// warm, when set, is the daemon's reader of data directory dir, or
	// errNotServed when dir is not the daemon's; nil opens the store as
	// a hook process does.
	warm func(dir string) (*graph.Reader, error)
	// briefings, with warm, keeps the session-start context between
	// hooks while the store does not change.
	briefings *hookctx.Briefings
}

// errNotServed is a context request for a data directory that is not the
// answering daemon's: the hook binary then asks the recollect binary.
var errNotServed = errors.New("not this daemon's data directory")

// processHook is the context hook run by this process for c.
func processHook(c *cli.Context, env Env, event string) contextHook {
	cwd, _ := os.Getwd()
	return contextHook{env: env, event: event, flag: dataFlag(c), cwd: cwd, deadline: time.Now().Add(contextHookTimeout)}
}

// runContextHook is a context hook's whole run: whatever happens, stdout
// gets the hook JSON or nothing, stderr at most one line. It returns
// errNotServed, having written nothing, when h.warm does not serve the
// data directory; nil otherwise.
func runContextHook(ctx context.Context, h contextHook) error {
	env, event := h.env, h.event
	if env.Getenv(notice.EnvChild) != "" {
		return nil // a claude that recollect started: add nothing
	}
	text, note, err := contextFor(ctx, h)
	if errors.Is(err, errNotServed) {
		return err
	}
	if note != "" {
		// The plugin's first run made the store: said once, to the user.
		env.Stdout.Write(hookctx.OutputNotice(event, text, note))
		if err != nil {
			fmt.Fprintln(env.Stderr, "recollect: "+event+" hook: "+oneLine(err.Error()))
		}
		return nil
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "recollect: "+event+" hook: "+oneLine(err.Error()))
		// A store withheld until the user approves it: at the start of a
		// session the user is told, once, where the agent cannot look.
		var untrusted *config.UntrustedError
		var foreignWAL *config.ForeignWALError
		if event == hookctx.EventSessionStart && (errors.As(err, &untrusted) || errors.As(err, &foreignWAL)) {
			env.Stdout.Write(hookctx.Notice("recollect: memory withheld: " + oneLine(err.Error())))
		}
		return nil
	}
	env.Stdout.Write(hookctx.Output(event, text))
	return nil
}

// contextFor reads the payload and renders the context for h.event. At
// session start it also returns the plugin's first-run notice (see
// pluginFirstRun), once.
func contextFor(ctx context.Context, h contextHook) (text, note string, err error) {
	env, event := h.env, h.event
	// One bound for the whole hook: reading the payload and the store.
	data, err := notice.ReadPiped(env.Stdin, time.Until(h.deadline))
	if err != nil {
		return "", "", err
	}
	var pl payload.Payload
	if len(bytes.TrimSpace(data)) > 0 {
		if pl, err = payload.Parse(data); err != nil {
			return "", "", err
		}
	}
	dir, err := hookDataDir(h, pl.Cwd)
	if err != nil {
		return "", "", err
	}
	var warm *graph.Reader
	if h.warm != nil {
		// Before anything that changes the directory: a hook the daemon
		// does not serve runs whole in the recollect binary.
		if warm, err = h.warm(dir); err != nil {
			return "", "", err
		}
	}
	if event == hookctx.EventSessionStart {
		cwd := pl.Cwd
		if !filepath.IsAbs(cwd) {
			cwd = h.cwd
		}
		if err := pluginFirstRun(ctx, env, dir, cwd); err != nil {
			return "", "", err
		}
		note, _ = firstrun.TakeNotice(dir)
	}
	cfg, err := loadConfig(dir, env)
	if err != nil {
		return "", note, err
	}
	if event == hookctx.EventUserPromptSubmit && !cfg.Context.Prompt {
		return "", "", nil // opt-in; off
	}
	var cons hookctx.Consolidation
	if event == hookctx.EventSessionStart && pl.Source == hookctx.SourceCompact {
		cons = waitConsolidation(ctx, dir, cfg.Context.CompactWait)
	}
	text, err = readContext(ctx, env, dir, cfg, pl, event, cons, h.deadline, warm, h.briefings)
	return text, note, err
}

// contextHookTimeout bounds a context hook's whole run — reading its
// payload on stdin and the store: the agent waits for the hook before it
// goes on, a slow payload writer or a PostgreSQL server that stopped
// answering (a network that drops packets) would otherwise hold every
// prompt, the latter for the operating system's connect timeout, minutes.
const contextHookTimeout = notice.ContextTimeout

// readContext renders the context for event by the hook's deadline, with
// warm (the daemon's reader, and its kept session-start context in
// briefings) or, when nil, the store opened as the hooks open it.
func readContext(parent context.Context, env Env, dir string, cfg config.Config, pl payload.Payload, event string, cons hookctx.Consolidation, deadline time.Time, warm *graph.Reader, briefings *hookctx.Briefings) (_ string, err error) {
	ctx, cancel := context.WithDeadline(parent, deadline)
	defer cancel()
	defer func() {
		// Whatever the driver made of it, a read cut off by this deadline
		// is said as such.
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil {
			err = fmt.Errorf("the store did not answer within %s; nothing added this time (recollect stats --data %s says what is wrong)", contextHookTimeout, dir)
		}
	}()
	r := warm
	if r == nil {
		var db *store.DB
		if cfg.Storage.Provider == "postgres" {
			// A schema on a server: nothing to find on disk first, and
			// opening it migrates at most once, under the server's lock.
			db, err = pipeline.OpenStore(ctx, dir, cfg.Storage, env.Getenv)
		} else {
			db, err = sqlite.OpenReader(ctx, dir)
		}
		if errors.Is(err, store.ErrOlderSchema) {
			db, err = sqlite.Open(ctx, dir) // the first run after an upgrade migrates, as any command would
		}
		if errors.Is(err, store.ErrNoStore) {
			return "", nil // nothing remembered yet: add nothing, say nothing
		}
		if err != nil {
			return "", err
		}
		defer db.Close()
		r = graph.NewReader(db)
		r.Retain(cfg.Retention.Window.Duration())
		defer r.Close()
	}
	if event == hookctx.EventUserPromptSubmit {
		return hookctx.Prompt(ctx, r, pl.Prompt, cfg.Context.PromptBudget)
	}
	in := hookctx.SessionInput{Source: pl.Source, SessionID: pl.SessionID, Budget: cfg.Context.SessionBudget, Consolidation: cons}
	if warm != nil && briefings != nil {
		return briefings.SessionStart(ctx, r, in)
	}
	return hookctx.SessionStart(ctx, r, in)
}

// hookDataDir resolves the data directory as every command does, from the
// session's cwd when the payload names one (the project the agent works
// in), else from this process's.
func hookDataDir(h contextHook, payloadCwd string) (string, error) {
	if payloadCwd == "" || !filepath.IsAbs(payloadCwd) {
		return trustedDataDirAt(h.flag, h.cwd, h.env)
	}
	dir, from, err := datadir.Resolve(h.flag, payloadCwd, h.env.Getenv)
	if err == nil && (from == datadir.FromProject || config.Subject(dir, h.env.Getenv)) {
		err = config.CheckProject(dir, h.env.Getenv)
	}
	return dir, err
}

// waitConsolidation asks the daemon to answer once the consolidation the
// PreCompact notice started has finished, waiting at most wait.
func waitConsolidation(ctx context.Context, dir string, wait config.Duration) hookctx.Consolidation {
	if err := wait.Err(); err != nil {
		return hookctx.Consolidation{State: hookctx.Unknown, Reason: "context.compact_wait: " + err.Error()}
	}
	limit := wait.Duration()
	start := time.Now()
	resp, err := control.WaitIdle(ctx, notice.SocketPath(dir), limit)
	waited := time.Since(start)
	switch {
	case errors.Is(err, notice.ErrNoDaemon):
		return hookctx.Consolidation{State: hookctx.NoDaemon, Waited: waited}
	case err != nil:
		return hookctx.Consolidation{State: hookctx.Unknown, Waited: waited, Reason: err.Error()}
	case resp.Status == nil:
		return hookctx.Consolidation{State: hookctx.Unknown, Waited: waited, Reason: "the daemon answered without a status: " + resp.Message}
	case resp.Status.Running || resp.Status.Pending:
		return hookctx.Consolidation{State: hookctx.StillRunning, Waited: waited}
	}
	return hookctx.Consolidation{State: hookctx.Settled, Waited: waited}
}

// promptFlag asks for the opt-in UserPromptSubmit hook too.
var promptFlag = &cli.BoolFlag{Name: "prompt", Usage: "include the UserPromptSubmit hook (facts relevant to each prompt; it adds nothing until context.prompt is true in config.json)"}

// wantPromptHook reports whether the UserPromptSubmit hook is wanted: asked
// for with --prompt, or already turned on in the store's config. Asked for
// while off, it says how to turn it on.
func wantPromptHook(c *cli.Context, env Env, dir string) bool {
	cfg, err := config.Load(dir)
	on := err == nil && cfg.Context.Prompt
	if c.Bool("prompt") && !on {
		fmt.Fprintf(env.Stderr, "recollect: note: the UserPromptSubmit hook adds nothing until \"context\": {\"prompt\": true} is set in %s\n", filepath.Join(dir, config.FileName))
	}
	return on || c.Bool("prompt")
}

// printSettingsHooks prints the settings.json entries hooks install writes.
func printSettingsHooks(c *cli.Context, env Env) error {
	bin, dir, err := hookBinaryAndData(c, env)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, install.SettingsSnippet(install.SettingsEntries(install.RecollectBeside(bin), bin, dir, wantPromptHook(c, env, dir))))
	return nil
}

// entryActions says what became of each entry: "PreCompact installed,
// SessionStart unchanged".
func entryActions(entries []install.SettingsEntry, actions []string) string {
	var parts []string
	for i, e := range entries {
		if actions[i] != "absent" { // an opt-in hook neither asked for nor there
			parts = append(parts, e.Event+" "+actions[i])
		}
	}
	return strings.Join(parts, ", ")
}

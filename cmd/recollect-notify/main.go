// Command recollect-notify is the command a Claude Code hook runs:
// `recollect-notify compaction` does what `recollect notify compaction`
// does (tell the running daemon, print nothing on stdout, exit 0), and
// `recollect-notify session-start` and `recollect-notify user-prompt` print
// what `recollect hooks session-start` and `recollect hooks user-prompt`
// print, byte for byte: the daemon renders it on its open store, or, when
// no daemon serves the store, the recollect binary does. It is a process
// that links only hooks/notice and store/datadir. Without SQLite, the MCP
// SDK and the model clients to load and initialise, it starts and exits
// several times faster than the full binary; `recollect hooks install`
// writes it into the hooks when it sits beside recollect.
// `recollect-notify search …` prints what `recollect search …` prints, searched
// by the daemon when one serves the store, else by the recollect binary.
package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/store/datadir"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ()))
}

// run is the whole command, in the environment environ (KEY=value lines).
// Its exit status is 0, or 1 for a command line it cannot read — never 2,
// which would block the agent's compaction.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	getenv := func(key string) string {
		v := ""
		for _, kv := range environ {
			if k, val, ok := strings.Cut(kv, "="); ok && k == key {
				v = val
			}
		}
		return v
	}
	fail := func(msg string) int {
		io.WriteString(stderr, "recollect-notify: "+msg+"; see recollect-notify --help\n")
		return 1
	}
	if len(args) > 0 && args[0] == "search" {
		return search(args[1:], stdin, stdout, stderr, environ, getenv)
	}
	var flag, moment string
	argPayload := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case a == "-h" || a == "--help" || a == "help":
			io.WriteString(stdout, usage())
			return 0
		case strings.HasPrefix(a, "-") && name == "data":
			if !hasValue {
				if i+1 == len(args) {
					return fail("--data needs a directory")
				}
				i++
				value = args[i]
			}
			if value == "" {
				return fail("--data needs a directory")
			}
			flag = value
		case strings.HasPrefix(a, "-"):
			return fail("unknown flag " + a)
		case strings.HasPrefix(strings.TrimSpace(a), "{"):
			// Codex's notify passes the turn's JSON as the last argument;
			// its stdin may be the terminal or a pipe left open, so it is
			// not read at all.
			argPayload = true
		case moment != "":
			return fail("one moment only, got " + moment + " and " + a)
		default:
			moment = a
		}
	}
	if moment == "" {
		return fail("say which moment: " + notice.MomentList(" or ") + ", or which context hook: " + strings.Join(notice.ContextVerbs, " or "))
	}
	if notice.ContextEvent(moment) != "" {
		cwd, _ := os.Getwd()
		notice.RunContext(notice.ContextCall{Verb: moment, DataFlag: flag, Cwd: cwd, Environ: environ, Getenv: getenv,
			Stdin: stdin, Stdout: stdout, Stderr: stderr,
			DataDir: func(cwd string) (string, error) {
				dir, _, err := datadir.Resolve(flag, cwd, getenv)
				return dir, err
			},
			Direct: func(payload []byte) { direct(moment, flag, payload, stdout, stderr, getenv) }})
		return 0
	}
	m, err := notice.ParseMoment(moment)
	if err != nil {
		return fail(err.Error())
	}
	if getenv(notice.EnvChild) != "" {
		return 0 // a claude that recollect started: never trigger ourselves
	}
	cwd, _ := os.Getwd()
	dir, _, err := datadir.Resolve(flag, cwd, getenv)
	if err != nil {
		return fail(err.Error())
	}
	if argPayload {
		stdin = nil
	}
	notice.Run(context.Background(), dir, m, stdin, stderr, getenv)
	return 0
}

// EnvBinary names the recollect binary that answers a context hook when
// no daemon does; unset, it is the recollect beside this binary, else the
// one on PATH. The plugin's wrapper sets it to the binary it found.
const EnvBinary = "RECOLLECT_BIN"

// direct runs `recollect hooks VERB` with payload on its stdin and its
// output on ours: the answer when no daemon serves the store. Whatever
// happens, the hook exits 0.
func direct(verb, flag string, payload []byte, stdout, stderr io.Writer, getenv func(string) string) {
	bin, err := recollectBinary(getenv)
	if err != nil {
		io.WriteString(stderr, "recollect: "+notice.ContextEvent(verb)+" hook: "+err.Error()+"\n")
		return
	}
	args := []string{"hooks", verb}
	if flag != "" {
		args = append(args, "--data", flag)
	}
	cmd := exec.Command(bin, args...)
	if payload != nil {
		cmd.Stdin = strings.NewReader(string(payload))
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		var exited *exec.ExitError
		if !errors.As(err, &exited) {
			io.WriteString(stderr, "recollect: "+notice.ContextEvent(verb)+" hook: run "+bin+": "+err.Error()+"\n")
		}
	}
}

// recollectBinary finds the recollect binary: $RECOLLECT_BIN, the one
// beside this binary, or the one on PATH.
func recollectBinary(getenv func(string) string) (string, error) {
	if bin := getenv(EnvBinary); bin != "" {
		return bin, nil
	}
	if self, err := os.Executable(); err == nil {
		if resolved, err := filepath.EvalSymlinks(self); err == nil {
			self = resolved
		}
		beside := filepath.Join(filepath.Dir(self), "recollect")
		if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() {
			return beside, nil
		}
	}
	if bin, err := exec.LookPath("recollect"); err == nil {
		return bin, nil
	}
	return "", errorString("no daemon answered and no recollect binary is beside recollect-notify or on PATH; nothing added this time (install recollect beside it, or set " + EnvBinary + ")")
}

// errorString is an error that is its message.
type errorString string

func (e errorString) Error() string { return string(e) }

func usage() string {
	s := "recollect-notify - tell the running recollect daemon that a moment happened, or ask it for a context hook's\n" +
		"memory (the command a hook runs)\n\n" +
		"usage: recollect-notify MOMENT [--data DIR]\n       recollect-notify session-start|user-prompt [--data DIR]\n" +
		"       recollect-notify search [recollect search's flags] QUERY\n\nmoments:\n"
	for _, m := range notice.Moments {
		s += "  " + string(m) + strings.Repeat(" ", 15-len(m)) + notice.Describe(m) + "\n"
	}
	s += "\ncontext hooks:\n" +
		"  session-start  SessionStart: print what `recollect hooks session-start` prints\n" +
		"  user-prompt    UserPromptSubmit: print what `recollect hooks user-prompt` prints\n" +
		"\nsearch:\n" +
		"  search         print what `recollect search` prints with the same arguments; the running daemon\n" +
		"                 searches when one serves the store, else recollect runs (and its exit status is this one's)\n"
	return s + "\n--data DIR  " + datadir.Usage + "\n\n" +
		"It is `recollect notify MOMENT` in a process that starts several times faster. It prints nothing on\n" +
		"stdout and exits 0 whatever happens, so a hook never blocks the agent; what is worth saying goes to\n" +
		"stderr. A hook payload piped on stdin names the transcript to copy first. A JSON argument (what\n" +
		"Codex's notify appends) is accepted, and then stdin is not read.\n\n" +
		"A context hook is answered by the daemon of the store, from its open store; when none serves it, by\n" +
		"`recollect hooks VERB` ($" + EnvBinary + ", else the recollect beside this binary, else the one on PATH). The\n" +
		"output is the same either way. Within " + notice.ContextTimeout.String() + " it prints the hook JSON or nothing, and exits 0.\n"
}

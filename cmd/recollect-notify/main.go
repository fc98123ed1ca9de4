// Command recollect-notify is the command a Claude Code hook runs:
// `recollect-notify compaction` does what `recollect notify compaction`
// does (tell the running daemon, print nothing on stdout, exit 0), in a
// process that links only hooks/notice and store/datadir. Without SQLite,
// the MCP SDK and the model clients to load and initialise, it starts and
// exits about three times faster than the full binary; `recollect hooks
// install` writes it into the hook when it sits beside recollect.
package main

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/store/datadir"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// run is the whole command. Its exit status is 0, or 1 for a command line
// it cannot read — never 2, which would block the agent's compaction.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fail := func(msg string) int {
		io.WriteString(stderr, "recollect-notify: "+msg+"; see recollect-notify --help\n")
		return 1
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
		return fail("say which moment: " + notice.MomentList(" or "))
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

func usage() string {
	s := "recollect-notify - tell the running recollect daemon that a moment happened (the command a hook runs)\n\n" +
		"usage: recollect-notify MOMENT [--data DIR]\n\nmoments:\n"
	for _, m := range notice.Moments {
		s += "  " + string(m) + strings.Repeat(" ", 12-len(m)) + notice.Describe(m) + "\n"
	}
	return s + "\n--data DIR  " + datadir.Usage + "\n\n" +
		"It is `recollect notify MOMENT` in a process that starts several times faster. It prints nothing on\n" +
		"stdout and exits 0 whatever happens, so a hook never blocks the agent; what is worth saying goes to\n" +
		"stderr. A hook payload piped on stdin names the transcript to copy first. A JSON argument (what\n" +
		"Codex's notify appends) is accepted, and then stdin is not read.\n"
}

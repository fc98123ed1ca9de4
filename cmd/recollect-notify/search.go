package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/store/datadir"
)

// searchTimeout bounds a search the daemon answers, as it bounds the
// recollect binary's own request.
const searchTimeout = 30 * time.Second

// searchArgs is what `recollect search` reads from its command line, as
// far as this binary reads it.
type searchArgs struct {
	data, domain  string
	limit, budget int
	asJSON        bool
	history       bool
	query         string
}

// parseSearch reads the arguments of `recollect search` as it reads them
// (flags anywhere, "--" ending them, a negative number an argument). ok is
// false for anything it leaves to the recollect binary: a flag it does not
// handle (--kind, --as-of, --order, --help), a value the binary would
// refuse, or no query.
func parseSearch(args []string) (s searchArgs, ok bool) {
	var words []string
	for i := 0; i < len(args); i++ {
		t := args[i]
		if t == "--" {
			words = append(words, args[i+1:]...)
			break
		}
		if len(t) < 2 || t[0] != '-' || negativeNumber(t) {
			words = append(words, t)
			continue
		}
		if strings.HasPrefix(t, "---") {
			return s, false
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(t, "-"), "=")
		switch name {
		case "data", "domain", "limit", "budget":
			if !hasValue {
				if i+1 == len(args) {
					return s, false
				}
				i++
				value = args[i]
			}
		case "json", "history":
			if !hasValue {
				value = "true"
			}
		default:
			return s, false
		}
		var err error
		switch name {
		case "data":
			if value == "" {
				return s, false
			}
			s.data = value
		case "domain":
			s.domain = value
		case "limit":
			if s.limit, err = strconv.Atoi(value); err != nil || s.limit <= 0 {
				return s, false
			}
		case "budget":
			if s.budget, err = strconv.Atoi(value); err != nil || s.budget < 0 {
				return s, false
			}
		case "json":
			s.asJSON, err = strconv.ParseBool(value)
		case "history":
			s.history, err = strconv.ParseBool(value)
		}
		if err != nil {
			return s, false
		}
	}
	s.query = strings.Join(words, " ")
	return s, strings.TrimSpace(s.query) != ""
}

// negativeNumber reports whether t is a number with a minus sign: an
// argument, never a flag.
func negativeNumber(t string) bool {
	_, err := strconv.ParseFloat(t, 64)
	return err == nil && strings.HasPrefix(t, "-")
}

// queryJSON is the search as the daemon decodes it (graph.Query's
// fields; a zero limit is the default one).
func (s searchArgs) queryJSON() string {
	b := append([]byte(`{"Text":`), notice.AppendString(nil, s.query)...)
	if s.limit > 0 {
		b = strconv.AppendInt(append(b, `,"Limit":`...), int64(s.limit), 10)
	}
	if s.domain != "" {
		b = notice.AppendString(append(b, `,"Domain":`...), s.domain)
	}
	if s.history {
		b = append(b, `,"History":true`...)
	}
	if s.budget > 0 {
		b = strconv.AppendInt(append(b, `,"Budget":`...), int64(s.budget), 10)
	}
	return string(append(b, '}'))
}

// search prints what `recollect search ARGS` prints: the daemon of the
// data directory searches and renders it, in this process's directory
// and environment; when it cannot (no daemon, a command line this binary
// leaves to recollect, a directory the checks refuse, a failed search),
// the recollect binary runs with the same arguments and its exit status
// is this one's.
func search(args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string, getenv func(string) string) int {
	if s, ok := parseSearch(args); ok {
		if out, errs, ok := searchByDaemon(s, environ, getenv); ok {
			io.WriteString(stdout, out)
			io.WriteString(stderr, errs)
			return 0
		}
	}
	bin, err := recollectBinary(getenv)
	if err != nil {
		io.WriteString(stderr, "recollect-notify: search: "+err.Error()+"\n")
		return 1
	}
	cmd := exec.Command(bin, append([]string{"search"}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if err := cmd.Run(); err != nil {
		var exited *exec.ExitError
		if errors.As(err, &exited) {
			return exited.ExitCode()
		}
		io.WriteString(stderr, "recollect-notify: search: run "+bin+": "+err.Error()+"\n")
		return 1
	}
	return 0
}

// searchByDaemon asks the daemon of s's data directory for the answer.
func searchByDaemon(s searchArgs, environ []string, getenv func(string) string) (out, errs string, ok bool) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", "", false
	}
	dir, _, err := datadir.Resolve(s.data, cwd, getenv)
	if err != nil {
		return "", "", false
	}
	req := notice.Request{Op: notice.OpSearch, Data: s.data, Cwd: cwd, Env: environ, Query: s.queryJSON()}
	if s.asJSON {
		req.Format = "json"
	}
	line := append(req.AppendJSON(nil), '\n')
	if len(line) > notice.MaxLine {
		return "", "", false
	}
	answer, err := notice.Exchange(notice.SocketPath(dir), notice.OpSearch, line, time.Now().Add(searchTimeout))
	if err != nil {
		return "", "", false
	}
	ans, err := notice.ParseContextAnswer(answer)
	if err != nil || !ans.OK {
		return "", "", false
	}
	return ans.Stdout, ans.Stderr, true
}

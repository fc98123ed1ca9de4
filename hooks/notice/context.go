package notice

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"time"
)

// The context hooks a lean hook binary asks the daemon for, by the verb
// the recollect binary's `hooks` command gives them.
const (
	VerbSessionStart = "session-start"
	VerbUserPrompt   = "user-prompt"
)

// ContextVerbs are the context hook verbs, in the order help lists them.
var ContextVerbs = []string{VerbSessionStart, VerbUserPrompt}

// ContextEvent is the hook event a context verb answers, as the hook's
// lines name it: SessionStart or UserPromptSubmit; "" for another verb.
func ContextEvent(verb string) string {
	switch verb {
	case VerbSessionStart:
		return "SessionStart"
	case VerbUserPrompt:
		return "UserPromptSubmit"
	}
	return ""
}

// ContextTimeout bounds a context hook's whole run — reading its payload
// and the answer — as it bounds the recollect binary's own.
const ContextTimeout = 3 * time.Second

// MaxCompactWait is the longest wait context.compact_wait allows
// (config.MaxCompactWait): a session start after a compaction may first
// wait that long for the consolidation the compaction started.
const MaxCompactWait = 10 * time.Second

// ContextCall is one context hook run by a lean binary.
type ContextCall struct {
	// Verb is VerbSessionStart or VerbUserPrompt.
	Verb string
	// DataFlag is the --data flag, "" when not given; Cwd the process's
	// working directory; Environ its environment (os.Environ).
	DataFlag string
	Cwd      string
	Environ  []string
	Getenv   func(string) string
	Stdin    io.Reader
	Stdout   io.Writer
	Stderr   io.Writer
	// DataDir resolves the data directory as every recollect command
	// does, from DataFlag and cwd (the payload's when it names an
	// absolute one, else Cwd).
	DataDir func(cwd string) (string, error)
	// Direct runs the hook in the recollect binary with payload on its
	// stdin (nil: none), writing to Stdout and Stderr: the answer when no
	// daemon serves the data directory.
	Direct func(payload []byte)
	// Timeout bounds the run; ContextTimeout when zero.
	Timeout time.Duration
}

// RunContext is a lean context hook's whole run. Nothing at all inside a
// claude process recollect started (EnvChild set). Otherwise it reads the
// payload and asks the daemon of the data directory for the hook's
// output, which the daemon renders on its open store with the recollect
// binary's own code; stdout gets those bytes as they are, stderr at most
// the one line the recollect binary would write. When no daemon serves
// the directory (none runs, or one that does not know the request) the
// recollect binary answers instead (Direct), so the bytes are the same
// either way. A daemon that does not answer within ContextTimeout gets one
// line on stderr and nothing is added.
func RunContext(call ContextCall) {
	if call.Getenv(EnvChild) != "" {
		return
	}
	event := ContextEvent(call.Verb)
	timeout := call.Timeout
	if timeout == 0 {
		timeout = ContextTimeout
	}
	deadline := time.Now().Add(timeout)
	data, err := ReadPiped(call.Stdin, timeout)
	if err != nil {
		io.WriteString(call.Stderr, "recollect: "+event+" hook: "+firstLine(err.Error())+"\n")
		return
	}
	cwd, compact := payloadCwd(data)
	if cwd == "" || !filepath.IsAbs(cwd) {
		cwd = call.Cwd
	}
	dir, err := call.DataDir(cwd)
	if err != nil {
		// The recollect binary says what is wrong with the directory.
		call.Direct(data)
		return
	}
	if compact && call.Verb == VerbSessionStart {
		// The daemon first waits for the consolidation the compaction
		// started, as long as context.compact_wait says.
		deadline = deadline.Add(MaxCompactWait)
	}
	req := Request{Op: OpContext, Hook: call.Verb, Payload: string(data), Data: call.DataFlag, Cwd: call.Cwd,
		Env: call.Environ, TimeoutMS: int(time.Until(deadline) / time.Millisecond)}
	line := append(req.AppendJSON(make([]byte, 0, 512+len(data))), '\n')
	if len(line) > MaxLine {
		call.Direct(data)
		return
	}
	ans, err := askContext(SocketPath(dir), line, deadline)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		io.WriteString(call.Stderr, "recollect: "+event+" hook: the store did not answer within "+timeout.String()+
			"; nothing added this time (recollect stats --data "+dir+" says what is wrong)\n")
	case err != nil || !ans.OK:
		// No daemon, one that refuses (an older one, or the daemon of
		// another directory), or one that failed mid-answer.
		call.Direct(data)
	default:
		io.WriteString(call.Stdout, ans.Stdout)
		io.WriteString(call.Stderr, ans.Stderr)
	}
}

// ContextAnswer is the daemon's answer to a context request.
type ContextAnswer struct {
	Answer
	// Stdout and Stderr are what the hook writes, exactly.
	Stdout string
	Stderr string
}

// ParseContextAnswer decodes the daemon's answer to a context request.
func ParseContextAnswer(line []byte) (ContextAnswer, error) {
	m, err := DecodeObject(line, "ok", "message", "stdout", "stderr")
	if err != nil {
		return ContextAnswer{}, wrap("decode answer", err)
	}
	if m[0].Kind != KindBool {
		return ContextAnswer{}, errors.New("decode answer: ok is a " + m[0].Kind.String() + ", want a bool")
	}
	for i, name := range []string{"message", "stdout", "stderr"} {
		if k := m[i+1].Kind; k != KindString && k != KindAbsent {
			return ContextAnswer{}, errors.New("decode answer: " + name + " is a " + k.String() + ", want a string")
		}
	}
	return ContextAnswer{Answer: Answer{OK: m[0].Bool, Message: m[1].Str}, Stdout: m[2].Str, Stderr: m[3].Str}, nil
}

// askContext sends a context request line and decodes the answer.
func askContext(socketPath string, line []byte, deadline time.Time) (ContextAnswer, error) {
	answer, err := Exchange(socketPath, OpContext, line, deadline)
	if err != nil {
		return ContextAnswer{}, err
	}
	return ParseContextAnswer(answer)
}

// payloadCwd reads the payload's cwd, and whether it is a session start
// after a compaction (source "compact"). Anything it cannot read is left
// to the recollect binary's parse, which says what is wrong.
func payloadCwd(data []byte) (cwd string, compact bool) {
	if _, err := ParsePayload(data); err != nil {
		return "", false
	}
	m, err := DecodeObject(data, "cwd", "source")
	if err != nil {
		return "", false
	}
	return m[0].Str, m[1].Str == "compact"
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

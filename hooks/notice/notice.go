// Package notice carries one moment notice from a hook to the running
// recollect daemon — it reads the hook's payload, writes one request line
// to the control socket and reads the one-line answer — and asks that
// daemon for a context hook's output (RunContext).
//
// It is the whole code path of a hook's process, so it is built to start
// fast: raw socket system calls instead of package net, a small JSON codec
// instead of encoding/json's reflection, no fmt. On a machine where a
// process start costs milliseconds, the packages a program links and
// touches at start are what a hook pays for; see cmd/recollect-notify.
// A test pins its imports.
package notice

import (
	"errors"
	"strconv"
	"strings"
)

// SocketName is the control socket's file name inside a data directory.
const SocketName = "recollect.sock"

// PipePrefix starts the name of every recollect control pipe on Windows.
const PipePrefix = `\\.\pipe\recollect-`

// PipeName is the Windows control endpoint of data directory dataDir: a
// named pipe called for a hash of the directory, since a pipe lives in
// one machine-wide namespace rather than in the directory. Windows paths
// compare case-insensitively, so the hash is of the lower-cased path
// without trailing separators: every spelling of one directory names one
// pipe.
func PipeName(dataDir string) string {
	key := strings.ToLower(strings.TrimRight(dataDir, `\/`))
	h := uint64(14695981039346656037) // FNV-1a, 64-bit
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	hex := strconv.FormatUint(h, 16)
	return PipePrefix + strings.Repeat("0", 16-len(hex)) + hex
}

// EnvChild is set in the environment of a claude process that recollect
// itself starts (the cli provider), so hooks fired by that child session do
// nothing and recollect never triggers itself recursively.
const EnvChild = "RECOLLECT_CHILD"

// Moment names a point in an agent's life that may start a consolidation
// run. The scheduler owns what each moment runs; the client only names it.
type Moment string

// The moments. Only compaction and threshold travel over the socket; start
// and shutdown happen inside the process that runs the scheduler.
const (
	MomentStart      Moment = "daemon-start"
	MomentCompaction Moment = "compaction"
	MomentThreshold  Moment = "threshold"
	MomentShutdown   Moment = "shutdown"
)

// Moments are the moments a client may send, in the order help lists them.
var Moments = []Moment{MomentCompaction, MomentThreshold}

// Describe says what a notice of m asks of the daemon, for help texts.
func Describe(m Moment) string {
	switch m {
	case MomentCompaction:
		return "the conversation is about to be compacted: copy its transcript, extract and integrate (PreCompact hook)"
	case MomentThreshold:
		return "new lines were written: extract if enough are waiting and the last such run is old enough"
	}
	return ""
}

// ParseMoment checks that s names a moment a client may send.
func ParseMoment(s string) (Moment, error) {
	for _, m := range Moments {
		if string(m) == s {
			return m, nil
		}
	}
	return "", errors.New("unknown moment " + strconv.Quote(s) + "; use one of " + MomentList(", "))
}

// MomentList joins the moments a client may send with sep.
func MomentList(sep string) string {
	s := ""
	for i, m := range Moments {
		if i > 0 {
			s += sep
		}
		s += string(m)
	}
	return s
}

// The operations a Request may carry.
const (
	// OpNotify reports a moment; the daemon queues the run it calls for and
	// acknowledges at once, before the run.
	OpNotify = "notify"
	// OpStatus asks what the scheduler is doing.
	OpStatus = "status"
	// OpWait asks the daemon to answer once no consolidation run is in
	// flight or queued, or after WaitMS milliseconds, whichever comes
	// first; the answer's status says which.
	OpWait = "wait"
	// OpContext asks for a context hook's output (Request.Hook), rendered
	// by the daemon on its open store exactly as the recollect binary's
	// `hooks session-start` or `hooks user-prompt` renders it; see
	// RunContext.
	OpContext = "context"
	// OpSearch asks for `recollect search`'s output for the query in
	// Request.Query (graph.Query as JSON), searched on the daemon's open
	// store of data directory Request.Data, as JSON when Request.Format
	// is "json".
	OpSearch = "search"
	// OpYield asks an MCP server's scheduler to step back so that a daemon
	// can take the store over; a daemon refuses it.
	OpYield = "yield"
)

// MaxWaitMS bounds a wait request: the daemon never holds a connection
// longer than this however long the request asks.
const MaxWaitMS = 30_000

// Request is one line of JSON a client writes to the control socket. The
// daemon decodes it with encoding/json by these tags.
type Request struct {
	Op     string `json:"op"`
	Moment Moment `json:"moment,omitempty"`
	// SessionID and TranscriptPath come from the hook payload; the daemon
	// copies TranscriptPath first when the moment copies.
	SessionID      string `json:"session_id,omitempty"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	// WaitMS is how long a wait request may wait, in milliseconds.
	WaitMS int `json:"wait_ms,omitempty"`

	// The fields of a context request: the hook's verb (session-start or
	// user-prompt), its payload exactly as read from stdin, the --data
	// flag ("" when not given), the hook process's working directory and
	// environment, and how long it still waits for the answer.
	Hook      string   `json:"hook,omitempty"`
	Payload   string   `json:"payload,omitempty"`
	Data      string   `json:"data,omitempty"`
	Cwd       string   `json:"cwd,omitempty"`
	Env       []string `json:"env,omitempty"`
	TimeoutMS int      `json:"timeout_ms,omitempty"`
	// Query and Format are a search request's.
	Query  string `json:"query,omitempty"`
	Format string `json:"format,omitempty"`
}

// AppendJSON appends r as one JSON object, the encoding encoding/json
// decodes back to r (empty optional fields are left out).
func (r Request) AppendJSON(b []byte) []byte {
	b = append(b, `{"op":`...)
	b = AppendString(b, r.Op)
	for _, f := range [...]struct{ key, val string }{
		{"moment", string(r.Moment)},
		{"session_id", r.SessionID},
		{"transcript_path", r.TranscriptPath},
		{"hook", r.Hook},
		{"payload", r.Payload},
		{"data", r.Data},
		{"cwd", r.Cwd},
		{"query", r.Query},
		{"format", r.Format},
	} {
		if f.val != "" {
			b = append(b, ',')
			b = AppendString(b, f.key)
			b = append(b, ':')
			b = AppendString(b, f.val)
		}
	}
	if r.WaitMS != 0 {
		b = append(b, `,"wait_ms":`...)
		b = strconv.AppendInt(b, int64(r.WaitMS), 10)
	}
	if len(r.Env) > 0 {
		b = append(b, `,"env":[`...)
		for i, kv := range r.Env {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, kv)
		}
		b = append(b, ']')
	}
	if r.TimeoutMS != 0 {
		b = append(b, `,"timeout_ms":`...)
		b = strconv.AppendInt(b, int64(r.TimeoutMS), 10)
	}
	return append(b, '}')
}

// Answer is what a notice needs of the daemon's one-line answer.
type Answer struct {
	OK bool
	// Message is one human-readable line: what the daemon did with the
	// request, or why it refused it.
	Message string
}

// ParseAnswer decodes the daemon's answer line; members other than ok and
// message are checked for syntax and otherwise ignored.
func ParseAnswer(line []byte) (Answer, error) {
	m, err := DecodeObject(line, "ok", "message")
	if err != nil {
		return Answer{}, wrap("decode answer", err)
	}
	if m[0].Kind != KindBool {
		return Answer{}, errors.New("decode answer: ok is a " + m[0].Kind.String() + ", want a bool")
	}
	if m[1].Kind != KindString && m[1].Kind != KindAbsent {
		return Answer{}, errors.New("decode answer: message is a " + m[1].Kind.String() + ", want a string")
	}
	return Answer{OK: m[0].Bool, Message: m[1].Str}, nil
}

// Payload is what a notice takes from the JSON object Claude Code writes
// to a hook's stdin.
type Payload struct {
	HookEventName  string
	SessionID      string
	TranscriptPath string
}

// ErrNotPayload means the input is not a hook payload at all (plain text,
// or JSON without hook_event_name).
var ErrNotPayload = errors.New("not a hook payload")

// ParsePayload reads the fields a notice needs from a hook payload. Input
// that does not look like one returns ErrNotPayload; input that names
// hook_event_name but is not valid JSON, or whose fields have the wrong
// types, returns a descriptive error.
func ParsePayload(data []byte) (Payload, error) {
	i := 0
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	if i == len(data) || data[i] != '{' || !contains(data, `"hook_event_name"`) {
		return Payload{}, ErrNotPayload
	}
	const fix = "; pipe the payload exactly as Claude Code wrote it"
	names := []string{"hook_event_name", "session_id", "transcript_path"}
	m, err := DecodeObject(data, names...)
	if err != nil {
		return Payload{}, errors.New("hook payload: malformed JSON (" + err.Error() + ")" + fix)
	}
	for i, n := range names {
		if k := m[i].Kind; k != KindString && k != KindAbsent && k != KindNull {
			return Payload{}, errors.New("hook payload: field " + n + ": wrong type (got a JSON " + k.String() + ")" + fix)
		}
	}
	p := Payload{HookEventName: m[0].Str, SessionID: m[1].Str, TranscriptPath: m[2].Str}
	if p.HookEventName == "" {
		return Payload{}, errors.New("hook payload: hook_event_name is empty" + fix)
	}
	return p, nil
}

func contains(b []byte, s string) bool {
	for i := 0; i+len(s) <= len(b); i++ {
		if string(b[i:i+len(s)]) == s {
			return true
		}
	}
	return false
}

// contextError reads msg and unwraps to cause.
type contextError struct {
	msg   string
	cause error
}

func (e *contextError) Error() string { return e.msg }
func (e *contextError) Unwrap() error { return e.cause }

// wrap prefixes err's message with msg, keeping err as the cause.
func wrap(msg string, err error) error {
	return &contextError{msg: msg + ": " + err.Error(), cause: err}
}

// Package mcpserver is recollect's MCP server: typed tools and the
// memory:// resources, each a thin adapter over graph (reading) and
// pipeline (capture, record, consolidate, stats). The data directory is the
// scope: no tool takes a path, a store name or a user id.
//
// It owns no retrieval or storage logic; it validates arguments, names the
// field that is wrong, and renders answers with graph's renderers so a
// model reads the same words a person does on the CLI.
package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store/config"
)

// Resource URIs.
const (
	BriefingURI = "memory://briefing"
	ProfileURI  = "memory://profile"
)

// DefaultCopyDebounce is the shortest interval between two transcript
// copies triggered by tool calls on a copy store.
const DefaultCopyDebounce = 5 * time.Second

// Options configure a Server.
type Options struct {
	// Version is reported to clients.
	Version string
	// HomeDir is the user's home; a store at HomeDir/.recollect is the
	// default one and the server is plainly "recollect".
	HomeDir string
	// SessionID names this server's conversation for capture_fact and
	// log_event; a fresh "mcp-…" id when empty.
	SessionID string
	// CopyDebounce overrides DefaultCopyDebounce.
	CopyDebounce time.Duration
	Log          *slog.Logger
}

// Server is one MCP server over one opened store.
type Server struct {
	p       *pipeline.Pipeline
	mcp     *mcp.Server
	session string
	log     *slog.Logger

	copyMu       sync.Mutex
	copyDebounce time.Duration
	lastCopy     time.Time
	copyErr      error
}

// New builds the server with every tool and resource registered. It panics
// only if a tool's input type cannot be turned into a schema, which a test
// of New catches.
func New(p *pipeline.Pipeline, opts Options) (*Server, error) {
	s := &Server{p: p, session: opts.SessionID, log: opts.Log, copyDebounce: opts.CopyDebounce}
	if s.session == "" {
		b := make([]byte, 4)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("new mcp session id: %w", err)
		}
		s.session = "mcp-" + time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b)
	}
	if s.copyDebounce <= 0 {
		s.copyDebounce = DefaultCopyDebounce
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	version := opts.Version
	if version == "" {
		version = "(devel)"
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: ServerName(p.Dir(), opts.HomeDir), Version: version},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: &mcp.ServerCapabilities{}})
	s.mcp.AddReceivingMiddleware(readableArguments)
	s.addResources()
	s.addTools()
	return s, nil
}

// NewUnavailable is the server for a store that cannot be opened (a
// broken config.json, a database that will not open): it answers the
// handshake and lists the same tools and resources, and every call answers
// with cause, so the client shows the reason instead of "Connection
// closed".
func NewUnavailable(dir string, cause error, opts Options) *Server {
	s := &Server{session: "unavailable", log: opts.Log}
	if s.log == nil {
		s.log = slog.Default()
	}
	version := opts.Version
	if version == "" {
		version = "(devel)"
	}
	msg := fmt.Sprintf("recollect cannot open its store in %s: %v; fix that, then restart this MCP server", dir, cause)
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: ServerName(dir, opts.HomeDir), Version: version},
		&mcp.ServerOptions{Instructions: msg, Capabilities: &mcp.ServerCapabilities{}})
	s.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "tools/call":
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
			case "resources/read":
				return nil, errors.New(msg)
			}
			return next(ctx, method, req)
		}
	})
	s.addResources()
	s.addTools()
	return s
}

// MCP is the underlying go-sdk server.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// SessionID is the conversation this server records captures and events in.
func (s *Server) SessionID() string { return s.session }

// Run serves one client over t until it disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	if err := s.mcp.Run(ctx, t); err != nil && ctx.Err() == nil {
		return fmt.Errorf("serve mcp: %w", err)
	}
	return nil
}

// ServerName is "recollect" for the default store (~/.recollect) and
// "recollect-<name>" for any other, where name is the data directory's name
// (or, for a project's .recollect/, the project directory's), so a client
// with several stores can tell them apart.
func ServerName(dir, home string) string {
	dir = filepath.Clean(dir)
	if home != "" && dir == filepath.Join(filepath.Clean(home), ".recollect") {
		return "recollect"
	}
	base := filepath.Base(dir)
	if base == ".recollect" {
		base = filepath.Base(filepath.Dir(dir))
	}
	var b strings.Builder
	for _, r := range base {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), "-.")
	if name == "" {
		return "recollect"
	}
	return "recollect-" + name
}

// freshen copies new transcript lines first on a copy store, at most once
// per debounce interval, with the pipeline's one Copier (the scheduler's
// follower in this process copies with it too, never beside it). A failed
// copy does not fail the tool call; its error is kept and reported as a
// note by the answers that read events.
func (s *Server) freshen(ctx context.Context) {
	if s.p.Config.Mode != config.ModeCopy {
		return
	}
	s.copyMu.Lock()
	defer s.copyMu.Unlock()
	if time.Since(s.lastCopy) < s.copyDebounce {
		return
	}
	s.lastCopy = time.Now()
	rep, err := s.p.Copy(ctx)
	s.copyErr = err
	if err != nil {
		s.log.Warn("mcp: copy before tool call failed", "err", err)
		return
	}
	if rep.Events > 0 {
		s.log.Info("mcp: copied new transcript lines", "events", rep.Events, "files", rep.Files)
	}
}

// staleNote says when the last copy failed, so answers may miss recent lines.
func (s *Server) staleNote() string {
	s.copyMu.Lock()
	defer s.copyMu.Unlock()
	if s.copyErr == nil {
		return ""
	}
	return "the transcript copy before this call failed (" + s.copyErr.Error() + "); the newest conversation lines may be missing"
}

func (s *Server) addResources() {
	s.mcp.AddResource(&mcp.Resource{URI: BriefingURI, Name: "briefing", MIMEType: "text/markdown",
		Description: "Session-start briefing: key facts, what the last consolidation learned, open threads, recent knowledge, and a note when raw events wait. Read it once at the start of a session."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			s.freshen(ctx)
			text, err := s.p.Briefing(ctx)
			if err != nil {
				return nil, err
			}
			return markdown(req.Params.URI, text), nil
		})
	s.mcp.AddResource(&mcp.Resource{URI: ProfileURI, Name: "profile", MIMEType: "text/markdown",
		Description: "The key facts about the user, most important first: the profile part of the briefing."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			text, err := s.p.Reader.Profile(ctx)
			if err != nil {
				return nil, err
			}
			return markdown(req.Params.URI, text), nil
		})
}

func markdown(uri, text string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}
}

// result is a tool answer: text for the model, the object for programs.
func result(text string, v any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: v}
}

// fieldError is a bad argument: the message starts with the field's name.
func fieldError(field, format string, args ...any) error {
	return fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...))
}

const instructions = `recollect is the user's long-term memory across coding sessions. ` +
	`At the start of a session read memory://briefing (or call get_session_context). ` +
	`Before answering anything that depends on the user's preferences, past decisions, people or projects, call search_knowledge. ` +
	`When the user states something durable (a preference, a decision, a fact about them or their work), call capture_fact. ` +
	`Results are integrated knowledge; "pending" facts are unverified captures; "episodes" are raw conversation, not knowledge.`

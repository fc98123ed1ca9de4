package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
)

// MaxCaptureBytes caps a captured fact: one or two sentences.
const MaxCaptureBytes = model.MaxFactBytes

type captureIn struct {
	Content        string   `json:"content" jsonschema:"the fact as one self-contained sentence, with names rather than pronouns"`
	Confidence     *float64 `json:"confidence,omitempty" jsonschema:"how sure you are it is true, 0 to 1 (default 0.8)"`
	Importance     *float64 `json:"importance,omitempty" jsonschema:"how much it matters for future sessions, 0 to 1 (default 0.5)"`
	DomainHint     string   `json:"domain_hint,omitempty" jsonschema:"a short lowercase domain such as work, personal, tooling (see get_schemas)"`
	CaptureContext string   `json:"capture_context,omitempty" jsonschema:"why you captured it or what was going on, for later review"`
	SourceEventID  int64    `json:"source_event_id,omitempty" jsonschema:"the raw event (seq) where it was said, if you know it"`
}

type captureOut struct {
	Stored    bool   `json:"stored"`
	Duplicate bool   `json:"duplicate"`
	Forgotten bool   `json:"forgotten"`
	ID        int64  `json:"id,omitempty"`
	SessionID string `json:"session_id"`
	Status    string `json:"status,omitempty"`
	Message   string `json:"message"`
}

func unit(field string, v *float64, def float64) (float64, error) {
	if v == nil {
		return def, nil
	}
	if *v < 0 || *v > 1 {
		return 0, fieldError(field, "%g is outside 0 to 1", *v)
	}
	return *v, nil
}

func (s *Server) capture(ctx context.Context, _ *mcp.CallToolRequest, in captureIn) (*mcp.CallToolResult, any, error) {
	c := extract.Candidate{Content: strings.TrimSpace(in.Content), Domain: in.DomainHint, CaptureNotes: in.CaptureContext}
	switch {
	case c.Content == "":
		return nil, nil, fieldError("content", "empty; pass the fact as one self-contained sentence")
	case len(c.Content) > MaxCaptureBytes:
		return nil, nil, fieldError("content", "%d bytes; a fact is a sentence or two, at most %d bytes", len(c.Content), MaxCaptureBytes)
	}
	var err error
	if c.Confidence, err = unit("confidence", in.Confidence, pipeline.CaptureConfidence); err != nil {
		return nil, nil, err
	}
	if c.Importance, err = unit("importance", in.Importance, pipeline.CaptureImportance); err != nil {
		return nil, nil, err
	}
	if in.SourceEventID < 0 {
		return nil, nil, fieldError("source_event_id", "%d is negative; pass an event's seq from get_events", in.SourceEventID)
	}
	res, err := s.p.Capture(ctx, s.session, c, in.SourceEventID)
	if errors.Is(err, pipeline.ErrNoEvent) {
		return nil, nil, fieldError("source_event_id", "no event has seq %d; take one from get_events or leave it out", in.SourceEventID)
	}
	if err != nil {
		return nil, nil, err
	}
	out := captureOut{Stored: res.Stored, Forgotten: res.Forgotten, ID: res.ID, SessionID: s.session, Status: res.Status}
	switch {
	case res.Forgotten:
		out.Message = "not stored: the user asked to forget this fact, so it is not captured again"
	case res.Stored:
		out.Message = fmt.Sprintf("stored as pending fact %d; the next consolidation integrates it", out.ID)
	default:
		out.Duplicate = true
		out.Message = fmt.Sprintf("not stored: the same fact was already captured in this session (fact %d, %s)", out.ID, out.Status)
	}
	return jsonResultWithText(out.Message, out)
}

type logEventIn struct {
	Role        string         `json:"role" jsonschema:"who produced it: user, assistant, system or tool"`
	EventType   string         `json:"event_type" jsonschema:"message, tool_call, tool_result or artifact"`
	Content     string         `json:"content" jsonschema:"the text (or JSON text) of the event"`
	ContentType string         `json:"content_type,omitempty" jsonschema:"text (default), json, image, audio or binary"`
	Speaker     string         `json:"speaker,omitempty" jsonschema:"the speaker's name when the role alone does not say who"`
	Metadata    map[string]any `json:"metadata,omitempty" jsonschema:"a JSON object of extra fields kept with the event"`
	ContentRef  string         `json:"content_ref,omitempty" jsonschema:"where binary content lives, instead of inline content"`
}

func (s *Server) logEvent(ctx context.Context, _ *mcp.CallToolRequest, in logEventIn) (*mcp.CallToolResult, any, error) {
	ev := store.Event{SessionID: s.session, Source: "mcp", Role: in.Role, EventType: in.EventType, ContentType: in.ContentType,
		Content: in.Content, Speaker: in.Speaker, ContentRef: in.ContentRef}
	if ev.ContentType == "" {
		ev.ContentType = "text"
	}
	if in.Metadata != nil {
		b, err := json.Marshal(in.Metadata)
		if err != nil {
			return nil, nil, fieldError("metadata", "not encodable as JSON: %v", err)
		}
		ev.Metadata = b
	}
	res, err := s.p.Record(ctx, []store.Event{ev})
	if err != nil {
		return nil, nil, err
	}
	if !res.Duplicate {
		// A running scheduler extracts when the threshold is due, as it
		// does for copied lines.
		if _, err := s.p.WakeThreshold(ctx); err != nil {
			s.log.Warn("threshold notice not taken", "err", err)
		}
	}
	out := map[string]any{"seq": res.Seqs[0], "session_id": s.session}
	return jsonResultWithText(fmt.Sprintf("recorded event %d in session %s", res.Seqs[0], s.session), out)
}

type getEventsIn struct {
	SessionID     string `json:"session_id,omitempty" jsonschema:"this conversation's events (default: the current session, the one log_event writes to)"`
	AllSessions   bool   `json:"all_sessions,omitempty" jsonschema:"every conversation's events instead of one session's"`
	Limit         int    `json:"limit,omitempty" jsonschema:"at most this many events, 1 to 500 (default 50)"`
	AfterSequence int64  `json:"after_sequence,omitempty" jsonschema:"only events with a larger seq; pass the last seq you saw to page"`
}

// MaxEventChars caps each event's content in get_events.
const MaxEventChars = 2000

type eventOut struct {
	Seq        int64  `json:"seq"`
	SessionID  string `json:"session_id"`
	Role       string `json:"role"`
	Speaker    string `json:"speaker,omitempty"`
	EventType  string `json:"event_type"`
	Content    string `json:"content"`
	Truncated  bool   `json:"truncated,omitempty"`
	OccurredAt string `json:"occurred_at,omitempty"`
}

func (s *Server) getEvents(ctx context.Context, _ *mcp.CallToolRequest, in getEventsIn) (*mcp.CallToolResult, any, error) {
	if err := checkLimit("limit", in.Limit, 500); err != nil {
		return nil, nil, err
	}
	if in.AfterSequence < 0 {
		return nil, nil, fieldError("after_sequence", "%d is negative; pass 0 or the last seq you saw", in.AfterSequence)
	}
	if in.Limit == 0 {
		in.Limit = 50
	}
	if in.AllSessions && in.SessionID != "" {
		return nil, nil, fieldError("all_sessions", "goes without session_id; pass one or the other")
	}
	s.freshen(ctx)
	session := in.SessionID
	if !in.AllSessions {
		if session == "" {
			session = s.session
		} else if err := s.knownSession(ctx, "session_id", session); err != nil {
			return nil, nil, err
		}
	}
	events, err := s.p.Reader.Events(ctx, graph.EventsQuery{After: in.AfterSequence, Session: session, Limit: in.Limit})
	if err != nil {
		return nil, nil, err
	}
	evs := []eventOut{}
	var text strings.Builder
	for _, ev := range events {
		o := eventOut{Seq: ev.Seq, SessionID: ev.SessionID, Role: ev.Role, Speaker: ev.Speaker, EventType: ev.EventType, Content: ev.Content}
		if ev.OccurredAt != nil {
			o.OccurredAt = store.FormatTime(*ev.OccurredAt)
		}
		if len(o.Content) > MaxEventChars {
			o.Content, o.Truncated = cutUTF8(o.Content, MaxEventChars)+" …", true
		}
		evs = append(evs, o)
		if text.Len() == 0 {
			text.WriteString(graph.DataPreface)
		}
		fmt.Fprintf(&text, "#%d [%s] %s/%s: %s\n", o.Seq, o.SessionID, o.Role, o.EventType, strconv.Quote(strings.Join(strings.Fields(o.Content), " ")))
	}
	if len(evs) == 0 {
		switch {
		case in.AllSessions:
			text.WriteString("No events after that sequence.\n")
		case in.SessionID == "":
			fmt.Fprintf(&text, "No events after that sequence in the current session %q; pass all_sessions=true for every conversation, or a session_id.\n", session)
		default:
			fmt.Fprintf(&text, "No events after that sequence in session %q.\n", session)
		}
	}
	out := map[string]any{"events": evs}
	if !in.AllSessions {
		out["session_id"] = session
	}
	return result(text.String(), out), nil, nil
}

// knownSession refuses a session id that no event or captured fact
// carries, so a mistyped id is not answered with a silent empty list.
func (s *Server) knownSession(ctx context.Context, field, id string) error {
	known, err := s.p.Reader.SessionKnown(ctx, id)
	if err != nil {
		return err
	}
	if !known && id != s.session {
		return fieldError(field, "no session has id %q; session ids are in get_events (all_sessions=true) and search results", id)
	}
	return nil
}

func cutUTF8(s string, n int) string {
	for n > 0 && n < len(s) && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}

type consolidateIn struct {
	All   bool `json:"all,omitempty" jsonschema:"extract the whole backlog instead of one capped batch (slow, and costly with a model provider)"`
	Limit int  `json:"limit,omitempty" jsonschema:"extract at most this many events (default: the configured batch size)"`
}

// embeddingOut is the embedding step of a run: numbers, or why there are
// none.
type embeddingOut struct {
	Configured bool   `json:"configured"`
	Embedded   *int   `json:"embedded,omitempty"`
	Missing    *int   `json:"missing,omitempty"`
	Error      string `json:"error,omitempty"`
	Note       string `json:"note,omitempty"`
}

type consolidateOut struct {
	RunID           int64 `json:"run_id"`
	EventsRemaining int   `json:"events_remaining"`
	FactsExtracted  int   `json:"facts_extracted"`
	FactsIntegrated int   `json:"facts_integrated"`
	Merged          int   `json:"merged"`
	Superseded      int   `json:"superseded"`
	Conflicts       int   `json:"conflicts"`
	// AlreadyDone says nothing was waiting: what is stored had been
	// consolidated before the call.
	AlreadyDone bool              `json:"already_done"`
	Embedding   embeddingOut      `json:"embedding"`
	Copy        string            `json:"copy,omitempty"`
	Summary     *pipeline.Summary `json:"summary"`
	Elapsed     string            `json:"elapsed"`
}

func (s *Server) consolidate(ctx context.Context, _ *mcp.CallToolRequest, in consolidateIn) (*mcp.CallToolResult, any, error) {
	if in.Limit < 0 {
		return nil, nil, fieldError("limit", "%d is negative; give a number of events, or leave it out", in.Limit)
	}
	sum, err := s.p.Run(ctx, pipeline.RunOptions{Extract: extract.Options{Limit: in.Limit, All: in.All}, Trigger: "mcp"})
	if err != nil {
		return nil, nil, err
	}
	out := consolidateOut{RunID: sum.RunID, Summary: &sum, Elapsed: sum.Elapsed}
	if c := sum.Copy; c != nil {
		out.Copy = c.Note
		if c.Note == "" {
			out.Copy = text.Plural(c.Events, "event") + " from " + text.Plural(c.Files, "file")
		}
	}
	if e := sum.Extract; e != nil {
		out.EventsRemaining, out.FactsExtracted = e.EventsRemaining, e.FactsExtracted
	}
	if i := sum.Integrate; i != nil {
		out.FactsIntegrated, out.Merged, out.Superseded, out.Conflicts = i.Integrated, i.Merged, i.Superseded, i.Conflicts
		if e := i.Embedding; e != nil {
			out.Embedding = embeddingOut{Configured: true, Embedded: &e.Embedded, Missing: &e.Missing, Error: e.Error}
		}
	}
	if !out.Embedding.Configured {
		out.Embedding.Note = "embeddings are off (embedding.provider is empty): nothing to embed"
		if s.p.Config.Embedding.Provider != "" {
			out.Embedding = embeddingOut{Configured: true, Note: "the embedding step did not report; counts unknown"}
		}
	}
	wait := "raw events still wait"
	if out.EventsRemaining == 1 {
		wait = "raw event still waits"
	}
	text := fmt.Sprintf("run %d: %s extracted, %d integrated (%d merged, %d superseded, %s); %d %s for extraction",
		out.RunID, text.Plural(out.FactsExtracted, "fact"), out.FactsIntegrated, out.Merged, out.Superseded, text.Plural(out.Conflicts, "conflict"), out.EventsRemaining, wait)
	if out.FactsExtracted == 0 && out.FactsIntegrated == 0 && out.Merged == 0 && out.EventsRemaining == 0 {
		// Nothing was waiting: a scheduler (this server's, or a daemon)
		// had already consolidated what was stored.
		out.AlreadyDone = true
		text = fmt.Sprintf("run %d: already done: nothing was waiting — everything stored had been consolidated before this call (by the scheduler or a daemon)", out.RunID)
	}
	if e := out.Embedding; e.Embedded != nil {
		text += fmt.Sprintf("; embedded %d, %d still missing", *e.Embedded, *e.Missing)
		if e.Error != "" {
			text += " (error: " + e.Error + ")"
		}
	}
	return jsonResultWithText(text+".", out)
}

// jsonResultWithText answers with a sentence followed by the object as
// JSON, and the object as structured content.
func jsonResultWithText(sentence string, v any) (*mcp.CallToolResult, any, error) {
	res, _, err := jsonResult(v)
	if err != nil {
		return nil, nil, err
	}
	tc := res.Content[0].(*mcp.TextContent)
	tc.Text = sentence + "\n" + tc.Text
	return res, nil, nil
}

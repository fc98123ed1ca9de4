package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/pipeline/stats"
)

// MaxLimit caps the limit argument of every tool.
const MaxLimit = 100

// Tool descriptions are written for a model: when to call, what comes
// back, and what not to trust.
const (
	descSessionContext = `Call once at the start of a session, before your first answer. Returns the memory briefing ` +
		`(key facts about the user, what the last consolidation learned, open threads, recent knowledge) plus the facts ` +
		`captured in this session that are not yet consolidated. Captured facts are unverified until consolidated.`
	descSearch = `Search the user's long-term memory. Call before answering anything that depends on the user's ` +
		`preferences, decisions, people, projects or past work. Returns "results" (integrated knowledge, ranked; each ` +
		`says which retrieval arms found it, who said it, when, and its source events), "pending" (captured but not yet ` +
		`integrated: unverified) and, only when nothing is known, "episodes" (raw conversation around a keyword hit: ` +
		`NOT knowledge, may be stale or wrong). A result reached "through supersession" is the current fact that ` +
		`replaced an older one; the older one is named as history, do not present it as current. Any text is a safe query.`
	descEntity = `Everything about one named thing (person, project, place, tool…): its facts (facts about it first, ` +
		`each with is_subject and role) and the entities connected to it. Several entities can share a name under ` +
		`different types; all answer unless you pass type. found=false means no entity has that name: the facts listed ` +
		`then only mention the wording and are not known to be about it.`
	descContext = `Broader context around a topic: a search plus a walk of one or two hops over the entity graph, ` +
		`each fact once with the path that reached it. Use when search_knowledge is too narrow, e.g. before working on ` +
		`a project. Facts reached by hops are related, not necessarily relevant.`
	descCapture = `Store a durable fact the user stated (a preference, decision, fact about them or their work) so later ` +
		`sessions know it. Write one self-contained sentence with names, not pronouns ("The user prefers tabs in Go ` +
		`code", not "they like it"). It is stored at once as pending and integrated by the next consolidation. An ` +
		`identical fact already captured in this session is dropped and the answer says so. Do not capture guesses, ` +
		`secrets or transient task state.`
	descLogEvent = `Record one raw conversation event in this session's log (role user|assistant|system|tool, event_type ` +
		`message|tool_call|tool_result|artifact). Use only when your client does not record transcripts itself; ` +
		`events are raw material for extraction, not knowledge.`
	descGetEvents = `Raw events of the log in sequence order (the current session unless session_id or all_sessions is given), each cut to ` +
		`2000 bytes. Page with after_sequence. Raw events are what was said, not what is true now.`
	descConsolidate = `Run copy → extract → integrate now instead of waiting for the scheduler. Returns events_remaining ` +
		`(raw events still waiting for extraction), facts_extracted, facts_integrated, superseded, and the embedding step ` +
		`(embedded, missing, error; configured=false with a note when embeddings are off). Use all=true only when asked: it extracts the ` +
		`whole backlog, which can be slow and, with a model provider, costly.`
	descSchemas = `The domains and subdomains this store uses, with counts of active facts. Use to pick a domain for ` +
		`search_knowledge (which only ranks that domain higher) or a domain_hint for capture_fact.`
	descStats = `The store's self-report: facts, entities, events, extract backlog, pending facts, disk use, spend and ` +
		`embedding coverage. A number that could not be measured is listed under "unknown" with the reason, never as 0.`
)

type emptyIn struct{}

type searchIn struct {
	Query   string `json:"query" jsonschema:"what to look for, in plain words; any text is safe"`
	Domain  string `json:"domain,omitempty" jsonschema:"rank facts of this domain higher (see get_schemas); it never filters"`
	Limit   int    `json:"limit,omitempty" jsonschema:"at most this many results, 1 to 100 (default 20)"`
	Budget  int    `json:"budget,omitempty" jsonschema:"instead of a count, fill about this many tokens, skipping results that do not fit"`
	AsOf    string `json:"as_of,omitempty" jsonschema:"answer what the store believed at this time: RFC 3339 (2026-03-03T12:00:00Z) or a date (2026-03-03, the end of that day)"`
	History bool   `json:"history,omitempty" jsonschema:"include superseded facts themselves, marked as history"`
	Order   string `json:"order,omitempty" jsonschema:"relevance (the default): best first; chronological: the chosen facts in time order, with a digest of the exact text"`
}

type entityIn struct {
	Name string `json:"name" jsonschema:"the entity's name or an alias, any case or spelling of separators"`
	Type string `json:"type,omitempty" jsonschema:"only entities of this type (person, project, place, organization, thing, …)"`
}

type contextIn struct {
	Topic string `json:"topic" jsonschema:"the topic, project or question to gather context for"`
}

// The structured answers of the tools whose answer is a map: their
// output schemas are made from these.
type (
	sessionContextOut struct {
		Briefing  string           `json:"briefing"`
		SessionID string           `json:"session_id"`
		Captured  []graph.Captured `json:"captured"`
	}
	logEventOut struct {
		Seq       int64  `json:"seq"`
		SessionID string `json:"session_id"`
	}
	getEventsOut struct {
		Events    []eventOut `json:"events"`
		SessionID string     `json:"session_id,omitempty"`
	}
	schemasOut struct {
		Domains []graph.DomainSchema `json:"domains"`
	}
)

func (s *Server) addTools() {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	// Every tool answers with structured content as well as text; its
	// output schema says what that holds.
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "get_session_context", Description: descSessionContext, Annotations: ro,
		OutputSchema: outputSchema[sessionContextOut]()}, s.sessionContext)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "search_knowledge", Description: descSearch, Annotations: ro,
		InputSchema: enumSchema[searchIn](map[string][]any{"order": {"chronological", "relevance"}}), OutputSchema: outputSchema[graph.Answer]()}, s.search)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "get_entity", Description: descEntity, Annotations: ro, OutputSchema: outputSchema[graph.EntityAnswer]()}, s.entity)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "get_context", Description: descContext, Annotations: ro, OutputSchema: outputSchema[graph.ContextAnswer]()}, s.context)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "capture_fact", Description: descCapture,
		InputSchema: numberSchema[captureIn]("confidence", "importance"), OutputSchema: outputSchema[captureOut]()}, s.capture)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "log_event", Description: descLogEvent,
		InputSchema:  enumSchema[logEventIn](map[string][]any{"role": {"user", "assistant", "system", "tool"}, "event_type": {"message", "tool_call", "tool_result", "artifact"}}),
		OutputSchema: outputSchema[logEventOut]()}, s.logEvent)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "get_events", Description: descGetEvents, Annotations: ro, OutputSchema: outputSchema[getEventsOut]()}, s.getEvents)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "consolidate", Description: descConsolidate, OutputSchema: outputSchema[consolidateOut]()}, s.consolidate)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "get_schemas", Description: descSchemas, Annotations: ro, OutputSchema: outputSchema[schemasOut]()}, s.schemas)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "get_stats", Description: descStats, Annotations: ro, OutputSchema: outputSchema[stats.Stats]()}, s.stats)
	s.addForget()
}

func checkLimit(field string, n, max int) error {
	if n < 0 || n > max {
		return fieldError(field, "%d is out of range; give 1 to %d, or leave it out for the default", n, max)
	}
	return nil
}

func (s *Server) search(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, nil, fieldError("query", "empty; pass the words to look for")
	}
	if err := checkLimit("limit", in.Limit, MaxLimit); err != nil {
		return nil, nil, err
	}
	if in.Budget < 0 {
		return nil, nil, fieldError("budget", "%d is negative; give a number of tokens, or leave it out", in.Budget)
	}
	q := graph.Query{Text: in.Query, Domain: in.Domain, Limit: in.Limit, Budget: in.Budget, History: in.History, Order: graph.Order(in.Order)}
	if in.Order == "relevance" {
		q.Order = graph.OrderRelevance
	}
	if q.Order != graph.OrderRelevance && q.Order != graph.OrderChronological {
		return nil, nil, fieldError("order", "%q is unknown; give chronological, or leave it out for relevance", in.Order)
	}
	var err error
	if q.AsOf, err = parseAsOf(in.AsOf); err != nil {
		return nil, nil, err
	}
	s.freshen(ctx)
	ans, err := s.p.Search(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	if n := s.staleNote(); n != "" {
		ans.Notes = append(ans.Notes, n)
	}
	var b bytes.Buffer
	b.WriteString(graph.DataPreface)
	graph.RenderAnswer(&b, ans)
	return result(b.String(), ans), nil, nil
}

func (s *Server) entity(ctx context.Context, _ *mcp.CallToolRequest, in entityIn) (*mcp.CallToolResult, any, error) {
	if graph.Fold(in.Name) == "" {
		return nil, nil, fieldError("name", "holds no letter or digit; give the name of a person, project, place or thing")
	}
	ans, err := s.p.Reader.Entity(ctx, graph.EntityQuery{Name: in.Name, Type: in.Type})
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	b.WriteString(graph.DataPreface)
	graph.RenderEntity(&b, ans)
	return result(b.String(), ans), nil, nil
}

func (s *Server) context(ctx context.Context, _ *mcp.CallToolRequest, in contextIn) (*mcp.CallToolResult, any, error) {
	if strings.TrimSpace(in.Topic) == "" {
		return nil, nil, fieldError("topic", "empty; name the topic, project or question")
	}
	s.freshen(ctx)
	ans, err := s.p.Context(ctx, graph.ContextQuery{Topic: in.Topic})
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	b.WriteString(graph.DataPreface)
	graph.RenderContext(&b, ans)
	return result(b.String(), ans), nil, nil
}

func (s *Server) schemas(ctx context.Context, _ *mcp.CallToolRequest, _ emptyIn) (*mcp.CallToolResult, any, error) {
	doms, err := s.p.Reader.Schemas(ctx)
	if err != nil {
		return nil, nil, err
	}
	var b strings.Builder
	if len(doms) == 0 {
		b.WriteString("No domains yet: nothing has been integrated.\n")
	}
	for _, d := range doms {
		fmt.Fprintf(&b, "- %s (%d active %s)", graph.Quote(d.Name, 64), d.Active, text.PluralNoun(d.Active, "fact"))
		for i, sd := range d.Subdomains {
			if i == 0 {
				b.WriteString(": ")
			} else {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s (%d)", graph.Quote(sd.Name, 64), sd.Active)
		}
		b.WriteString("\n")
	}
	return result(b.String(), map[string]any{"domains": doms}), nil, nil
}

func (s *Server) stats(ctx context.Context, _ *mcp.CallToolRequest, _ emptyIn) (*mcp.CallToolResult, any, error) {
	s.freshen(ctx)
	st, err := stats.Read(ctx, s.p)
	if err != nil {
		return nil, nil, err
	}
	return jsonResult(st)
}

// jsonResult answers with v as indented JSON text and as the object.
func jsonResult(v any) (*mcp.CallToolResult, any, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("encode answer: %w", err)
	}
	var obj any
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, nil, fmt.Errorf("encode answer: %w", err)
	}
	return result(string(b), obj), nil, nil
}

type sessionContextIn struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"whose captures to list (default: the current session)"`
}

func (s *Server) sessionContext(ctx context.Context, _ *mcp.CallToolRequest, in sessionContextIn) (*mcp.CallToolResult, any, error) {
	session := in.SessionID
	if session == "" {
		session = s.session
	} else if err := s.knownSession(ctx, "session_id", session); err != nil {
		return nil, nil, err
	}
	s.freshen(ctx)
	brief, err := s.p.Briefing(ctx)
	if err != nil {
		return nil, nil, err
	}
	captured, err := s.p.Reader.PendingCaptures(ctx, session)
	if err != nil {
		return nil, nil, err
	}
	var b strings.Builder
	b.WriteString(brief)
	b.WriteString("\n## Captured this session, not yet consolidated (unverified)\n\n")
	if len(captured) == 0 {
		b.WriteString("None.\n")
	}
	for _, c := range captured {
		fmt.Fprintf(&b, "- [pending %d] %s\n", c.ID, strconv.Quote(strings.Join(strings.Fields(c.Content), " ")))
	}
	if n := s.staleNote(); n != "" {
		b.WriteString("\nNote: " + n + ".\n")
	}
	out := map[string]any{"briefing": brief, "session_id": session, "captured": captured}
	return result(b.String(), out), nil, nil
}

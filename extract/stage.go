package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// Options bound one extract run.
type Options struct {
	// Limit caps the candidate events examined; 0 means the configured
	// batch size. All lifts the cap.
	Limit int
	// All examines every unexamined event in one run.
	All bool
}

// Report says what one extract run did.
type Report struct {
	// EventsExamined counts the events of the conversations committed.
	EventsExamined int `json:"events_examined"`
	// FactsExtracted counts the pending facts written (a forgotten or
	// already stored statement is not written again).
	FactsExtracted int `json:"facts_extracted"`
	// FactsDropped counts proposed facts that cited no event or an event
	// outside their batch.
	FactsDropped int `json:"facts_dropped"`
	// EventsRemaining is the eligible backlog after the run.
	EventsRemaining int `json:"events_remaining"`
	// Provider and Model name the extractor (Model once a call answered).
	Provider string `json:"provider"`
	Model    string `json:"model,omitempty"`
	// Held lists conversations whose batch failed and whose watermark stayed.
	Held []string `json:"held,omitempty"`
	// Warnings are what the user should act on (over budget, an unpinned
	// model, a conversation that fell back to the heuristic).
	Warnings []string `json:"warnings,omitempty"`
}

// Candidate is a fact proposed by a provider, before it is written.
type Candidate struct {
	// Content is the self-contained statement.
	Content string `json:"content"`
	// Kind is what sort of knowledge it is (store.Kinds); "" for none.
	Kind string `json:"kind,omitempty"`
	// Domain is the proposed domain hint, lowercase; "" for none.
	Domain string `json:"domain,omitempty"`
	// Confidence and Importance are in 0..1 (clamped when written).
	Confidence float64 `json:"confidence"`
	Importance float64 `json:"importance"`
	// ValidFrom and ValidUntil are dates or times the text gave, else "".
	ValidFrom  string `json:"valid_from,omitempty"`
	ValidUntil string `json:"valid_until,omitempty"`
	// Entities is a JSON array of EntityMention, as stored in
	// session_facts.entities.
	Entities json.RawMessage `json:"entities,omitempty"`
	// EventIDs are the seqs of the events the fact rests on.
	EventIDs []int64 `json:"event_ids"`
	// SpeakerRole, Speaker and SaidAt say who said it and when; the stage
	// fills them from the first cited event when empty.
	SpeakerRole string     `json:"-"`
	Speaker     string     `json:"-"`
	SaidAt      *time.Time `json:"-"`
	// CaptureNotes is the context an agent gave with a captured fact.
	CaptureNotes string `json:"-"`
	// Producer and Model, when set, override the extractor's for this
	// candidate (a conversation that fell back to the heuristic, or a
	// fact from the on_fail provider).
	Producer string `json:"-"`
	Model    string `json:"-"`
}

// Group is one conversation's slice of a batch: the candidate events, in
// sequence order, and the watermark to store when they are done.
type Group struct {
	// SessionID is the conversation.
	SessionID string
	// Project is the conversation's project (its working directory), or
	// "" when the source did not record one.
	Project string
	// Events are the candidate events, oldest first.
	Events []store.Event
	// NextWatermark is the seq up to which the conversation is examined once
	// this group commits.
	NextWatermark int64
	// Tools are the conversation's tool calls and results in the range this
	// group examines, oldest first: the heuristic reads failing and passing
	// runs from them (runFixes). A fact may cite them.
	Tools []store.Event
}

// Extractor turns one conversation group into candidate facts.
type Extractor interface {
	// Extract proposes facts for g. An error holds the group: nothing is
	// written and its watermark stays.
	Extract(ctx context.Context, g Group) ([]Candidate, error)
	// Producer is the session_facts.producer value for what it returns.
	Producer() string
	// Model names the model used, or "" when there is none.
	Model() string
}

// Stage is the extract stage over one store.
type Stage struct {
	// DB is the store read and written.
	DB *store.DB
	// Config holds the cap and the filters of eligible events.
	Config config.Extraction
	// Extractor proposes the facts of each conversation group.
	Extractor Extractor
	// Log takes held conversations; nil means slog.Default.
	Log *slog.Logger
}

// Run examines the oldest unexamined events, at most the cap, one
// conversation at a time, and writes the facts with each conversation's
// advanced watermark in one transaction.
func (s *Stage) Run(ctx context.Context, opts Options) (Report, error) {
	rep := Report{Provider: s.Extractor.Producer(), Model: s.Extractor.Model()}
	limit := opts.Limit
	if limit <= 0 {
		limit = s.Config.BatchSize
	}
	if opts.All {
		limit = math.MaxInt64 // LIMIT -1 is SQLite's alone; PostgreSQL refuses it
	}
	groups, err := s.selectBatch(ctx, limit)
	if err != nil {
		return rep, err
	}
	overBudget := false
	for _, g := range groups {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		cands, err := s.Extractor.Extract(ctx, g)
		if err != nil && ctx.Err() != nil {
			// Cancelled, not failed: the watermark stays and no failure is counted.
			return rep, ctx.Err()
		}
		if err != nil {
			rep.Held = append(rep.Held, g.SessionID)
			if errors.Is(err, model.ErrOverBudget) && !overBudget {
				overBudget = true
				rep.Warnings = append(rep.Warnings, "extract skipped: "+err.Error())
			}
			if herr := s.recordFailure(ctx, g.SessionID, err); herr != nil {
				return rep, herr
			}
			s.logger().Warn("extract held", "session", g.SessionID, "err", err)
			continue
		}
		kept, dropped := validateCitations(cands, g)
		rep.FactsDropped += dropped
		n, err := s.commit(ctx, g, kept)
		if err != nil {
			return rep, err
		}
		rep.EventsExamined += len(g.Events)
		rep.FactsExtracted += n
	}
	if err := s.sweepIneligible(ctx); err != nil {
		return rep, err
	}
	// The model is known once a call answered (a discovered model).
	rep.Model = s.Extractor.Model()
	if w, ok := s.Extractor.(interface{ Warnings() []string }); ok {
		rep.Warnings = append(rep.Warnings, w.Warnings()...)
	}
	rep.EventsRemaining, err = s.Remaining(ctx)
	return rep, err
}

// sweepIneligible marks as examined the conversations that hold nothing the
// filters would send to a model — tool output only, say — by moving their
// watermark to their newest event. Without it such events would wait for an
// extraction that never comes, and prune could never reclaim them.
func (s *Stage) sweepIneligible(ctx context.Context) error {
	where, args := s.eligibleWhere()
	// The eligibility test runs once per conversation, not once per
	// unexamined event: per event it walked the conversation from its
	// watermark each time, quadratic in a long conversation's backlog.
	// Each conversation is read from its watermark on its (session_id, seq)
	// index, so what was examined before costs nothing.
	q := `INSERT INTO extract_watermarks(session_id, last_seq, consecutive_failures, updated_at)
		SELECT s.session_id, s.last, 0, ? FROM (
			SELECT c.id AS session_id, (SELECT max(x.seq) FROM session_events x WHERE x.session_id = c.id) AS last,
				COALESCE(w.last_seq, 0) AS examined
			FROM sessions c LEFT JOIN extract_watermarks w ON w.session_id = c.id) s
		WHERE s.last > s.examined
		AND NOT EXISTS (SELECT 1 FROM session_events e WHERE e.session_id = s.session_id AND e.seq > s.examined AND ` + where + `)
		ON CONFLICT(session_id) DO UPDATE SET last_seq = CASE WHEN excluded.last_seq > extract_watermarks.last_seq THEN excluded.last_seq ELSE extract_watermarks.last_seq END, updated_at = excluded.updated_at`
	if _, err := s.DB.ExecContext(ctx, q, append([]any{store.Now()}, args...)...); err != nil {
		return fmt.Errorf("mark conversations without extractable events: %w", err)
	}
	return nil
}

func (s *Stage) logger() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// unexaminedFrom joins each conversation to its events past its watermark.
// The conversations are the outer loop (CROSS JOIN keeps that order) and
// each one's events are read from its watermark on the (session_id, seq)
// index, so the cost follows the conversations and the backlog, not every
// event ever stored. Events reference their conversation (foreign key), so
// no event is missed.
const unexaminedFrom = `sessions c LEFT JOIN extract_watermarks w ON w.session_id = c.id
	CROSS JOIN session_events e`

// unexaminedWhere restricts unexaminedFrom to events past the watermark.
const unexaminedWhere = `e.session_id = c.id AND e.seq > COALESCE(w.last_seq, 0)`

// eligibleWhere is the filter shared by batch selection, the sweep and the
// backlog count, so they always agree. It tests the event alias e only;
// the watermark condition is unexaminedWhere (or the caller's own).
func (s *Stage) eligibleWhere() (string, []any) {
	var where []string
	var args []any
	where = append(where, `e.event_type <> 'artifact'`)
	if len(s.Config.EventTypes) > 0 {
		in, types := store.InList(s.Config.EventTypes)
		where = append(where, `e.event_type IN (`+in+`)`)
		args = append(args, types...)
	}
	if len(s.Config.Roles) > 0 {
		in, roles := store.InList(s.Config.Roles)
		where = append(where, `e.role IN (`+in+`)`)
		args = append(args, roles...)
	}
	if s.Config.MinContentLength > 0 {
		where = append(where, `length(e.content) >= ?`)
		args = append(args, s.Config.MinContentLength)
	}
	// Whatever the filters, the events where a coding agent writes down
	// what a session learned are read too: compaction summaries, plan and
	// todo list updates, and commits.
	return `((` + strings.Join(where, " AND ") + `) OR ` + knowledgeCarrying + `)`, args
}

// knowledgeCarrying matches the events that carry a coding session's
// knowledge beyond its text messages: compaction summaries, plan and todo
// list updates (TodoWrite, update_plan) and shell calls that commit.
const knowledgeCarrying = `(e.event_type = 'artifact' AND e.content_type = 'text' AND e.metadata LIKE '%"compact_summary":true%')
	OR (e.event_type = 'tool_call' AND (e.content LIKE '%"name":"TodoWrite"%' OR e.content LIKE '%"name":"update_plan"%' OR e.content LIKE '%git commit%'))`

// Remaining counts eligible events not yet examined.
func (s *Stage) Remaining(ctx context.Context) (int, error) {
	where, args := s.eligibleWhere()
	var n int
	q := `SELECT count(*) FROM ` + unexaminedFrom + ` WHERE ` + unexaminedWhere + ` AND ` + where
	if err := s.DB.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count extract backlog: %w", err)
	}
	return n, nil
}

func (s *Stage) selectBatch(ctx context.Context, limit int) (groups []Group, err error) {
	where, args := s.eligibleWhere()
	q := `SELECT ` + prefixed("e.", store.EventColumns) + ` FROM ` + unexaminedFrom + ` WHERE ` + unexaminedWhere + ` AND ` + where + ` ORDER BY e.seq LIMIT ?`
	rows, err := s.DB.QueryContext(ctx, q, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("select extract batch: %w", err)
	}
	defer rows.Close()
	index := map[string]int{}
	for rows.Next() {
		ev, err := store.ScanEvent(rows)
		if err != nil {
			return nil, err
		}
		// A compaction summary is read whole (up to its own bound): it is
		// the session's knowledge in one place.
		if max := s.Config.MaxContentChars; IsCompactionSummary(ev) && len(ev.Content) > maxSummaryChars {
			ev.Content = truncateUTF8(ev.Content, maxSummaryChars) + " […truncated]"
		} else if max > 0 && len(ev.Content) > max && !IsCompactionSummary(ev) {
			ev.Content = truncateUTF8(ev.Content, max) + " […truncated]"
		}
		i, ok := index[ev.SessionID]
		if !ok {
			i = len(groups)
			index[ev.SessionID] = i
			groups = append(groups, Group{SessionID: ev.SessionID})
		}
		groups[i].Events = append(groups[i].Events, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("select extract batch: %w", err)
	}
	for i := range groups {
		if err := s.DB.QueryRowContext(ctx, `SELECT COALESCE(project, '') FROM sessions WHERE id = ?`, groups[i].SessionID).Scan(&groups[i].Project); err != nil {
			return nil, fmt.Errorf("select extract batch: read project of %s: %w", groups[i].SessionID, err)
		}
	}
	defer func() {
		if err == nil {
			err = s.loadTools(ctx, groups)
		}
	}()
	// A conversation whose every eligible event is in the batch is examined
	// up to its newest event, so ineligible tails (tool output) count as
	// examined too; otherwise up to the last event taken.
	for i := range groups {
		g := &groups[i]
		last := g.Events[len(g.Events)-1].Seq
		g.NextWatermark = last
		var more int
		if err := s.DB.QueryRowContext(ctx, `SELECT count(*) FROM session_events e WHERE e.session_id = ? AND e.seq > ? AND `+where,
			append([]any{g.SessionID, last}, args...)...).Scan(&more); err != nil {
			return nil, fmt.Errorf("select extract batch: %w", err)
		}
		if more == 0 {
			var max int64
			if err := s.DB.QueryRowContext(ctx, `SELECT COALESCE(max(seq), 0) FROM session_events WHERE session_id = ?`, g.SessionID).Scan(&max); err != nil {
				return nil, fmt.Errorf("select extract batch: %w", err)
			}
			g.NextWatermark = max
		}
	}
	return groups, nil
}

// maxTools bounds the tool events one group reads: the newest are kept.
const maxTools = 2000

// loadTools reads each group's tool calls and results between its
// watermark and its next one, only when the heuristic reads them.
func (s *Stage) loadTools(ctx context.Context, groups []Group) error {
	if _, ok := s.Extractor.(Heuristic); !ok {
		return nil
	}
	for i := range groups {
		g := &groups[i]
		var from int64
		if err := s.DB.QueryRowContext(ctx, `SELECT COALESCE(max(last_seq), 0) FROM extract_watermarks WHERE session_id = ?`, g.SessionID).Scan(&from); err != nil {
			return fmt.Errorf("select extract batch: read watermark of %s: %w", g.SessionID, err)
		}
		tools, err := store.Events(ctx, s.DB, `SELECT `+store.EventColumns+` FROM session_events
			WHERE session_id = ? AND seq > ? AND seq <= ? AND event_type IN ('tool_call', 'tool_result') ORDER BY seq DESC LIMIT ?`,
			g.SessionID, from, g.NextWatermark, maxTools)
		if err != nil {
			return fmt.Errorf("select extract batch: read tool events of %s: %w", g.SessionID, err)
		}
		slices.Reverse(tools)
		g.Tools = tools
	}
	return nil
}

// validateCitations keeps candidates whose every cited event is in the
// group and which cite at least one; the rest are dropped and counted.
func validateCitations(cands []Candidate, g Group) (kept []Candidate, dropped int) {
	inBatch := map[int64]store.Event{}
	for _, ev := range g.Tools {
		inBatch[ev.Seq] = ev
	}
	for _, ev := range g.Events {
		inBatch[ev.Seq] = ev
	}
	for _, c := range cands {
		ok := len(c.EventIDs) > 0 && strings.TrimSpace(c.Content) != ""
		for _, id := range c.EventIDs {
			if _, in := inBatch[id]; !in {
				ok = false
			}
		}
		if !ok {
			dropped++
			continue
		}
		first := inBatch[c.EventIDs[0]]
		if c.SpeakerRole == "" {
			c.SpeakerRole, c.Speaker = first.Role, first.Speaker
		}
		if c.SaidAt == nil && first.OccurredAt != nil {
			t := *first.OccurredAt
			c.SaidAt = &t
		}
		kept = append(kept, c)
	}
	return kept, dropped
}

func (s *Stage) commit(ctx context.Context, g Group, cands []Candidate) (int, error) {
	n := 0
	err := s.DB.Tx(ctx, func(tx *store.Tx) error {
		for _, c := range cands {
			producer, model := s.Extractor.Producer(), s.Extractor.Model()
			if c.Producer != "" {
				producer, model = c.Producer, c.Model
			}
			inserted, err := InsertSessionFact(ctx, tx, g.SessionID, producer, model, c)
			if err != nil {
				return err
			}
			if inserted {
				n++
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO extract_watermarks(session_id, last_seq, consecutive_failures, updated_at)
			VALUES (?, ?, 0, ?)
			ON CONFLICT(session_id) DO UPDATE SET last_seq = CASE WHEN excluded.last_seq > extract_watermarks.last_seq THEN excluded.last_seq ELSE extract_watermarks.last_seq END, consecutive_failures = 0, updated_at = excluded.updated_at`,
			g.SessionID, g.NextWatermark, store.Now())
		if err != nil {
			return fmt.Errorf("advance watermark for %s: %w", g.SessionID, err)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("commit extract batch for %s: %w", g.SessionID, err)
	}
	return n, nil
}

func (s *Stage) recordFailure(ctx context.Context, session string, cause error) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO extract_watermarks(session_id, last_seq, consecutive_failures, last_error, last_error_at, updated_at)
		VALUES (?, 0, 1, ?, ?, ?)
		ON CONFLICT(session_id) DO UPDATE SET consecutive_failures = extract_watermarks.consecutive_failures + 1,
			last_error = excluded.last_error, last_error_at = excluded.last_error_at, updated_at = excluded.updated_at`,
		session, cause.Error(), store.Now(), store.Now())
	if err != nil {
		return fmt.Errorf("record extract failure for %s: %w", session, err)
	}
	return nil
}

// InsertSessionFact writes one pending I fact. A fact whose digest is
// tombstoned (forgotten) or already stored for the session is not written;
// inserted reports which. A fact of no time whose text opens with a date
// (StatedDate) is said on that date.
func InsertSessionFact(ctx context.Context, tx *store.Tx, session, producer, model string, c Candidate) (inserted bool, err error) {
	digest := store.Digest(c.Content)
	var gone int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM tombstones WHERE digest = ?`, digest).Scan(&gone); err != nil {
		return false, fmt.Errorf("check tombstones: %w", err)
	}
	if gone > 0 {
		return false, nil
	}
	ids, _ := json.Marshal(c.EventIDs)
	if c.EventIDs == nil {
		ids = []byte("[]")
	}
	var said any
	if c.SaidAt != nil {
		said = store.FormatTime(*c.SaidAt)
	} else if t, ok := StatedDate(c.Content); ok {
		said = store.FormatTime(t)
	}
	var ents any
	if len(c.Entities) > 0 {
		ents = string(c.Entities)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO session_facts
		(session_id, content, digest, confidence, importance, domain_hint, capture_context, speaker_role, speaker,
		 producer, model, event_ids, entities, valid_from, valid_until, said_at, kind, status, created_at)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?, 'pending', ?)
		ON CONFLICT(session_id, digest) DO NOTHING`,
		session, strings.TrimSpace(c.Content), digest, clamp01(c.Confidence), clamp01(c.Importance), nullIfEmpty(c.Domain),
		nullIfEmpty(c.CaptureNotes), nullIfEmpty(c.SpeakerRole), nullIfEmpty(c.Speaker), producer, nullIfEmpty(model),
		string(ids), ents, nullIfEmpty(c.ValidFrom), nullIfEmpty(c.ValidUntil), said, nullIfEmpty(store.NormalKind(c.Kind)), store.Now())
	if err != nil {
		return false, fmt.Errorf("insert session fact: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

func clamp01(f float64) float64 {
	switch {
	case f < 0:
		return 0
	case f > 1:
		return 1
	}
	return f
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func prefixed(prefix, cols string) string {
	parts := strings.Split(cols, ",")
	for i, p := range parts {
		parts[i] = prefix + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}

// Heuristic is the embedded extractor: the durable statements of what the
// user said, verbatim (model.HeuristicFacts over the events
// model.HeuristicReads), each citing its event.
type Heuristic struct{}

var _ Extractor = Heuristic{}

// Producer implements Extractor.
func (Heuristic) Producer() string { return "heuristic" }

// Model implements Extractor; the heuristic has none.
func (Heuristic) Model() string { return "" }

// Extract implements Extractor: the user's durable statements, then what
// the agent's side of a coding session holds (codingFacts).
func (Heuristic) Extract(_ context.Context, g Group) ([]Candidate, error) {
	var out []Candidate
	for _, ev := range g.Events {
		if !model.HeuristicReads(ev) {
			continue
		}
		for _, s := range model.HeuristicFacts(ev.Content) {
			out = append(out, Candidate{Content: s, Kind: model.StatementKind(s), Confidence: 0.5, Importance: 0.5, EventIDs: []int64{ev.Seq}})
		}
	}
	out = append(out, codingFacts(g)...)
	return dedupeCandidates(append(out, runFixes(g.Tools, g.Project)...)), nil
}

// maxSummaryChars bounds the compaction summary an extraction reads.
const maxSummaryChars = 64 << 10

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Allowed values of the D layer's enumerated columns. The CHECK constraints
// in the schema say the same; these give the caller a readable error first.
var (
	Sources      = []string{"claude-code", "cursor", "codex", "gemini", "record", "mcp"}
	Roles        = []string{"user", "assistant", "system", "tool"}
	EventTypes   = []string{"message", "tool_call", "tool_result", "artifact"}
	ContentTypes = []string{"text", "json", "image", "audio", "binary"}
)

// Event is one D-layer row: a line (or part of a line) of a conversation.
type Event struct {
	Seq          int64           `json:"seq"`
	SessionID    string          `json:"session_id"`
	Source       string          `json:"source"`
	SourceFile   string          `json:"source_file,omitempty"`
	SourceOffset *int64          `json:"source_offset,omitempty"`
	Role         string          `json:"role"`
	Speaker      string          `json:"speaker,omitempty"`
	EventType    string          `json:"event_type"`
	ContentType  string          `json:"content_type"`
	Content      string          `json:"content"`
	ContentRef   string          `json:"content_ref,omitempty"`
	Metadata     json.RawMessage `json:"metadata,omitempty"`
	OccurredAt   *time.Time      `json:"occurred_at,omitempty"`
	RecordedAt   time.Time       `json:"recorded_at"`
	// DedupeKey makes inserts idempotent: a second event with the same key is
	// ignored. Empty means no deduplication.
	DedupeKey string `json:"-"`
}

// FieldError is a validation failure that names the offending field and
// says how to fix it.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

func oneOf(field, v string, allowed []string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return &FieldError{Field: field, Msg: fmt.Sprintf("unknown value %q; use one of %s", v, strings.Join(allowed, ", "))}
}

// Validate checks an event before it is written.
func (e *Event) Validate() error {
	if strings.TrimSpace(e.SessionID) == "" {
		return &FieldError{Field: "session_id", Msg: "empty; give the conversation an id"}
	}
	if err := oneOf("source", e.Source, Sources); err != nil {
		return err
	}
	if err := oneOf("role", e.Role, Roles); err != nil {
		return err
	}
	if err := oneOf("event_type", e.EventType, EventTypes); err != nil {
		return err
	}
	if err := oneOf("content_type", e.ContentType, ContentTypes); err != nil {
		return err
	}
	if strings.TrimSpace(e.Content) == "" && e.ContentRef == "" {
		return &FieldError{Field: "content", Msg: "empty; pass the text to store (or a content_ref for binary content)"}
	}
	if len(e.Metadata) > 0 && !json.Valid(e.Metadata) {
		return &FieldError{Field: "metadata", Msg: "not valid JSON; pass a JSON object"}
	}
	return nil
}

// InsertEvent validates and writes ev in tx, creating or extending its
// session. It returns the new sequence number, or inserted=false with the
// existing row's sequence when ev.DedupeKey was already stored.
func InsertEvent(ctx context.Context, tx *Tx, ev *Event) (seq int64, inserted bool, err error) {
	if err := ev.Validate(); err != nil {
		return 0, false, err
	}
	if ev.RecordedAt.IsZero() {
		ev.RecordedAt = time.Now()
	}
	if ev.DedupeKey != "" {
		err := tx.QueryRowContext(ctx, `SELECT seq FROM session_events WHERE dedupe_key = ?`, ev.DedupeKey).Scan(&seq)
		if err == nil {
			return seq, false, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return 0, false, fmt.Errorf("look up event %s: %w", ev.DedupeKey, err)
		}
	}
	at := ev.RecordedAt
	if ev.OccurredAt != nil {
		at = *ev.OccurredAt
	}
	if err := TouchSession(ctx, tx, ev.SessionID, ev.Source, "", ev.SourceFile, at); err != nil {
		return 0, false, err
	}
	// ON CONFLICT: another writer (a second daemon on the same server)
	// may store the same key between the look-up above and this insert.
	seq, inserted, err = tx.InsertID(ctx, "seq", `INSERT INTO session_events
		(session_id, source, source_file, source_offset, role, speaker, event_type, content_type,
		 content, content_ref, metadata, occurred_at, recorded_at, dedupe_key)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT (dedupe_key) DO NOTHING`,
		ev.SessionID, ev.Source, nullStr(ev.SourceFile), ev.SourceOffset, ev.Role, nullStr(ev.Speaker),
		ev.EventType, ev.ContentType, ev.Content, nullStr(ev.ContentRef), nullRaw(ev.Metadata),
		nullTime(ev.OccurredAt), FormatTime(ev.RecordedAt), nullStr(ev.DedupeKey))
	if err == nil && !inserted {
		if err := tx.QueryRowContext(ctx, `SELECT seq FROM session_events WHERE dedupe_key = ?`, ev.DedupeKey).Scan(&seq); err != nil {
			return 0, false, fmt.Errorf("look up event %s: %w", ev.DedupeKey, err)
		}
		return seq, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("insert event for session %s: %w", ev.SessionID, err)
	}
	ev.Seq = seq
	return seq, true, nil
}

// TouchSession creates the session row if needed and widens its activity
// window to include at.
func TouchSession(ctx context.Context, ex Execer, id, source, project, transcript string, at time.Time) error {
	ts := FormatTime(at)
	_, err := ex.ExecContext(ctx, `INSERT INTO sessions(id, source, project, transcript_path, first_at, last_at, created_at)
		VALUES (?,?,?,?,?,?,?)
		ON CONFLICT(id) DO UPDATE SET
			first_at = CASE WHEN sessions.first_at IS NULL OR excluded.first_at < sessions.first_at THEN excluded.first_at ELSE sessions.first_at END,
			last_at  = CASE WHEN sessions.last_at IS NULL OR excluded.last_at > sessions.last_at THEN excluded.last_at ELSE sessions.last_at END,
			project = COALESCE(sessions.project, excluded.project),
			transcript_path = COALESCE(sessions.transcript_path, excluded.transcript_path)`,
		id, source, nullStr(project), nullStr(transcript), ts, ts, Now())
	if err != nil {
		return fmt.Errorf("record session %s: %w", id, err)
	}
	return nil
}

// ScanEvent reads one session_events row selected with EventColumns.
func ScanEvent(sc interface{ Scan(...any) error }) (Event, error) {
	var (
		ev                                      Event
		file, speaker, ref, meta, occurred, rec sql.NullString
		off                                     sql.NullInt64
	)
	if err := sc.Scan(&ev.Seq, &ev.SessionID, &ev.Source, &file, &off, &ev.Role, &speaker, &ev.EventType,
		&ev.ContentType, &ev.Content, &ref, &meta, &occurred, &rec); err != nil {
		return Event{}, fmt.Errorf("scan event: %w", err)
	}
	ev.SourceFile, ev.Speaker, ev.ContentRef = file.String, speaker.String, ref.String
	if off.Valid {
		o := off.Int64
		ev.SourceOffset = &o
	}
	if meta.Valid {
		ev.Metadata = json.RawMessage(meta.String)
	}
	if occurred.Valid {
		if t, err := ParseTime(occurred.String); err == nil {
			ev.OccurredAt = &t
		}
	}
	if rec.Valid {
		ev.RecordedAt, _ = ParseTime(rec.String)
	}
	return ev, nil
}

// Events runs query, which selects EventColumns, and reads every row in
// order.
func Events(ctx context.Context, q Querier, query string, args ...any) ([]Event, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		ev, err := ScanEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, rows.Err()
}

// EventColumns is the column list ScanEvent expects, in order.
const EventColumns = `seq, session_id, source, source_file, source_offset, role, speaker, event_type,
	content_type, content, content_ref, metadata, occurred_at, recorded_at`

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullRaw(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

func nullTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return FormatTime(*t)
}

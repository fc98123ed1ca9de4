package graph

import (
	"context"
	"fmt"

	"github.com/recollect/recollect/store"
)

// This file reads what one session holds before integrate files it, in
// the D and I layers: its raw events and the facts captured in it, each
// inside the retention window as every other read is.

// Captured is a fact captured in a session and not yet consolidated.
type Captured struct {
	ID         int64   `json:"id"`
	Content    string  `json:"content"`
	Status     string  `json:"status"`
	Producer   string  `json:"producer"`
	Importance float64 `json:"importance"`
}

// PendingCaptures lists session's captured facts that wait for
// consolidation (pending or claimed), oldest first; none said before the
// retention window began.
func (r *Reader) PendingCaptures(ctx context.Context, session string) ([]Captured, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT id, content, status, producer, importance FROM session_facts
		WHERE session_id = ? AND status IN ('pending','claimed') AND COALESCE(said_at, created_at) >= ? ORDER BY id`,
		session, store.FormatTime(r.Floor()))
	if err != nil {
		return nil, fmt.Errorf("read the session's captures: %w", err)
	}
	defer rows.Close()
	out := []Captured{}
	for rows.Next() {
		var c Captured
		if err := rows.Scan(&c.ID, &c.Content, &c.Status, &c.Producer, &c.Importance); err != nil {
			return nil, fmt.Errorf("read the session's captures: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the session's captures: %w", err)
	}
	return out, nil
}

// EventsQuery selects raw events to page through.
type EventsQuery struct {
	// After returns only events with a larger seq.
	After int64
	// Session keeps one session's events; "" means every session.
	Session string
	Limit   int
}

// Events reads raw events in seq order, as q selects them; none that
// happened before the retention window began.
func (r *Reader) Events(ctx context.Context, q EventsQuery) ([]store.Event, error) {
	within, wargs := r.EventWithin("session_events")
	out, err := store.Events(ctx, r.db, `SELECT `+store.EventColumns+` FROM session_events
		WHERE seq > ? AND (? = '' OR session_id = ?) AND `+within+` ORDER BY seq LIMIT ?`,
		append(append([]any{q.After, q.Session, q.Session}, wargs...), q.Limit)...)
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	return out, nil
}

// SessionKnown reports whether any event or captured fact carries session
// id.
func (r *Reader) SessionKnown(ctx context.Context, id string) (bool, error) {
	var n int
	err := r.db.QueryRowContext(ctx, `SELECT CASE WHEN EXISTS(SELECT 1 FROM session_events WHERE session_id = ?)
		OR EXISTS(SELECT 1 FROM session_facts WHERE session_id = ?) THEN 1 ELSE 0 END`, id, id).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("look up session %q: %w", id, err)
	}
	return n > 0, nil
}

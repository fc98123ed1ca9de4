package integrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/recollect/recollect/store"
)

// ErrNoFact is returned by Why for an id no fact has.
var ErrNoFact = errors.New("no such fact")

// Explanation says why a fact is what it is: where it came from, what was
// merged into it, and the supersession chain in both directions.
type Explanation struct {
	Fact    FactInfo `json:"fact"`
	Sources []Source `json:"sources"`
	// Log is every mutation-log entry about the fact, oldest first.
	Log []LogEntry `json:"log"`
	// Replaces are the facts this one superseded, directly or through
	// them, nearest first; ReplacedBy is the chain of successors.
	Replaces   []Link `json:"replaces"`
	ReplacedBy []Link `json:"replaced_by"`
	// Conflicts are the unresolved and resolved conflicts the fact is in.
	Conflicts []Conflict `json:"conflicts"`
}

// Conflict is two new facts that claimed to replace the same old one; the
// first claim stood.
type Conflict struct {
	ID         int64  `json:"id"`
	FactID     int64  `json:"fact_id"`
	WinnerID   int64  `json:"winner_id"`
	TargetID   int64  `json:"target_id"`
	Reason     string `json:"reason"`
	ResolvedAt string `json:"resolved_at,omitempty"`
}

// FactInfo is the fact row.
type FactInfo struct {
	ID           int64  `json:"id"`
	Content      string `json:"content"`
	Domain       string `json:"domain"`
	Status       string `json:"status"`
	Producer     string `json:"producer"`
	SaidAt       string `json:"said_at,omitempty"`
	ValidFrom    string `json:"valid_from,omitempty"`
	ValidUntil   string `json:"valid_until,omitempty"`
	RecordedAt   string `json:"recorded_at"`
	RetractedAt  string `json:"retracted_at,omitempty"`
	SupersededBy int64  `json:"superseded_by,omitempty"`
}

// Source is one provenance row: the I fact merged in and the event it cites.
type Source struct {
	SessionFactID int64  `json:"session_fact_id,omitempty"`
	SessionID     string `json:"session_id"`
	SaidAt        string `json:"said_at,omitempty"`
	EventSeq      int64  `json:"event_seq,omitempty"`
	EventRole     string `json:"event_role,omitempty"`
	Event         string `json:"event,omitempty"`
	Stated        string `json:"stated,omitempty"`
	Producer      string `json:"producer,omitempty"`
}

// LogEntry is one mutation-log line.
type LogEntry struct {
	Op      string `json:"op"`
	Actor   string `json:"actor"`
	Reason  string `json:"reason,omitempty"`
	Detail  string `json:"detail,omitempty"`
	At      string `json:"at"`
	Subject string `json:"target"`
}

// Link is one step of a supersession chain.
type Link struct {
	ID      int64  `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"`
	SaidAt  string `json:"said_at,omitempty"`
	// Reason and Actor come from the mutation log entry of that step.
	Reason string `json:"reason,omitempty"`
	Actor  string `json:"actor,omitempty"`
}

// Why explains fact id.
func Why(ctx context.Context, db *store.DB, id int64) (Explanation, error) {
	ex := Explanation{Sources: []Source{}, Log: []LogEntry{}, Replaces: []Link{}, ReplacedBy: []Link{}, Conflicts: []Conflict{}}
	f, err := loadFactInfo(ctx, db, id)
	if err != nil {
		return ex, err
	}
	ex.Fact = f
	if ex.Sources, err = sources(ctx, db, id); err != nil {
		return ex, err
	}
	if ex.Log, err = mutations(ctx, db, id); err != nil {
		return ex, err
	}
	if ex.Conflicts, err = conflictsOf(ctx, db, id); err != nil {
		return ex, err
	}
	// Forward: the chain of successors.
	seen := map[int64]bool{id: true}
	for cur := f; cur.SupersededBy != 0 && !seen[cur.SupersededBy]; {
		link, next, err := step(ctx, db, cur.ID, cur.SupersededBy)
		if err != nil {
			return ex, err
		}
		seen[next.ID] = true
		ex.ReplacedBy = append(ex.ReplacedBy, link)
		cur = next
	}
	// Backward: everything this fact replaced, breadth first.
	queue := []int64{id}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		olds, err := replacedBy(ctx, db, cur)
		if err != nil {
			return ex, err
		}
		for _, o := range olds {
			if seen[o] {
				continue
			}
			seen[o] = true
			info, err := loadFactInfo(ctx, db, o)
			if err != nil {
				return ex, err
			}
			l := Link{ID: o, Content: info.Content, Status: info.Status, SaidAt: info.SaidAt}
			l.Reason, l.Actor, err = supersedeReason(ctx, db, o)
			if err != nil {
				return ex, err
			}
			ex.Replaces = append(ex.Replaces, l)
			queue = append(queue, o)
		}
	}
	return ex, nil
}

// step describes the successor of older.
func step(ctx context.Context, db *store.DB, older, newer int64) (Link, FactInfo, error) {
	info, err := loadFactInfo(ctx, db, newer)
	if err != nil {
		return Link{}, info, err
	}
	l := Link{ID: newer, Content: info.Content, Status: info.Status, SaidAt: info.SaidAt}
	l.Reason, l.Actor, err = supersedeReason(ctx, db, older)
	return l, info, err
}

func supersedeReason(ctx context.Context, db *store.DB, older int64) (reason, actor string, err error) {
	err = db.QueryRowContext(ctx, `SELECT COALESCE(reason,''), actor FROM mutation_log WHERE op = 'supersede' AND target = ? ORDER BY id DESC LIMIT 1`,
		factTarget(older)).Scan(&reason, &actor)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("read supersession of fact %d: %w", older, err)
	}
	return reason, actor, nil
}

func replacedBy(ctx context.Context, db *store.DB, id int64) ([]int64, error) {
	rows, err := db.QueryContext(ctx, `SELECT id FROM facts WHERE superseded_by = ? ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("read facts replaced by %d: %w", id, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var o int64
		if err := rows.Scan(&o); err != nil {
			return nil, fmt.Errorf("read facts replaced by %d: %w", id, err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

func loadFactInfo(ctx context.Context, db *store.DB, id int64) (FactInfo, error) {
	var f FactInfo
	var said, vf, vu, ret sql.NullString
	var by sql.NullInt64
	err := db.QueryRowContext(ctx, `SELECT id, content, domain, status, producer, said_at, valid_from, valid_until, recorded_at, retracted_at, superseded_by
		FROM facts WHERE id = ?`, id).Scan(&f.ID, &f.Content, &f.Domain, &f.Status, &f.Producer, &said, &vf, &vu, &f.RecordedAt, &ret, &by)
	if errors.Is(err, sql.ErrNoRows) {
		var at sql.NullString
		if err := db.QueryRowContext(ctx, `SELECT max(created_at) FROM tombstones WHERE fact_id = ?`, id).Scan(&at); err != nil {
			return f, fmt.Errorf("read tombstone of fact %d: %w", id, err)
		}
		if at.Valid {
			return f, fmt.Errorf("fact %d: %w: it was forgotten at %s and only a content-free tombstone remains", id, ErrNoFact, at.String)
		}
		return f, fmt.Errorf("fact %d: %w; find ids with recollect search", id, ErrNoFact)
	}
	if err != nil {
		return f, fmt.Errorf("read fact %d: %w", id, err)
	}
	f.SaidAt, f.ValidFrom, f.ValidUntil, f.RetractedAt, f.SupersededBy = said.String, vf.String, vu.String, ret.String, by.Int64
	return f, nil
}

func sources(ctx context.Context, db *store.DB, id int64) ([]Source, error) {
	rows, err := db.QueryContext(ctx, `SELECT COALESCE(p.session_fact_id, 0), COALESCE(p.session_id, ''), COALESCE(p.said_at, ''),
		COALESCE(p.event_seq, 0), COALESCE(e.role, ''), COALESCE(e.content, ''), COALESCE(s.content, ''), COALESCE(s.producer, '')
		FROM fact_provenance p LEFT JOIN session_events e ON e.seq = p.event_seq LEFT JOIN session_facts s ON s.id = p.session_fact_id
		WHERE p.fact_id = ? ORDER BY `+db.Engine().InsertOrder("p"), id)
	if err != nil {
		return nil, fmt.Errorf("read provenance of fact %d: %w", id, err)
	}
	defer rows.Close()
	out := []Source{}
	for rows.Next() {
		var s Source
		if err := rows.Scan(&s.SessionFactID, &s.SessionID, &s.SaidAt, &s.EventSeq, &s.EventRole, &s.Event, &s.Stated, &s.Producer); err != nil {
			return nil, fmt.Errorf("read provenance of fact %d: %w", id, err)
		}
		s.Event = truncate(s.Event, 300)
		out = append(out, s)
	}
	return out, rows.Err()
}

func mutations(ctx context.Context, db *store.DB, id int64) ([]LogEntry, error) {
	rows, err := db.QueryContext(ctx, `SELECT op, actor, COALESCE(reason,''), COALESCE(detail,''), created_at, target FROM mutation_log
		WHERE target = ? ORDER BY id`, factTarget(id))
	if err != nil {
		return nil, fmt.Errorf("read mutation log of fact %d: %w", id, err)
	}
	defer rows.Close()
	out := []LogEntry{}
	for rows.Next() {
		var l LogEntry
		if err := rows.Scan(&l.Op, &l.Actor, &l.Reason, &l.Detail, &l.At, &l.Subject); err != nil {
			return nil, fmt.Errorf("read mutation log of fact %d: %w", id, err)
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

func conflictsOf(ctx context.Context, db *store.DB, id int64) ([]Conflict, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, COALESCE(fact_id,0), COALESCE(other_id,0), COALESCE(target_id,0), COALESCE(reason,''), COALESCE(resolved_at,'')
		FROM conflicts WHERE ? IN (fact_id, other_id, target_id) ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("read conflicts of fact %d: %w", id, err)
	}
	defer rows.Close()
	out := []Conflict{}
	for rows.Next() {
		var c Conflict
		if err := rows.Scan(&c.ID, &c.FactID, &c.WinnerID, &c.TargetID, &c.Reason, &c.ResolvedAt); err != nil {
			return nil, fmt.Errorf("read conflicts of fact %d: %w", id, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

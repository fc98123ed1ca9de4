// Package graph owns reading knowledge: ranked search over facts, entity and
// context lookup over the entity graph, and the briefing. It is the one
// implementation behind both the CLI and the MCP tools.
//
// It reads the K layer (and, for pending and episodes, the I and D layers);
// it never writes knowledge.
package graph

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/recollect/recollect/store"
)

// Query is a search request.
type Query struct {
	Text  string
	Limit int
}

// Arm names a retrieval list that can find a fact.
type Arm string

// The retrieval arms.
const (
	ArmKeyword  Arm = "keyword"
	ArmEntity   Arm = "entity"
	ArmDomain   Arm = "domain"
	ArmSemantic Arm = "semantic"
)

// Match records that an arm found a hit, and at which rank (1-based).
type Match struct {
	Arm  Arm `json:"arm"`
	Rank int `json:"rank"`
}

// Hit is one fact in a search answer.
type Hit struct {
	ID          int64    `json:"id"`
	Content     string   `json:"content"`
	Domain      string   `json:"domain"`
	Subdomain   string   `json:"subdomain,omitempty"`
	Confidence  float64  `json:"confidence"`
	Importance  float64  `json:"importance"`
	Status      string   `json:"status"`
	Producer    string   `json:"producer"`
	SpeakerRole string   `json:"speaker_role,omitempty"`
	Speaker     string   `json:"speaker,omitempty"`
	SessionID   string   `json:"session_id,omitempty"`
	EventIDs    []int64  `json:"event_ids"`
	SaidAt      string   `json:"said_at,omitempty"`
	ValidFrom   string   `json:"valid_from,omitempty"`
	ValidUntil  string   `json:"valid_until,omitempty"`
	Entities    []string `json:"entities"`
	MatchedBy   []Match  `json:"matched_by"`
	Score       float64  `json:"score"`
}

// PendingHit is a captured fact not yet integrated: keyword-matched only.
type PendingHit struct {
	ID        int64  `json:"id"`
	SessionID string `json:"session_id"`
	Content   string `json:"content"`
	Producer  string `json:"producer"`
}

// Answer is a search answer. Results, Pending and Episodes never mix.
type Answer struct {
	Query   string       `json:"query"`
	Results []Hit        `json:"results"`
	Pending []PendingHit `json:"pending"`
	// Note explains an empty or degraded answer in words.
	Note string `json:"note,omitempty"`
}

// Search ranks active facts for q.
func Search(ctx context.Context, db *store.DB, q Query) (Answer, error) {
	ans := Answer{Query: q.Text, Results: []Hit{}, Pending: []PendingHit{}}
	if q.Limit <= 0 {
		q.Limit = 20
	}
	match := Sanitize(q.Text)
	if match == "" {
		ans.Note = "the query holds no searchable word"
		return ans, nil
	}
	rows, err := db.QueryContext(ctx, `SELECT f.id FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid
		WHERE facts_fts MATCH ? AND f.status = 'active' ORDER BY bm25(facts_fts) LIMIT ?`, match, q.Limit)
	if err != nil {
		return ans, fmt.Errorf("keyword search: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return ans, fmt.Errorf("keyword search: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	for i, id := range ids {
		h, err := LoadHit(ctx, db, id)
		if err != nil {
			return ans, err
		}
		h.MatchedBy = []Match{{Arm: ArmKeyword, Rank: i + 1}}
		ans.Results = append(ans.Results, h)
	}
	ans.Pending, err = searchPending(ctx, db, match, q.Limit)
	return ans, err
}

func searchPending(ctx context.Context, db *store.DB, match string, limit int) ([]PendingHit, error) {
	rows, err := db.QueryContext(ctx, `SELECT s.id, s.session_id, s.content, s.producer FROM session_facts_fts
		JOIN session_facts s ON s.id = session_facts_fts.rowid
		WHERE session_facts_fts MATCH ? AND s.status IN ('pending','claimed') ORDER BY bm25(session_facts_fts) LIMIT ?`, match, limit)
	if err != nil {
		return nil, fmt.Errorf("pending search: %w", err)
	}
	defer rows.Close()
	out := []PendingHit{}
	for rows.Next() {
		var p PendingHit
		if err := rows.Scan(&p.ID, &p.SessionID, &p.Content, &p.Producer); err != nil {
			return nil, fmt.Errorf("pending search: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// LoadHit reads one fact with its provenance and entities.
func LoadHit(ctx context.Context, db *store.DB, id int64) (Hit, error) {
	var h Hit
	var sub, role, speaker, session, said, vf, vu sql.NullString
	err := db.QueryRowContext(ctx, `SELECT id, content, domain, subdomain, confidence, importance, status, producer,
		speaker_role, speaker, session_id, said_at, valid_from, valid_until FROM facts WHERE id = ?`, id).
		Scan(&h.ID, &h.Content, &h.Domain, &sub, &h.Confidence, &h.Importance, &h.Status, &h.Producer,
			&role, &speaker, &session, &said, &vf, &vu)
	if err != nil {
		return h, fmt.Errorf("load fact %d: %w", id, err)
	}
	h.Subdomain, h.SpeakerRole, h.Speaker, h.SessionID = sub.String, role.String, speaker.String, session.String
	h.SaidAt, h.ValidFrom, h.ValidUntil = said.String, vf.String, vu.String
	h.EventIDs = []int64{}
	rows, err := db.QueryContext(ctx, `SELECT DISTINCT event_seq FROM fact_provenance WHERE fact_id = ? AND event_seq IS NOT NULL ORDER BY event_seq`, id)
	if err != nil {
		return h, fmt.Errorf("load provenance of fact %d: %w", id, err)
	}
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			rows.Close()
			return h, fmt.Errorf("load provenance of fact %d: %w", id, err)
		}
		h.EventIDs = append(h.EventIDs, seq)
	}
	rows.Close()
	h.Entities = []string{}
	rows, err = db.QueryContext(ctx, `SELECT e.name FROM fact_entities fe JOIN entities e ON e.id = fe.entity_id WHERE fe.fact_id = ? ORDER BY fe.is_subject DESC, e.id`, id)
	if err != nil {
		return h, fmt.Errorf("load entities of fact %d: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return h, fmt.Errorf("load entities of fact %d: %w", id, err)
		}
		h.Entities = append(h.Entities, name)
	}
	return h, rows.Err()
}

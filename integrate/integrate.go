// Package integrate owns the I → K step: it claims pending session facts and
// fits each into what the store already knows — a new fact, provenance merged
// into an existing one, or a successor that supersedes an older fact — and
// links entities, builds the entity graph and keeps embeddings. Knowledge is
// never edited in place; every decision goes to the mutation log.
//
// It does not extract facts from events (extract) or rank them (graph).
package integrate

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// Report says what one integrate run did.
type Report struct {
	Claimed    int `json:"claimed"`
	Integrated int `json:"facts_integrated"`
	Merged     int `json:"merged"`
	Superseded int `json:"superseded"`
	Entities   int `json:"entities_linked"`
}

// Integrator runs the integrate stage over one store.
type Integrator struct {
	DB     *store.DB
	Config config.Config
	Log    *slog.Logger
	// Actor names who made the decisions in the mutation log.
	Actor string
}

// PendingFact is a claimed I-layer row.
type PendingFact struct {
	ID           int64
	SessionID    string
	Content      string
	Digest       string
	Confidence   float64
	Importance   float64
	DomainHint   string
	SpeakerRole  string
	Speaker      string
	Producer     string
	EventIDs     []int64
	Entities     json.RawMessage
	ValidFrom    string
	ValidUntil   string
	SaidAt       string
	CaptureNotes string
}

// Run claims pending facts and integrates them, all in one transaction so a
// crash leaves them pending rather than half-integrated.
func (in *Integrator) Run(ctx context.Context) (Report, error) {
	var rep Report
	token, err := newToken()
	if err != nil {
		return rep, err
	}
	err = in.DB.Tx(ctx, func(tx *sql.Tx) error {
		// Claim: a concurrent run in another process sees these as taken.
		res, err := tx.ExecContext(ctx, `UPDATE session_facts SET status = 'claimed', claim_token = ? WHERE status = 'pending'`, token)
		if err != nil {
			return fmt.Errorf("claim pending facts: %w", err)
		}
		n, _ := res.RowsAffected()
		rep.Claimed = int(n)
		facts, err := loadClaimed(ctx, tx, token)
		if err != nil {
			return err
		}
		for _, pf := range facts {
			if err := in.integrateOne(ctx, tx, pf, &rep); err != nil {
				return fmt.Errorf("integrate session fact %d: %w", pf.ID, err)
			}
		}
		return nil
	})
	return rep, err
}

func newToken() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("claim token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

func loadClaimed(ctx context.Context, tx *sql.Tx, token string) ([]PendingFact, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, session_id, content, digest, confidence, importance,
		COALESCE(domain_hint,''), COALESCE(speaker_role,''), COALESCE(speaker,''), producer, event_ids,
		entities, COALESCE(valid_from,''), COALESCE(valid_until,''), COALESCE(said_at,''), COALESCE(capture_context,'')
		FROM session_facts WHERE claim_token = ? AND status = 'claimed' ORDER BY COALESCE(said_at, created_at), id`, token)
	if err != nil {
		return nil, fmt.Errorf("load claimed facts: %w", err)
	}
	defer rows.Close()
	var out []PendingFact
	for rows.Next() {
		var pf PendingFact
		var ids string
		var ents sql.NullString
		if err := rows.Scan(&pf.ID, &pf.SessionID, &pf.Content, &pf.Digest, &pf.Confidence, &pf.Importance, &pf.DomainHint,
			&pf.SpeakerRole, &pf.Speaker, &pf.Producer, &ids, &ents, &pf.ValidFrom, &pf.ValidUntil, &pf.SaidAt, &pf.CaptureNotes); err != nil {
			return nil, fmt.Errorf("scan claimed fact: %w", err)
		}
		if err := json.Unmarshal([]byte(ids), &pf.EventIDs); err != nil {
			return nil, fmt.Errorf("session fact %d: bad event_ids %q: %w", pf.ID, ids, err)
		}
		if ents.Valid {
			pf.Entities = json.RawMessage(ents.String)
		}
		out = append(out, pf)
	}
	return out, rows.Err()
}

func (in *Integrator) integrateOne(ctx context.Context, tx *sql.Tx, pf PendingFact, rep *Report) error {
	domain := CanonicalDomain(pf.DomainHint)
	if domain == "" {
		domain = "general"
	}
	// Exact duplicate of active knowledge: merge provenance, no new row.
	var existing int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM facts WHERE digest = ? AND status = 'active' ORDER BY id LIMIT 1`, pf.Digest).Scan(&existing)
	switch {
	case err == nil:
		if err := addProvenance(ctx, tx, existing, pf); err != nil {
			return err
		}
		if err := store.LogMutation(ctx, tx, "merge", fmt.Sprintf("fact:%d", existing), in.actor(),
			"exact duplicate (normalised digest)", fmt.Sprintf(`{"session_fact":%d}`, pf.ID)); err != nil {
			return err
		}
		rep.Merged++
		return markDone(ctx, tx, pf.ID, "merged", existing)
	case err != sql.ErrNoRows:
		return fmt.Errorf("look up duplicate: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO domains(name, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING`, domain, store.Now()); err != nil {
		return fmt.Errorf("add domain %s: %w", domain, err)
	}
	now := store.Now()
	validFrom := pf.ValidFrom
	if validFrom == "" {
		validFrom = pf.SaidAt
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO facts(content, digest, domain, confidence, importance, status, producer,
		speaker_role, speaker, session_id, said_at, valid_from, valid_until, recorded_at)
		VALUES (?,?,?,?,?, 'active', ?,?,?,?,?,?,?,?)`,
		pf.Content, pf.Digest, domain, pf.Confidence, pf.Importance, pf.Producer, nullStr(pf.SpeakerRole), nullStr(pf.Speaker),
		pf.SessionID, nullStr(pf.SaidAt), nullStr(validFrom), nullStr(pf.ValidUntil), now)
	if err != nil {
		return fmt.Errorf("insert fact: %w", err)
	}
	id, _ := res.LastInsertId()
	if err := addProvenance(ctx, tx, id, pf); err != nil {
		return err
	}
	n, err := linkEntities(ctx, tx, id, pf)
	if err != nil {
		return err
	}
	rep.Entities += n
	rep.Integrated++
	return markDone(ctx, tx, pf.ID, "integrated", id)
}

func (in *Integrator) actor() string {
	if in.Actor != "" {
		return in.Actor
	}
	return "integrate/heuristic"
}

func addProvenance(ctx context.Context, tx *sql.Tx, factID int64, pf PendingFact) error {
	ids := pf.EventIDs
	if len(ids) == 0 {
		ids = []int64{0}
	}
	for _, ev := range ids {
		var evArg any
		if ev != 0 {
			evArg = ev
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO fact_provenance(fact_id, session_fact_id, event_seq, session_id, said_at, added_at)
			VALUES (?,?,?,?,?,?)`, factID, pf.ID, evArg, pf.SessionID, nullStr(pf.SaidAt), store.Now()); err != nil {
			return fmt.Errorf("add provenance to fact %d: %w", factID, err)
		}
	}
	return nil
}

func markDone(ctx context.Context, tx *sql.Tx, sfID int64, status string, factID int64) error {
	if _, err := tx.ExecContext(ctx, `UPDATE session_facts SET status = ?, fact_id = ?, claim_token = NULL WHERE id = ?`, status, factID, sfID); err != nil {
		return fmt.Errorf("mark session fact %d %s: %w", sfID, status, err)
	}
	return nil
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

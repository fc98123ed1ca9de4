// Package integrate owns the I → K step: it claims pending session facts and
// fits each into what the store already knows — a new fact, provenance merged
// into an existing one, or a successor that supersedes an older fact — and
// links entities, builds the entity graph, keeps embeddings and writes the
// rolling summary the briefing reads. Knowledge is never edited in place;
// every decision goes to the mutation log with its actor and reason. It
// also deletes what it wrote when a person forgets a fact (ForgetFact):
// the fact and its knowledge rows, with a tombstone for its wording.
//
// It does not extract facts from events (extract) or rank them (graph).
package integrate

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// Report says what one integrate run did.
type Report struct {
	Claimed    int `json:"claimed"`
	Integrated int `json:"facts_integrated"`
	Merged     int `json:"merged"`
	// Noop counts facts the reconcile stage found already known.
	Noop       int `json:"noop"`
	Superseded int `json:"superseded"`
	// Conflicts counts new facts that claimed an old fact another new fact
	// had already superseded; each waits in the conflicts table.
	Conflicts int `json:"conflicts"`
	Entities  int `json:"entities_linked"`
	// StageFailures counts model answers that could not be used, by stage;
	// the fact went the safe way (added, nothing superseded).
	StageFailures map[string]int `json:"stage_failures,omitempty"`
	// Embedding is nil when embeddings are off.
	Embedding *EmbedReport `json:"embedding,omitempty"`
	// Summary is the rolling summary written for the briefing, if any.
	Summary string `json:"summary,omitempty"`
}

// Model is the part of the model router integrate calls: one structured
// request per decision. It returns an error wrapping model.ErrHeuristic
// when the stage runs on the heuristic provider.
type Model interface {
	Call(ctx context.Context, req model.Request) (model.Response, error)
}

// Integrator runs the integrate stage over one store.
type Integrator struct {
	DB     *store.DB
	Config config.Config
	Log    *slog.Logger
	// Actor names who made heuristic decisions in the mutation log;
	// model decisions name the stage and model.
	Actor string
	// Model runs the stages classify, entities, reconcile, supersede and
	// summarise; nil runs them all on the heuristic.
	Model Model
	// Embedder, when set, embeds active facts lacking a vector after the
	// facts are committed, outside the claim.
	Embedder model.Embedder
	// Now is the clock for recorded_at and retracted_at; time.Now when nil.
	Now func() time.Time
	// Lease is how long a claim holds before another run may take over the
	// facts of a run that died; one hour when zero.
	Lease time.Duration
	// Readings keeps stored statements as read for supersession across
	// runs (a long-lived process passes one to every run); nil gives each
	// run its own.
	Readings *Readings
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
	// Kind is the fact's kind (store.Kinds), "" when none was given.
	Kind string
}

// Run claims pending facts and integrates them one at a time, in the order
// they were said. The claim is one IMMEDIATE transaction, so two processes
// never take the same fact; each fact's decisions commit in their own short
// transaction, so model calls never hold the write lock. A run that fails
// puts its unfinished facts back to pending.
func (in *Integrator) Run(ctx context.Context) (Report, error) {
	rep := Report{StageFailures: map[string]int{}}
	if err := in.signBackfill(ctx); err != nil {
		return rep, err
	}
	token, n, err := in.claim(ctx)
	if err != nil {
		return rep, err
	}
	rep.Claimed = n
	facts, err := loadClaimed(ctx, in.DB, token)
	if err != nil {
		return rep, errors.Join(err, in.release(ctx, token))
	}
	st := &runState{supersededBy: map[int64]int64{}, readings: in.Readings}
	if st.readings == nil {
		st.readings = NewReadings(DefaultReadings)
	}
	for _, pf := range facts {
		if err := ctx.Err(); err != nil {
			return rep, errors.Join(fmt.Errorf("integrate: %w", err), in.release(ctx, token))
		}
		if err := in.integrateOne(ctx, token, pf, st, &rep); err != nil {
			return rep, errors.Join(fmt.Errorf("integrate session fact %d: %w", pf.ID, err), in.release(ctx, token))
		}
	}
	if rep.Claimed > 0 {
		if err := in.summarise(ctx, &rep); err != nil {
			return rep, err
		}
	}
	if in.Embedder != nil {
		er := EmbedMissing(ctx, in.DB, in.Embedder, in.Config.Embedding.BatchSize)
		rep.Embedding = &er
	}
	if len(rep.StageFailures) == 0 {
		rep.StageFailures = nil
	}
	return rep, nil
}

// runState is what one run remembers between facts: which old facts it
// superseded, and by which new fact, so a second claim becomes a conflict.
type runState struct {
	supersededBy map[int64]int64
	// domains is the store's domain list, read once per run.
	domains []string
	// readings are stored facts' statements as read for supersession:
	// the Integrator's Readings, or the run's own.
	readings *Readings
}

// reading reads a stored fact's statement, once while it is kept.
func (st *runState) reading(content, speaker string) reading {
	return st.readings.get(content, speaker)
}

func (in *Integrator) integrateOne(ctx context.Context, token string, pf PendingFact, st *runState, rep *Report) error {
	p, err := in.plan(ctx, pf, st, rep)
	if err != nil {
		return err
	}
	return in.DB.Tx(ctx, func(tx *store.Tx) error {
		return in.apply(ctx, tx, token, pf, p, st, rep)
	})
}

func (in *Integrator) now() time.Time {
	if in.Now != nil {
		return in.Now()
	}
	return time.Now()
}

func (in *Integrator) logger() *slog.Logger {
	if in.Log != nil {
		return in.Log
	}
	return slog.Default()
}

func (in *Integrator) actor() string {
	if in.Actor != "" {
		return in.Actor
	}
	return "integrate/heuristic"
}

// claim takes every pending fact, every fact whose claim outlived the
// lease, and every fact claimed by a process on this host that is gone (its
// run died), under a fresh token that names this process (claimer.go). The token starts with the claim
// time in the store's fixed-width layout, so comparing tokens as text
// compares claim times.
func (in *Integrator) claim(ctx context.Context) (token string, n int, err error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", 0, fmt.Errorf("claim token: %w", err)
	}
	now := in.now()
	token = store.FormatTime(now) + "/" + hex.EncodeToString(b) + claimerSuffix()
	lease := in.Lease
	if lease <= 0 {
		lease = time.Hour
	}
	stale := store.FormatTime(now.Add(-lease))
	err = in.DB.Tx(ctx, func(tx *store.Tx) error {
		// The rows are picked by a SELECT that, on PostgreSQL, skips the
		// rows another daemon's claim holds instead of waiting for it.
		res, err := tx.ExecContext(ctx, `UPDATE session_facts SET status = 'claimed', claim_token = ?
			WHERE id IN (SELECT id FROM session_facts WHERE status = 'pending' OR (status = 'claimed' AND claim_token < ?)`+tx.Engine().SkipLocked()+`)`, token, stale)
		if err != nil {
			return fmt.Errorf("claim pending facts: %w", err)
		}
		c, _ := res.RowsAffected()
		n = int(c)
		// Claims whose process is gone (killed during integrate) are taken
		// over now rather than after the lease.
		orphans, err := orphanedTokens(ctx, tx)
		if err != nil {
			return err
		}
		for _, old := range orphans {
			res, err := tx.ExecContext(ctx, `UPDATE session_facts SET claim_token = ? WHERE status = 'claimed' AND claim_token = ?`, token, old)
			if err != nil {
				return fmt.Errorf("take over the claim of a process that is gone: %w", err)
			}
			c, _ := res.RowsAffected()
			n += int(c)
			in.logger().Info("took over facts claimed by a process that is gone", "facts", c, "claim", old)
		}
		return nil
	})
	return token, n, err
}

// release puts the facts still claimed under token back to pending. It runs
// even after ctx is cancelled.
func (in *Integrator) release(ctx context.Context, token string) error {
	_, err := in.DB.ExecContext(context.WithoutCancel(ctx),
		`UPDATE session_facts SET status = 'pending', claim_token = NULL WHERE status = 'claimed' AND claim_token = ?`, token)
	if err != nil {
		return fmt.Errorf("release claimed facts: %w", err)
	}
	return nil
}

func loadClaimed(ctx context.Context, db *store.DB, token string) ([]PendingFact, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, session_id, content, digest, confidence, importance,
		COALESCE(domain_hint,''), COALESCE(speaker_role,''), COALESCE(speaker,''), producer, event_ids,
		entities, COALESCE(valid_from,''), COALESCE(valid_until,''), COALESCE(said_at,''), COALESCE(capture_context,''), COALESCE(kind,'')
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
			&pf.SpeakerRole, &pf.Speaker, &pf.Producer, &ids, &ents, &pf.ValidFrom, &pf.ValidUntil, &pf.SaidAt, &pf.CaptureNotes, &pf.Kind); err != nil {
			return nil, fmt.Errorf("scan claimed fact: %w", err)
		}
		if err := json.Unmarshal([]byte(ids), &pf.EventIDs); err != nil {
			return nil, fmt.Errorf("session fact %d: bad event_ids %q: %w", pf.ID, ids, err)
		}
		if ents.Valid {
			pf.Entities = json.RawMessage(ents.String)
		}
		fillFromLine(&pf)
		out = append(out, pf)
	}
	return out, rows.Err()
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

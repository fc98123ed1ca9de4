package integrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// apply writes one fact's plan in tx: it first checks the claim is still
// this run's, then re-checks exact duplicates (another process may have
// added the same fact since the plan was made).
func (in *Integrator) apply(ctx context.Context, tx *store.Tx, token string, pf PendingFact, p plan, st *runState, rep *Report) error {
	res, err := tx.ExecContext(ctx, `UPDATE session_facts SET claim_token = claim_token WHERE id = ? AND status = 'claimed' AND claim_token = ?`, pf.ID, token)
	if err != nil {
		return fmt.Errorf("check claim: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		in.logger().Warn("claim taken over by another run; skipping", "session_fact", pf.ID)
		return nil
	}
	if id, ok, err := activeByDigest(ctx, tx, pf.Digest); err != nil {
		return err
	} else if ok && (p.act == actAdd || id != p.target) {
		p.act, p.target, p.reason, p.actor = actMerge, id, "exact duplicate (normalised digest)", in.actor()
	}
	if p.act != actAdd {
		var status string
		if err := tx.QueryRowContext(ctx, `SELECT status FROM facts WHERE id = ?`, p.target).Scan(&status); err != nil {
			return fmt.Errorf("read fact %d: %w", p.target, err)
		}
		if status != "active" {
			p.act, p.reason = actAdd, fmt.Sprintf("%s, but fact %d is no longer active; added", p.reason, p.target)
		}
	}
	switch p.act {
	case actMerge:
		if err := addProvenance(ctx, tx, p.target, pf); err != nil {
			return err
		}
		if err := store.LogMutation(ctx, tx, "merge", factTarget(p.target), p.actor, p.reason, fmt.Sprintf(`{"session_fact":%d}`, pf.ID)); err != nil {
			return err
		}
		rep.Merged++
		return markDone(ctx, tx, pf.ID, "merged", p.target)
	case actNoop:
		if err := store.LogMutation(ctx, tx, "noop", factTarget(p.target), p.actor, p.reason, fmt.Sprintf(`{"session_fact":%d}`, pf.ID)); err != nil {
			return err
		}
		rep.Noop++
		return markDone(ctx, tx, pf.ID, "merged", p.target)
	}
	id, err := in.insertFact(ctx, tx, pf, p, rep)
	if err != nil {
		return err
	}
	for _, s := range p.supersedes {
		newer, older := s.newer, s.older
		if newer == 0 {
			newer = id
		}
		if older == 0 {
			older = id
		}
		if err := in.supersede(ctx, tx, newer, older, s.reason, s.actor, st, rep); err != nil {
			return err
		}
	}
	return markDone(ctx, tx, pf.ID, "integrated", id)
}

func (in *Integrator) insertFact(ctx context.Context, tx *store.Tx, pf PendingFact, p plan, rep *Report) (int64, error) {
	if err := ensureDomain(ctx, tx, p.domain); err != nil {
		return 0, err
	}
	validFrom := pf.ValidFrom
	if validFrom == "" {
		validFrom = pf.SaidAt
	}
	id, _, err := tx.InsertID(ctx, "id", `INSERT INTO facts(content, digest, domain, confidence, importance, status, producer,
		speaker_role, speaker, session_id, said_at, valid_from, valid_until, recorded_at, kind)
		VALUES (?,?,?,?,?, 'active', ?,?,?,?,?,?,?,?,?)`,
		pf.Content, pf.Digest, p.domain, pf.Confidence, pf.Importance, pf.Producer, nullStr(pf.SpeakerRole), nullStr(pf.Speaker),
		pf.SessionID, nullStr(pf.SaidAt), nullStr(validFrom), nullStr(pf.ValidUntil), store.FormatTime(in.now()), nullStr(pf.Kind))
	if err != nil {
		return 0, fmt.Errorf("insert fact: %w", err)
	}
	if err := addProvenance(ctx, tx, id, pf); err != nil {
		return 0, err
	}
	if err := signFact(ctx, tx, id, pf.Content); err != nil {
		return 0, err
	}
	n, err := linkEntities(ctx, tx, id, p.mentions, p.relations)
	if err != nil {
		return 0, err
	}
	if err := store.LogMutation(ctx, tx, "add", factTarget(id), p.actor, p.reason,
		fmt.Sprintf(`{"session_fact":%d,"domain":%q}`, pf.ID, p.domain)); err != nil {
		return 0, err
	}
	rep.Entities += n
	rep.Integrated++
	return id, nil
}

// supersede retires older in favour of newer. An older fact that is no
// longer active was claimed first by another fact: the first claim stands
// and this one waits in conflicts for the briefing.
func (in *Integrator) supersede(ctx context.Context, tx *store.Tx, newer, older int64, reason, actor string, st *runState, rep *Report) error {
	var status string
	var by sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT status, superseded_by FROM facts WHERE id = ?`, older).Scan(&status, &by)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // forgotten meanwhile: nothing left to supersede
	}
	if err != nil {
		return fmt.Errorf("read fact %d: %w", older, err)
	}
	if status != "active" {
		if !by.Valid || by.Int64 == newer {
			return nil
		}
		why := fmt.Sprintf("fact %d also claims to replace fact %d, already replaced by fact %d: %s", newer, older, by.Int64, reason)
		if _, err := tx.ExecContext(ctx, `INSERT INTO conflicts(fact_id, other_id, target_id, reason, created_at) VALUES (?,?,?,?,?)`,
			newer, by.Int64, older, why, store.Now()); err != nil {
			return fmt.Errorf("record conflict over fact %d: %w", older, err)
		}
		rep.Conflicts++
		return store.LogMutation(ctx, tx, "conflict", factTarget(older), actor, why, fmt.Sprintf(`{"fact":%d,"winner":%d}`, newer, by.Int64))
	}
	now := store.FormatTime(in.now())
	var retracted any
	if in.Config.Temporal.Mode == config.TemporalBitemporal {
		retracted = now
	}
	if err := retire(ctx, tx, older, newer, retracted); err != nil {
		return err
	}
	st.supersededBy[older] = newer
	rep.Superseded++
	return store.LogMutation(ctx, tx, "supersede", factTarget(older), actor, reason, fmt.Sprintf(`{"by":%d}`, newer))
}

func factTarget(id int64) string { return fmt.Sprintf("fact:%d", id) }

func addProvenance(ctx context.Context, tx *store.Tx, factID int64, pf PendingFact) error {
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

func markDone(ctx context.Context, tx *store.Tx, sfID int64, status string, factID int64) error {
	if _, err := tx.ExecContext(ctx, `UPDATE session_facts SET status = ?, fact_id = ?, claim_token = NULL WHERE id = ?`, status, factID, sfID); err != nil {
		return fmt.Errorf("mark session fact %d %s: %w", sfID, status, err)
	}
	return nil
}

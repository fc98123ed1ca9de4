package integrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/recollect/recollect/store"
)

// ConflictView is a conflict with the contents and statuses of its three
// facts: the newcomer (FactID), the fact that replaced the target first
// (WinnerID) and the target both claim to replace.
type ConflictView struct {
	Conflict
	CreatedAt    string `json:"created_at"`
	Fact         string `json:"fact"`
	FactStatus   string `json:"fact_status"`
	Winner       string `json:"winner"`
	WinnerStatus string `json:"winner_status"`
	Target       string `json:"target"`
}

// ListConflicts returns the unresolved conflicts, oldest first; with all,
// the resolved ones too.
func ListConflicts(ctx context.Context, db *store.DB, all bool) ([]ConflictView, error) {
	where := "WHERE c.resolved_at IS NULL"
	if all {
		where = ""
	}
	rows, err := db.QueryContext(ctx, `SELECT c.id, COALESCE(c.fact_id,0), COALESCE(c.other_id,0), COALESCE(c.target_id,0),
		COALESCE(c.reason,''), COALESCE(c.resolved_at,''), c.created_at,
		COALESCE(f.content,''), COALESCE(f.status,''), COALESCE(w.content,''), COALESCE(w.status,''), COALESCE(t.content,'')
		FROM conflicts c LEFT JOIN facts f ON f.id = c.fact_id LEFT JOIN facts w ON w.id = c.other_id LEFT JOIN facts t ON t.id = c.target_id
		`+where+` ORDER BY c.id`)
	if err != nil {
		return nil, fmt.Errorf("list conflicts: %w", err)
	}
	defer rows.Close()
	out := []ConflictView{}
	for rows.Next() {
		var v ConflictView
		if err := rows.Scan(&v.ID, &v.FactID, &v.WinnerID, &v.TargetID, &v.Reason, &v.ResolvedAt, &v.CreatedAt,
			&v.Fact, &v.FactStatus, &v.Winner, &v.WinnerStatus, &v.Target); err != nil {
			return nil, fmt.Errorf("list conflicts: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// ResolveOptions say how a conflict ends: Keep names the fact that is
// current (the newcomer or the first replacement; the other one is
// superseded by it), or Both says the two stand side by side.
type ResolveOptions struct {
	Keep int64
	Both bool
	// Note is why, for the mutation log; Actor who (cli, mcp, …).
	Note, Actor string
	// Bitemporal marks the superseded fact retracted as of Now, as
	// supersession does in temporal.mode bitemporal.
	Bitemporal bool
	Now        time.Time
}

// Resolution is what resolving a conflict did.
type Resolution struct {
	Conflict   int64 `json:"conflict"`
	Kept       int64 `json:"kept,omitempty"`
	Superseded int64 `json:"superseded,omitempty"`
	Both       bool  `json:"both,omitempty"`
}

// ErrConflictInput marks a request that cannot apply to the conflict as it
// stands (unknown, already resolved, a fact not in it, a fact no longer
// active); nothing was changed.
var ErrConflictInput = errors.New("conflict cannot be resolved that way")

// ErrNoConflict means the conflict id names no conflict: a state, not bad
// input (exit status 1, as a fact id that names no fact).
var ErrNoConflict = errors.New("no such conflict")

// ResolveConflict ends conflict id as opts say, in one transaction with a
// mutation-log entry. Facts stay immutable: the one not kept is marked
// superseded by the kept one, as any supersession.
func ResolveConflict(ctx context.Context, db *store.DB, id int64, opts ResolveOptions) (Resolution, error) {
	res := Resolution{Conflict: id, Both: opts.Both}
	if opts.Actor == "" {
		opts.Actor = "cli"
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrConflictInput, fmt.Sprintf(format, args...))
	}
	err := db.Tx(ctx, func(tx *store.Tx) error {
		var c Conflict
		err := tx.QueryRowContext(ctx, `SELECT id, COALESCE(fact_id,0), COALESCE(other_id,0), COALESCE(target_id,0), COALESCE(resolved_at,'')
			FROM conflicts WHERE id = ?`, id).Scan(&c.ID, &c.FactID, &c.WinnerID, &c.TargetID, &c.ResolvedAt)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: there is no conflict %d; recollect conflicts lists them", ErrNoConflict, id)
		}
		if err != nil {
			return fmt.Errorf("read conflict %d: %w", id, err)
		}
		if c.ResolvedAt != "" {
			return refuse("conflict %d was resolved at %s", id, c.ResolvedAt)
		}
		now := store.FormatTime(opts.Now)
		detail := `{"both":true}`
		if !opts.Both {
			var loser int64
			switch opts.Keep {
			case c.FactID:
				loser = c.WinnerID
			case c.WinnerID:
				loser = c.FactID
			default:
				return refuse("fact %d is not in conflict %d; keep %d or %d, or say both", opts.Keep, id, c.FactID, c.WinnerID)
			}
			for _, f := range []int64{opts.Keep, loser} {
				var status string
				if err := tx.QueryRowContext(ctx, `SELECT status FROM facts WHERE id = ?`, f).Scan(&status); err != nil {
					return fmt.Errorf("read fact %d: %w", f, err)
				}
				if status != "active" {
					return refuse("fact %d is %s now, so conflict %d no longer stands as it was; see recollect why %d", f, status, id, f)
				}
			}
			var retracted any
			if opts.Bitemporal {
				retracted = now
			}
			if err := retire(ctx, tx, loser, opts.Keep, retracted); err != nil {
				return err
			}
			if err := store.LogMutation(ctx, tx, "supersede", factTarget(loser), opts.Actor, fmt.Sprintf("conflict %d resolved: fact %d kept", id, opts.Keep),
				fmt.Sprintf(`{"by":%d,"conflict":%d}`, opts.Keep, id)); err != nil {
				return err
			}
			res.Kept, res.Superseded = opts.Keep, loser
			detail = fmt.Sprintf(`{"kept":%d,"superseded":%d}`, opts.Keep, loser)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE conflicts SET resolved_at = ? WHERE id = ?`, now, id); err != nil {
			return fmt.Errorf("resolve conflict %d: %w", id, err)
		}
		return store.LogMutation(ctx, tx, "resolve", fmt.Sprintf("conflict:%d", id), opts.Actor, opts.Note, detail)
	})
	return res, err
}

// retire marks older superseded by newer: its valid time ends where
// newer's begins, and retracted (when not nil) sets its transaction-time
// end. Every supersession goes through it.
func retire(ctx context.Context, tx *store.Tx, older, newer int64, retracted any) error {
	if _, err := tx.ExecContext(ctx, `UPDATE facts SET status = 'superseded', superseded_by = ?,
		valid_until = COALESCE(valid_until, (SELECT COALESCE(valid_from, said_at, recorded_at) FROM facts WHERE id = ?)),
		retracted_at = COALESCE(?, retracted_at) WHERE id = ?`, newer, newer, retracted, older); err != nil {
		return fmt.Errorf("supersede fact %d: %w", older, err)
	}
	return nil
}

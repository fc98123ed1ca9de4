package pipeline

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store"
)

// ErrNoEvent means a capture cites an event seq that no event has.
var ErrNoEvent = errors.New("no event has that seq")

// Defaults of a captured fact: the agent heard it said, so it is more
// certain than a heuristic guess.
const (
	CaptureConfidence = 0.8
	CaptureImportance = 0.5
)

// CaptureResult says what Capture did with a fact.
type CaptureResult struct {
	// Stored is true when the fact was written as a new pending fact.
	Stored bool
	// Forgotten is true when the user asked to forget this fact: it is
	// not captured again.
	Forgotten bool
	// ID and Status are the pending fact's, new or already captured in
	// the session (a duplicate); unset when Forgotten.
	ID     int64
	Status string
}

// Capture writes c as a pending fact of session, as an agent captured it
// (producer "capture"), in one transaction: its text redacted as every
// write path's is, and — when sourceEvent is above 0 — the cited event's
// speaker and time taken (ErrNoEvent when there is none); otherwise a
// date the content opens with is when it was said (extract.StatedDate).
// The same fact captured twice in a session is stored once; a forgotten
// one never again.
func (p *Pipeline) Capture(ctx context.Context, session string, c extract.Candidate, sourceEvent int64) (CaptureResult, error) {
	var res CaptureResult
	red, err := p.redactor()
	if err != nil {
		return res, err
	}
	redacted := map[string]int64{}
	c.Content, c.CaptureNotes = red.Redact(c.Content, redacted), red.Redact(c.CaptureNotes, redacted)
	err = p.db.Tx(ctx, func(tx *store.Tx) error {
		if sourceEvent > 0 {
			if err := citeEvent(ctx, tx, sourceEvent, &c); err != nil {
				return err
			}
		}
		inserted, err := extract.InsertSessionFact(ctx, tx, session, "capture", "", c)
		if err != nil {
			return err
		}
		res.Stored = inserted
		if inserted {
			if err := sources.CountRedactions(ctx, tx, redacted); err != nil {
				return err
			}
		}
		return captureOutcome(ctx, tx, session, c.Content, &res)
	})
	return res, err
}

// citeEvent checks the cited event and takes its speaker and time.
func citeEvent(ctx context.Context, tx *store.Tx, seq int64, c *extract.Candidate) error {
	var role string
	var speaker, occurred sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT role, speaker, occurred_at FROM session_events WHERE seq = ?`, seq).Scan(&role, &speaker, &occurred)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("capture: event %d: %w", seq, ErrNoEvent)
	}
	if err != nil {
		return fmt.Errorf("look up event %d: %w", seq, err)
	}
	c.EventIDs = []int64{seq}
	c.SpeakerRole, c.Speaker = role, speaker.String
	if occurred.Valid {
		if t, err := store.ParseTime(occurred.String); err == nil {
			c.SaidAt = &t
		}
	}
	return nil
}

// captureOutcome reads what the capture left: a tombstone, or the pending
// fact (new or the session's earlier capture of the same text).
func captureOutcome(ctx context.Context, tx *store.Tx, session, content string, res *CaptureResult) error {
	digest := store.Digest(content)
	gone, err := integrate.Tombstoned(ctx, tx, digest)
	if err != nil {
		return err
	}
	if gone {
		res.Forgotten = true
		return nil
	}
	res.ID, res.Status, err = extract.Pending(ctx, tx, session, digest)
	if err != nil {
		return fmt.Errorf("read captured fact: %w", err)
	}
	return nil
}

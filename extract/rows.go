package extract

// The I layer's rows as forget and capture read and delete them: the
// extracted facts live beside the stage that writes them.

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/recollect/recollect/store"
)

// Wording is one extracted fact behind a fact being forgotten: its text
// and the events it cites.
type Wording struct {
	Content string
	Events  []int64
}

// Wordings returns the extracted facts that became fact id or share its
// digest, so a forget can find every event that said the sentence.
func Wordings(ctx context.Context, tx *store.Tx, id int64, digest string) ([]Wording, error) {
	rows, err := tx.QueryContext(ctx, `SELECT content, event_ids FROM session_facts WHERE fact_id = ?
		UNION ALL SELECT content, event_ids FROM session_facts WHERE digest = ?`, id, digest)
	if err != nil {
		return nil, fmt.Errorf("extracted facts of fact %d: %w", id, err)
	}
	defer rows.Close()
	var out []Wording
	for rows.Next() {
		var w Wording
		var ids string
		if err := rows.Scan(&w.Content, &ids); err != nil {
			return nil, fmt.Errorf("extracted facts of fact %d: %w", id, err)
		}
		// A citation list that does not parse cites nothing the forget
		// could follow; the wording still counts.
		var cited []int64
		if json.Unmarshal([]byte(ids), &cited) == nil {
			w.Events = cited
		}
		out = append(out, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("extracted facts of fact %d: %w", id, err)
	}
	return out, nil
}

// CitedAmong returns which of events an extracted fact cites, in one pass
// over the extracted facts' citations.
func CitedAmong(ctx context.Context, tx *store.Tx, events map[int64]bool) (map[int64]bool, error) {
	cited := map[int64]bool{}
	rows, err := tx.QueryContext(ctx, `SELECT CAST(j.value AS INTEGER) FROM session_facts sf, `+tx.Engine().JSONInts("sf.event_ids", "j")+` WHERE j.value IS NOT NULL`)
	if err != nil {
		return nil, fmt.Errorf("read extracted facts' citations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			return nil, fmt.Errorf("read extracted facts' citations: %w", err)
		}
		if events[seq] {
			cited[seq] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read extracted facts' citations: %w", err)
	}
	return cited, nil
}

// Digests returns digest with the digests of the extracted facts that
// became fact id: every wording a tombstone must refuse.
func Digests(ctx context.Context, tx *store.Tx, id int64, digest string) ([]string, error) {
	out, err := store.Column[string](ctx, tx, `SELECT ? UNION SELECT digest FROM session_facts WHERE fact_id = ?`, digest, id)
	if err != nil {
		return nil, fmt.Errorf("digests of fact %d: %w", id, err)
	}
	return out, nil
}

// ForgetFacts deletes the extracted facts that became fact id and any
// sharing its digest (theirs or the fact's), so a pending copy cannot
// bring the sentence back, and returns how many rows went.
func ForgetFacts(ctx context.Context, tx *store.Tx, id int64, digest string) (int, error) {
	n, err := store.Changed(ctx, tx, `DELETE FROM session_facts WHERE fact_id = ?1 OR digest = ?2
		OR digest IN (SELECT digest FROM session_facts WHERE fact_id = ?1)`, id, digest)
	if err != nil {
		return 0, fmt.Errorf("forget the extracted facts of fact %d: %w", id, err)
	}
	return n, nil
}

// Pending returns the id and status of the extracted fact session holds
// with digest: what a capture of that text left.
func Pending(ctx context.Context, tx *store.Tx, session, digest string) (id int64, status string, err error) {
	err = tx.QueryRowContext(ctx, `SELECT id, status FROM session_facts WHERE session_id = ? AND digest = ?`, session, digest).Scan(&id, &status)
	if err != nil {
		return 0, "", fmt.Errorf("read the extracted fact: %w", err)
	}
	return id, status, nil
}

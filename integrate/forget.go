package integrate

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/recollect/recollect/store"
)

// Forgetter says who forgets a fact and why; both go to the tombstone and
// the mutation log, never the fact's content.
type Forgetter struct {
	Actor  string
	Reason string
}

// Forgotten is what ForgetFact did beyond the rows it counts per table.
type Forgotten struct {
	// Entities counts the entities the fact named.
	Entities int
	// Unlinked counts older facts whose superseded_by pointed at the fact;
	// they stay superseded, pointing at nothing.
	Unlinked int
	// Tombstones counts the digests newly tombstoned.
	Tombstones int
}

// ForgetFact hard-deletes fact id and the knowledge rows that hang on it,
// inside tx: the fact and its full-text row, embeddings, entity links (and
// the entities left with no fact, with their aliases and edges), the
// co-mention strength it added, provenance, conflicts, and the summaries
// written since it arrived. Older facts it superseded are unlinked. A
// content-free tombstone for each of digests (the fact's and its extracted
// facts') stops the sentence from being integrated again, and the mutation
// log records who forgot it and why. rowsBy counts the deleted rows per
// table. The caller reads what it needs from the fact's provenance and
// recorded time (the raw events it came from, run reports written since)
// and deletes its extracted facts before calling: ForgetFact deletes the
// fact row.
func ForgetFact(ctx context.Context, tx *store.Tx, id int64, digests []string, by Forgetter, rowsBy map[string]int) (Forgotten, error) {
	var out Forgotten
	entities, err := store.Column[int64](ctx, tx, `SELECT DISTINCT entity_id FROM fact_entities WHERE fact_id = ? ORDER BY entity_id`, id)
	if err != nil {
		return out, fmt.Errorf("forget fact %d: %w", id, err)
	}
	out.Entities = len(entities)
	if err := weakenEdges(ctx, tx, entities, rowsBy); err != nil {
		return out, fmt.Errorf("forget fact %d: %w", id, err)
	}
	if out.Unlinked, err = store.Changed(ctx, tx, `UPDATE facts SET superseded_by = NULL WHERE superseded_by = ?`, id); err != nil {
		return out, fmt.Errorf("forget fact %d: %w", id, err)
	}
	for _, s := range []struct{ table, query string }{
		// A summary written since the fact arrived may quote or paraphrase
		// it; the next consolidation writes a fresh one.
		{"summaries", `DELETE FROM summaries WHERE created_at >= (SELECT recorded_at FROM facts WHERE id = ?1)`},
		{"embeddings", `DELETE FROM embeddings WHERE fact_id = ?1`},
		{"fact_entities", `DELETE FROM fact_entities WHERE fact_id = ?1`},
		{"fact_provenance", `DELETE FROM fact_provenance WHERE fact_id = ?1`},
		{"conflicts", `DELETE FROM conflicts WHERE fact_id = ?1 OR other_id = ?1 OR target_id = ?1`},
		{"facts", `DELETE FROM facts WHERE id = ?1`},
	} {
		n, err := store.Changed(ctx, tx, s.query, id)
		if err != nil {
			return out, fmt.Errorf("forget fact %d: %s: %w", id, s.table, err)
		}
		rowsBy[s.table] += n
		if s.table == "facts" && tx.Engine().TextIndexRows() {
			rowsBy["facts_fts"] += n
		}
	}
	if err := dropOrphans(ctx, tx, entities, rowsBy); err != nil {
		return out, fmt.Errorf("forget fact %d: %w", id, err)
	}
	if out.Tombstones, err = tombstone(ctx, tx, id, digests, len(entities), by); err != nil {
		return out, err
	}
	return out, nil
}

// tombstone keeps the content-free record of a forgotten fact: its
// digests (which stop re-extraction), who and why, in the tombstones table
// and the mutation log. It returns how many digests were newly tombstoned.
func tombstone(ctx context.Context, tx *store.Tx, id int64, digests []string, entities int, by Forgetter) (int, error) {
	var reason any
	if by.Reason != "" {
		reason = by.Reason
	}
	added := 0
	for _, d := range digests {
		n, err := store.Changed(ctx, tx, `INSERT INTO tombstones(digest, fact_id, actor, reason, created_at) VALUES (?,?,?,?,?)
			ON CONFLICT(digest) DO NOTHING`, d, id, by.Actor, reason, store.Now())
		if err != nil {
			return added, fmt.Errorf("forget fact %d: tombstone: %w", id, err)
		}
		added += n
	}
	detail, err := json.Marshal(map[string]any{"tombstones": len(digests), "entities_unlinked": entities})
	if err != nil {
		return added, fmt.Errorf("forget fact %d: encode mutation detail: %w", id, err)
	}
	return added, store.LogMutation(ctx, tx, "forget", fmt.Sprintf("fact:%d", id), by.Actor, by.Reason, string(detail))
}

// weakenEdges takes back the co-mention strength a fact added between
// each pair of its entities, deleting edges that fall to nothing.
func weakenEdges(ctx context.Context, tx *store.Tx, entities []int64, rowsBy map[string]int) error {
	for i := range entities {
		for j := i + 1; j < len(entities); j++ {
			a, b := min(entities[i], entities[j]), max(entities[i], entities[j])
			if _, err := store.Changed(ctx, tx, `UPDATE entity_edges SET strength = strength - 1, updated_at = ?
				WHERE a_id = ? AND b_id = ? AND relation = 'co_mention'`, store.Now(), a, b); err != nil {
				return fmt.Errorf("weaken edge %d-%d: %w", a, b, err)
			}
			n, err := store.Changed(ctx, tx, `DELETE FROM entity_edges WHERE a_id = ? AND b_id = ? AND relation = 'co_mention' AND strength <= 0`, a, b)
			if err != nil {
				return fmt.Errorf("drop edge %d-%d: %w", a, b, err)
			}
			rowsBy["entity_edges"] += n
		}
	}
	return nil
}

// dropOrphans deletes the entities (with their aliases and edges) that no
// fact mentions any more; the self entity stays.
func dropOrphans(ctx context.Context, tx *store.Tx, entities []int64, rowsBy map[string]int) error {
	for _, e := range entities {
		var orphan int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM entities WHERE id = ? AND is_self = 0
			AND NOT EXISTS (SELECT 1 FROM fact_entities WHERE entity_id = ?)`, e, e).Scan(&orphan); err != nil {
			return fmt.Errorf("check entity %d: %w", e, err)
		}
		if orphan == 0 {
			continue
		}
		for _, s := range []struct{ table, query string }{
			{"entity_aliases", `DELETE FROM entity_aliases WHERE entity_id = ?1`},
			{"entity_edges", `DELETE FROM entity_edges WHERE a_id = ?1 OR b_id = ?1`},
			{"entities", `DELETE FROM entities WHERE id = ?1`},
		} {
			n, err := store.Changed(ctx, tx, s.query, e)
			if err != nil {
				return fmt.Errorf("drop entity %d: %s: %w", e, s.table, err)
			}
			rowsBy[s.table] += n
		}
	}
	return nil
}

// Origin is what forgetting a stored fact reads of it first, to find
// everything else that holds its sentence: its wording and digest, when
// it was recorded, and the raw events its provenance cites.
type Origin struct {
	Content    string
	Digest     string
	RecordedAt string
	Events     []int64
}

// FactOrigin reads fact id's Origin; ok is false when no fact has that id.
func FactOrigin(ctx context.Context, q store.Querier, id int64) (o Origin, ok bool, err error) {
	err = q.QueryRowContext(ctx, `SELECT content, digest, recorded_at FROM facts WHERE id = ?`, id).Scan(&o.Content, &o.Digest, &o.RecordedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return o, false, nil
	}
	if err != nil {
		return o, false, fmt.Errorf("read fact %d: %w", id, err)
	}
	if o.Events, err = store.Column[int64](ctx, q, `SELECT event_seq FROM fact_provenance WHERE fact_id = ? AND event_seq IS NOT NULL`, id); err != nil {
		return o, false, fmt.Errorf("read fact %d's events: %w", id, err)
	}
	return o, true, nil
}

// MissingFact returns the first of ids that names no stored fact; ok is
// false when every one is stored.
func MissingFact(ctx context.Context, q store.Querier, ids []int64) (id int64, ok bool, err error) {
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(len(ids), start+500)]
		in, args := store.InList(chunk)
		found, err := store.Column[int64](ctx, q, `SELECT id FROM facts WHERE id IN (`+in+`)`, args...)
		if err != nil {
			return 0, false, fmt.Errorf("look up facts: %w", err)
		}
		for _, id := range chunk {
			if !slices.Contains(found, id) {
				return id, true, nil
			}
		}
	}
	return 0, false, nil
}

// FactWithDigest returns the stored fact of lowest id whose wording has
// digest; ok is false when there is none.
func FactWithDigest(ctx context.Context, q store.Querier, digest string) (id int64, ok bool, err error) {
	err = q.QueryRowContext(ctx, `SELECT id FROM facts WHERE digest = ? ORDER BY id LIMIT 1`, digest).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("find a fact with the same wording: %w", err)
	}
	return id, true, nil
}

// EventCited reports whether any stored fact's provenance cites raw event
// seq.
func EventCited(ctx context.Context, q store.Querier, seq int64) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM fact_provenance WHERE event_seq = ?`, seq).Scan(&n); err != nil {
		return false, fmt.Errorf("read event %d's citations: %w", seq, err)
	}
	return n > 0, nil
}

// Tombstoned reports whether a forgotten fact's tombstone holds digest:
// its sentence is not stored again.
func Tombstoned(ctx context.Context, q store.Querier, digest string) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM tombstones WHERE digest = ?`, digest).Scan(&n); err != nil {
		return false, fmt.Errorf("check tombstones: %w", err)
	}
	return n > 0, nil
}

// SummariesBefore counts the consolidation summaries written before t.
func SummariesBefore(ctx context.Context, q store.Querier, t time.Time) (int, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM summaries WHERE created_at < ?`, store.FormatTime(t)).Scan(&n); err != nil {
		return 0, fmt.Errorf("count summaries: %w", err)
	}
	return n, nil
}

// ForgetSummariesBefore deletes the consolidation summaries written before
// t, inside tx, and returns how many went.
func ForgetSummariesBefore(ctx context.Context, tx *store.Tx, t time.Time) (int, error) {
	n, err := store.Changed(ctx, tx, `DELETE FROM summaries WHERE created_at < ?`, store.FormatTime(t))
	if err != nil {
		return 0, fmt.Errorf("delete summaries: %w", err)
	}
	return n, nil
}

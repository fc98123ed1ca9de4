package pipeline

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/sqlite"
)

// reclaimableWhere selects the raw events prune may remove, over
// session_events aliased e. An event qualifies only when every condition
// holds: it is not conversation text (conversationText); extraction
// examined it (its seq is at or behind its conversation's watermark); no I
// fact (session_facts.event_ids) and no K fact (fact_provenance.event_seq)
// cites it; and it is not among its session's most recent working-memory
// events (parameter 1). The report and the delete use this one condition,
// so what is counted is what goes.
func reclaimableWhere(eng store.Engine) string {
	return `NOT (` + conversationText + `)
	AND e.seq <= COALESCE((SELECT w.last_seq FROM extract_watermarks w WHERE w.session_id = e.session_id), 0)
	AND e.seq NOT IN (SELECT p.event_seq FROM fact_provenance p WHERE p.event_seq IS NOT NULL)
	AND e.seq NOT IN (` + citedBySessionFacts(eng) + `)
	AND e.seq NOT IN (SELECT r.seq FROM (SELECT seq, row_number() OVER (PARTITION BY session_id ORDER BY seq DESC) AS rn
		FROM session_events) r WHERE r.rn <= ?)`
}

// conversationText matches the events prune always keeps: what the user
// and the agent wrote to each other (text messages) and the compaction
// summaries that stand for a session's earlier part. A message no fact
// covers is still memory: search finds it as an episode, and deleting it
// would lose the only record of what it said. Prune takes tool calls and
// their output, system notices and other artifacts.
const conversationText = `(e.event_type = 'message' AND e.role IN ('user', 'assistant') AND e.content_type = 'text')
	OR (e.event_type = 'artifact' AND e.content_type = 'text' AND e.metadata LIKE '%"compact_summary":true%')`

// citedBySessionFacts selects the seqs of the events I facts cite.
func citedBySessionFacts(eng store.Engine) string {
	return `SELECT CAST(j.value AS INTEGER) FROM session_facts s, ` + eng.JSONInts("s.event_ids", "j") + ` WHERE j.value IS NOT NULL`
}

// PruneOptions select what a prune does beyond reporting.
type PruneOptions struct {
	// Apply deletes the reclaimable events; without it prune only reports.
	Apply bool
	// Vacuum rebuilds the file after deleting so the space returns to the
	// file system.
	Vacuum bool
	// Actor names who pruned in the mutation log (cli, retention, …).
	Actor string
}

// PruneReport says what prune found and, when applied, removed.
type PruneReport struct {
	Applied bool `json:"applied"`
	// Events and Bytes are the reclaimable events and their content bytes;
	// when Applied, exactly those were deleted.
	Events int   `json:"events"`
	Bytes  int64 `json:"bytes"`
	// Ranges are the removed (or removable) seq ranges, inclusive.
	Ranges [][2]int64 `json:"ranges"`
	// Takes counts those events by event type (tool_call, tool_result,
	// artifact, message for system notices …).
	Takes map[string]int `json:"takes"`
	// Kept explains why the other events stay.
	Kept KeptCounts `json:"kept"`
	// WorkingMemory is the per-session window of recent events kept.
	WorkingMemory int `json:"working_memory"`
	// FileBefore and FileAfter are the file sizes around a vacuum; nil
	// when no vacuum ran.
	FileBefore *int64 `json:"file_bytes_before,omitempty"`
	FileAfter  *int64 `json:"file_bytes_after,omitempty"`
	// Window is what is past retention.window, deleted first when
	// applied; nil when no window is set.
	Window *WindowReport `json:"window,omitempty"`
	// Measured names what the sizes are of: "file" (SQLite's memory.db) or
	// "schema" (the store's schema on a PostgreSQL server); empty when no
	// vacuum ran.
	Measured string `json:"measured,omitempty"`
}

// KeptCounts counts events prune keeps, by the first reason that keeps them.
type KeptCounts struct {
	// Conversation counts the user's and the agent's text messages and the
	// compaction summaries, which prune never removes.
	Conversation  int `json:"conversation"`
	Unexamined    int `json:"unexamined"`
	Cited         int `json:"cited"`
	WorkingMemory int `json:"working_memory"`
}

// Prune reports, and with opts.Apply removes, the raw events that no
// knowledge needs any more: tool calls and their output, system notices and
// other artifacts that extraction has examined and no fact cites. The
// conversation's text is never removed. Facts, entities and embeddings are
// never touched — except that, under retention.window, what is past the
// window goes first, facts included (enforceWindow).
func (p *Pipeline) Prune(ctx context.Context, opts PruneOptions) (PruneReport, error) {
	rep := PruneReport{Ranges: [][2]int64{}, Takes: map[string]int{}, WorkingMemory: p.workingMemory()}
	if opts.Actor == "" {
		opts.Actor = "cli"
	}
	var err error
	if opts.Apply {
		rep.Window, err = p.enforceWindow(ctx, opts.Actor)
	} else {
		rep.Window, err = p.PastWindow(ctx)
	}
	if err != nil {
		return rep, err
	}
	err = p.db.Tx(ctx, func(tx *store.Tx) error {
		where := reclaimableWhere(tx.Engine())
		if err := reclaimable(ctx, tx, rep.WorkingMemory, &rep); err != nil {
			return err
		}
		if err := keptCounts(ctx, tx, rep.WorkingMemory, &rep.Kept); err != nil {
			return err
		}
		if !opts.Apply || rep.Events == 0 {
			return nil
		}
		// Their dedupe keys stay, so a re-read transcript cannot copy them back.
		if _, err := tx.ExecContext(ctx, `INSERT INTO pruned_keys(dedupe_key)
			SELECT e.dedupe_key FROM session_events e WHERE e.dedupe_key IS NOT NULL AND `+where+`
			ON CONFLICT(dedupe_key) DO NOTHING`, rep.WorkingMemory); err != nil {
			return fmt.Errorf("prune events: keep their dedupe keys: %w", err)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM session_events WHERE seq IN (SELECT e.seq FROM session_events e WHERE `+where+`)`, rep.WorkingMemory)
		if err != nil {
			return fmt.Errorf("prune events: %w", err)
		}
		if n, _ := res.RowsAffected(); int(n) != rep.Events {
			return fmt.Errorf("prune events: counted %d but would delete %d; nothing deleted", rep.Events, n)
		}
		detail, err := jsonString(map[string]any{"events": rep.Events, "bytes": rep.Bytes, "ranges": rep.Ranges, "working_memory": rep.WorkingMemory})
		if err != nil {
			return err
		}
		return store.LogMutation(ctx, tx, "prune", "events", opts.Actor, "reclaimable by reachability", detail)
	})
	if err != nil {
		return rep, err
	}
	rep.Applied = opts.Apply
	if opts.Apply && opts.Vacuum {
		before, after, of, err := p.vacuum(ctx)
		if err != nil {
			return rep, err
		}
		rep.FileBefore, rep.FileAfter, rep.Measured = &before, &after, of
	}
	return rep, nil
}

func (p *Pipeline) workingMemory() int {
	if n := p.Config.Extraction.WorkingMemorySize; n > 0 {
		return n
	}
	return 0
}

// Reclaimable is what prune would delete now, without deleting: the
// reclaimable events' count, bytes, types and seq ranges, and the
// working-memory window that keeps the rest.
func (p *Pipeline) Reclaimable(ctx context.Context) (PruneReport, error) {
	rep := PruneReport{WorkingMemory: p.workingMemory()}
	err := reclaimable(ctx, p.db, rep.WorkingMemory, &rep)
	return rep, err
}

// LastPrune is when prune last deleted events and how many it deleted
// (nil when its log entry does not say); at is "" when prune never ran.
func (p *Pipeline) LastPrune(ctx context.Context) (at string, events *int, err error) {
	var detail string
	err = p.db.QueryRowContext(ctx, `SELECT created_at, COALESCE(detail, '') FROM mutation_log WHERE op = 'prune' ORDER BY id DESC LIMIT 1`).Scan(&at, &detail)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", nil, nil
	case err != nil:
		return "", nil, fmt.Errorf("read last prune: %w", err)
	}
	if pd, err := decodePruneDetail(detail); err == nil {
		events = &pd.Events
	}
	return at, events, nil
}

// reclaimable fills the count, bytes, types and seq ranges of reclaimable
// events.
func reclaimable(ctx context.Context, q store.Conn, window int, rep *PruneReport) error {
	rows, err := q.QueryContext(ctx, `SELECT e.seq, octet_length(e.content), e.event_type FROM session_events e WHERE `+reclaimableWhere(q.Engine())+` ORDER BY e.seq`, window)
	if err != nil {
		return fmt.Errorf("find reclaimable events: %w", err)
	}
	defer rows.Close()
	if rep.Takes == nil {
		rep.Takes = map[string]int{}
	}
	var prev int64 = -1
	for rows.Next() {
		var seq, n int64
		var typ string
		if err := rows.Scan(&seq, &n, &typ); err != nil {
			return fmt.Errorf("find reclaimable events: %w", err)
		}
		rep.Events++
		rep.Takes[typ]++
		rep.Bytes += n
		if last := len(rep.Ranges) - 1; last >= 0 && rep.Ranges[last][1] == prev && nextSeqAdjacent(prev, seq) {
			rep.Ranges[last][1] = seq
		} else {
			rep.Ranges = append(rep.Ranges, [2]int64{seq, seq})
		}
		prev = seq
	}
	return rows.Err()
}

// nextSeqAdjacent joins consecutive seqs into one range. Seqs are
// AUTOINCREMENT, so a gap means an event in between stays (or was already
// pruned, which still reads correctly as a separate range).
func nextSeqAdjacent(prev, seq int64) bool { return seq == prev+1 }

// keptCounts counts the events prune keeps, by reason.
func keptCounts(ctx context.Context, q store.Conn, window int, k *KeptCounts) error {
	err := q.QueryRowContext(ctx, `SELECT
		COALESCE(sum(CASE WHEN `+conversationText+` THEN 1 ELSE 0 END), 0),
		COALESCE(sum(CASE WHEN NOT (`+conversationText+`) AND e.seq > COALESCE((SELECT w.last_seq FROM extract_watermarks w WHERE w.session_id = e.session_id), 0) THEN 1 ELSE 0 END), 0),
		COALESCE(sum(CASE WHEN NOT (`+conversationText+`) AND e.seq <= COALESCE((SELECT w.last_seq FROM extract_watermarks w WHERE w.session_id = e.session_id), 0)
			AND (e.seq IN (SELECT p.event_seq FROM fact_provenance p WHERE p.event_seq IS NOT NULL)
				OR e.seq IN (`+citedBySessionFacts(q.Engine())+`)) THEN 1 ELSE 0 END), 0),
		count(*)
		FROM session_events e`).Scan(&k.Conversation, &k.Unexamined, &k.Cited, &k.WorkingMemory)
	if err != nil {
		return fmt.Errorf("count kept events: %w", err)
	}
	var reclaim int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM session_events e WHERE `+reclaimableWhere(q.Engine()), window).Scan(&reclaim); err != nil {
		return fmt.Errorf("count kept events: %w", err)
	}
	// What is neither unexamined, cited nor reclaimable is kept only by the
	// working-memory window.
	k.WorkingMemory -= k.Conversation + k.Unexamined + k.Cited + reclaim
	return nil
}

// vacuum rebuilds the store and returns its footprint before and after,
// and what that is of (store.Engine.Footprint).
func (p *Pipeline) vacuum(ctx context.Context) (before, after int64, of string, err error) {
	eng := p.db.Engine()
	if before, of, err = eng.Footprint(ctx, p.db); err != nil {
		return 0, 0, of, err
	}
	if err := p.db.Compact(ctx); err != nil {
		return before, before, of, err
	}
	after, _, err = eng.Footprint(ctx, p.db)
	return before, after, of, err
}

// FileBytes is the on-disk size of an SQLite store (sqlite.FileBytes).
func FileBytes(path string) int64 { return sqlite.FileBytes(path) }

// CacheBytes is the size of the vector caches in data directory dir: each
// space's code file and vector file (vector.CodeFilePattern,
// vector.VectorFilePattern), which searches map and the embedding step
// writes; deleting them costs only speed.
func CacheBytes(dir string) int64 {
	var n int64
	for _, pattern := range []string{vector.CodeFilePattern, vector.VectorFilePattern} {
		files, _ := filepath.Glob(filepath.Join(dir, pattern)) // the patterns are well formed
		for _, f := range files {
			if fi, err := os.Stat(f); err == nil {
				n += fi.Size()
			}
		}
	}
	return n
}

// pruneDetail decodes a prune mutation-log entry, for LastPrune and tests.
type pruneDetail struct {
	Events int        `json:"events"`
	Bytes  int64      `json:"bytes"`
	Ranges [][2]int64 `json:"ranges"`
}

func decodePruneDetail(s string) (pruneDetail, error) {
	var d pruneDetail
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		return d, fmt.Errorf("decode prune detail: %w", err)
	}
	return d, nil
}

package sources

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/recollect/recollect/store"
)

// insertEventSQL writes one event unless its dedupe key is already stored
// or was stored and pruned since. line_uuid (?15) is the id of the line
// it came from, where the transcript kind gives lines one.
const insertEventSQL = `INSERT INTO session_events
	(session_id, source, source_file, source_offset, role, speaker, event_type, content_type,
	 content, content_ref, metadata, occurred_at, recorded_at, dedupe_key, line_uuid)
	SELECT ?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15
	WHERE NOT EXISTS (SELECT 1 FROM pruned_keys WHERE dedupe_key = ?14)
	ON CONFLICT(dedupe_key) DO NOTHING`

// storedElsewhereSQL finds the same event of the same line (session and
// line id) already stored from another file: a copied transcript, or a
// resumed session's file that restates the old one's lines.
const storedElsewhereSQL = `SELECT count(*) FROM session_events x
	WHERE x.session_id = ? AND x.line_uuid = ? AND x.event_type = ? AND x.content = ? AND COALESCE(x.source_file, '') <> ?`

// maxOccurrences bounds the probe for a free occurrence index.
const maxOccurrences = 1 << 20

// batchTx is the state of one write transaction.
type batchTx struct {
	ctx      context.Context
	tx       *store.Tx
	ins      *sql.Stmt
	st       *passState
	machine  string
	now      string
	sessions map[string]*span
	skipped  map[string]int64
	redacted map[string]int64
	events   int64
	dups     int64
	firstSID string
	// fingerprint is the file's fingerprint at the batch's end offset.
	fingerprint string
}

// span is the time window a batch saw for one session.
type span struct {
	project, first, last string
}

// commit stores a batch's events and the file's new offset in one
// transaction. If the stored progress is not what this pass last saw,
// another copier got there first: nothing is written and errMoved returned.
func (c *Copier) commit(ctx context.Context, st *passState, batch []mappedLine, end int64, rep *Report) error {
	// Make room under retention.disk_budget (or refuse) before writing.
	if err := c.DB.EnsureRoom(ctx); err != nil {
		return err
	}
	var b *batchTx
	err := c.DB.Tx(ctx, func(tx *store.Tx) error {
		// Copies of one file by several processes or machines commit one
		// after another: the offset compare below and the identical-line
		// probe then see what the one before committed, so each line is
		// stored once.
		if err := tx.Engine().Serialize(ctx, tx, "copy "+st.f.path); err != nil {
			return err
		}
		cur, err := readProgress(ctx, tx, c.Machine, st.f.path)
		if err != nil {
			return err
		}
		if cur != st.stored {
			return errMoved
		}
		ins, err := tx.PrepareContext(ctx, insertEventSQL)
		if err != nil {
			return fmt.Errorf("prepare event insert: %w", err)
		}
		defer ins.Close()
		b = &batchTx{ctx: ctx, tx: tx, ins: ins, st: st, machine: c.Machine, now: store.Now(), sessions: map[string]*span{},
			skipped: map[string]int64{}, redacted: map[string]int64{}}
		for i := range batch {
			if err := b.line(&batch[i]); err != nil {
				return err
			}
		}
		return b.finish(end)
	})
	if err != nil {
		return err
	}
	st.stored = progress{exists: true, offset: end, lines: st.lineNo, rereadUntil: st.rereadUntil, fingerprint: b.fingerprint,
		identity: st.f.identity, dev: st.dev, ino: st.ino, hasID: st.hasID, machine: c.Machine}
	rep.Lines += int64(len(batch))
	rep.Events += b.events
	rep.Duplicates += b.dups
	for _, ml := range batch {
		if ml.bad {
			rep.BadLines++
		}
	}
	for k, v := range b.skipped {
		rep.Skipped[k] += v
	}
	for k, v := range b.redacted {
		rep.Redacted[k] += v
	}
	return nil
}

// line stores one line's events. Its skipped and redaction counts are
// added unless the line was already stored by an earlier read.
func (b *batchTx) line(ml *mappedLine) error {
	inserted := 0
	for i := range ml.events {
		ok, err := b.event(ml, i)
		if err != nil {
			return err
		}
		if ok {
			inserted++
		}
	}
	if ml.mayBeDone && inserted == 0 {
		return nil // counted when it was first read
	}
	for _, s := range ml.skipped {
		b.skipped[s]++
	}
	for k, v := range ml.redacted {
		b.redacted[k] += v
	}
	return nil
}

// event inserts event i of a line. On a plain append the occurrence index
// is found by probing: an identical earlier line already holds index 0.
func (b *batchTx) event(ml *mappedLine, i int) (bool, error) {
	ev := &ml.events[i]
	if err := ev.Validate(); err != nil {
		b.skipped["invalid_event"]++
		return false, nil
	}
	if err := b.session(ev, ml.cwd); err != nil {
		return false, err
	}
	if i < len(ml.keys) && ml.keys[i] != "" {
		// The mapping named this event: stored once whichever line or
		// file (re)states it.
		ev.DedupeKey = keyedDedupe(b.st.f.kind, ml.keys[i])
		ok, err := b.insert(ev)
		if err == nil && !ok {
			b.dups++
		}
		return ok, err
	}
	if dup, err := b.storedElsewhere(ev); err != nil || dup {
		if dup {
			b.dups++
		}
		return false, err
	}
	if ml.occ < 0 { // probe; later events of the line reuse the index
		for occ := int64(0); occ < maxOccurrences; occ++ {
			ev.DedupeKey = dedupeKey(b.st.f.identity, ml.digest, occ, i)
			ok, err := b.insert(ev)
			if err != nil || ok {
				ml.occ = occ
				return ok, err
			}
		}
		return false, fmt.Errorf("store %s line %d: too many identical lines", b.st.f.path, ml.number)
	}
	ev.DedupeKey = dedupeKey(b.st.f.identity, ml.digest, ml.occ, i)
	ok, err := b.insert(ev)
	if err == nil && !ok {
		b.dups++
	}
	return ok, err
}

func (b *batchTx) insert(ev *store.Event) (bool, error) {
	var occurred any
	if ev.OccurredAt != nil {
		occurred = store.FormatTime(*ev.OccurredAt)
	}
	// A prepared statement's arguments do not pass through the store's
	// own statements, so the engine's Args is applied here: a line's text
	// may hold a NUL (a JSON "\u0000"), which PostgreSQL cannot store.
	res, err := b.ins.ExecContext(b.ctx, b.tx.Engine().Args([]any{ev.SessionID, ev.Source, ev.SourceFile, ev.SourceOffset, ev.Role,
		nullStr(ev.Speaker), ev.EventType, ev.ContentType, ev.Content, nullStr(ev.ContentRef),
		nullStr(string(ev.Metadata)), occurred, b.now, ev.DedupeKey, nullStr(lineUUID(ev))})...)
	if err != nil {
		return false, fmt.Errorf("store event of %s at byte %d: %w", ev.SourceFile, *ev.SourceOffset, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store event: %w", err)
	}
	if n == 1 {
		b.events++
	}
	return n == 1, nil
}

// storedElsewhere reports whether ev's line is already stored for its
// session from another file.
func (b *batchTx) storedElsewhere(ev *store.Event) (bool, error) {
	id := lineUUID(ev)
	if id == "" {
		return false, nil
	}
	var n int
	if err := b.tx.QueryRowContext(b.ctx, storedElsewhereSQL, b.tx.Engine().Args([]any{ev.SessionID, id, ev.EventType, ev.Content, ev.SourceFile})...).Scan(&n); err != nil {
		return false, fmt.Errorf("check %s for lines stored from another file: %w", ev.SourceFile, err)
	}
	return n > 0, nil
}

// lineUUID is the id of the transcript line ev came from, for the kinds
// whose lines carry one (Claude Code, Cursor); "" otherwise.
func lineUUID(ev *store.Event) string {
	if ev.Source != ClaudeCode && ev.Source != Cursor || len(ev.Metadata) == 0 {
		return ""
	}
	var meta struct {
		UUID string `json:"uuid"`
	}
	if json.Unmarshal(ev.Metadata, &meta) != nil {
		return ""
	}
	return meta.UUID
}

// session makes sure ev's session exists (events reference it) and widens
// the batch's time window for it.
func (b *batchTx) session(ev *store.Event, cwd string) error {
	at := b.now
	if ev.OccurredAt != nil {
		at = store.FormatTime(*ev.OccurredAt)
	}
	sp, ok := b.sessions[ev.SessionID]
	if !ok {
		t, _ := store.ParseTime(at)
		if err := store.TouchSession(b.ctx, b.tx, ev.SessionID, ev.Source, cwd, b.st.f.path, t); err != nil {
			return err
		}
		b.sessions[ev.SessionID] = &span{project: cwd, first: at, last: at}
		if b.firstSID == "" {
			b.firstSID = ev.SessionID
		}
		return nil
	}
	sp.first, sp.last = min(sp.first, at), max(sp.last, at)
	if sp.project == "" {
		sp.project = cwd
	}
	return nil
}

// finish widens session windows, adds the counters and moves the file's
// offset, all inside the batch's transaction.
func (b *batchTx) finish(end int64) error {
	ctx, tx := b.ctx, b.tx
	for _, id := range slices.Sorted(maps.Keys(b.sessions)) {
		sp := b.sessions[id]
		for _, at := range []string{sp.first, sp.last} {
			t, err := store.ParseTime(at)
			if err != nil {
				t = time.Now()
			}
			if err := store.TouchSession(ctx, tx, id, b.st.f.kind, sp.project, b.st.f.path, t); err != nil {
				return err
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(b.skipped)) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO skipped_records(source, record_type, count) VALUES (?,?,?)
			ON CONFLICT(source, record_type) DO UPDATE SET count = skipped_records.count + excluded.count`, b.st.f.kind, k, b.skipped[k]); err != nil {
			return fmt.Errorf("count skipped %s: %w", k, err)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(b.redacted)) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO redactions(kind, count) VALUES (?,?)
			ON CONFLICT(kind) DO UPDATE SET count = redactions.count + excluded.count`, k, b.redacted[k]); err != nil {
			return fmt.Errorf("count redactions %s: %w", k, err)
		}
	}
	fp, err := fingerprint(b.st.file, end)
	if err != nil {
		return fileError(b.st.f.path, err)
	}
	b.fingerprint = fp
	var dev, ino any
	if b.st.hasID {
		dev, ino = b.st.dev, b.st.ino
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO source_files(machine, path, kind, session_id, fingerprint, size, "offset", lines, missing, updated_at, reread_until, identity, dev, ino)
		VALUES (?,?,?,?,?,?,?,?,0,?,?,?,?,?)
		ON CONFLICT(machine, path) DO UPDATE SET kind = excluded.kind,
			session_id = COALESCE(source_files.session_id, excluded.session_id),
			fingerprint = excluded.fingerprint, size = excluded.size, "offset" = excluded."offset",
			lines = excluded.lines, missing = 0, updated_at = excluded.updated_at, reread_until = excluded.reread_until,
			identity = excluded.identity, dev = excluded.dev, ino = excluded.ino`,
		b.machine, b.st.f.path, b.st.f.kind, nullStr(b.firstSID), fp, b.st.size, end, b.st.lineNo, b.now, b.st.rereadUntil,
		b.st.f.identity, dev, ino)
	if err != nil {
		return fmt.Errorf("save progress of %s: %w", b.st.f.path, err)
	}
	if b.st.stored.exists && b.st.stored.machine != b.machine {
		// The row recorded before machines were told apart is this
		// machine's from now on: the one above continues it.
		if _, err := tx.ExecContext(ctx, `DELETE FROM source_files WHERE machine = '' AND path = ?`, b.st.f.path); err != nil {
			return fmt.Errorf("take over progress of %s: %w", b.st.f.path, err)
		}
	}
	return nil
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

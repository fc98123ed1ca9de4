package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/inspect"
	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
)

// ErrFactNotFound means a fact id given to forget is not stored.
var ErrFactNotFound = errors.New("fact not found")

// ForgetOptions say who forgets and why; both go to the tombstone and the
// mutation log, never the fact's content.
type ForgetOptions struct {
	Actor  string
	Reason string
}

// ForgetReport says what forget removed.
type ForgetReport struct {
	Facts []int64 `json:"facts"`
	// Rows is the number of rows removed, all tables together.
	Rows int `json:"rows"`
	// RowsBy counts them per table; the FTS rows are removed by the
	// tables' delete triggers, one per fact and per I fact.
	RowsBy map[string]int `json:"rows_by_table"`
	// Tombstones is how many content digests now stop re-extraction.
	Tombstones int `json:"tombstones"`
	// ScrubbedRuns counts run reports whose consolidation summary text was
	// removed (the run's counts stay).
	ScrubbedRuns int `json:"scrubbed_run_reports,omitempty"`
	// Unlinked counts older facts whose superseded_by pointed at a
	// forgotten fact; they stay superseded, pointing at nothing.
	Unlinked int `json:"unlinked_predecessors,omitempty"`
	// ScrubbedEvents counts raw events that held the sentence but are
	// still cited by another fact: their text, reference and metadata are
	// replaced by ForgottenText. Events nothing else cites are deleted
	// (RowsBy["session_events"]).
	ScrubbedEvents int `json:"scrubbed_events,omitempty"`
	// WAL says whether the write-ahead log, which still holds the old
	// pages until a checkpoint, was emptied: "truncated", or why not.
	WAL string `json:"wal"`
	// Residue is set when the engine keeps deleted text somewhere (on
	// PostgreSQL, where the server keeps it; WAL says the same).
	Residue bool `json:"residue,omitempty"`
	// Engine is the store's engine; on postgres WAL says where the server
	// still keeps the old text.
	Engine string `json:"engine"`
	// InspectPage is the inspect page in the data directory that forget
	// removed: a snapshot of the store, it may show what was forgotten.
	InspectPage string `json:"removed_inspect_page,omitempty"`
}

// removeInspectPage removes the inspect page of the data directory, which
// `recollect inspect` wrote as the store was and may quote what forget
// just removed; inspect writes it again.
func (p *Pipeline) removeInspectPage(rep *ForgetReport) error {
	if len(rep.Facts) == 0 && rep.RowsBy["session_events"] == 0 && rep.ScrubbedEvents == 0 {
		return nil
	}
	page := filepath.Join(p.Dir(), inspect.PageFile)
	err := os.Remove(page)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("forget: remove %s, which may show what was forgotten: %w", page, err)
	}
	rep.InspectPage = page
	return nil
}

// ForgottenText replaces the content of a raw event that held a
// forgotten sentence and is still cited by another fact.
const ForgottenText = "[forgotten]"

// Forget hard-deletes facts: each fact, its FTS row (securely: the term
// leaves the index at once), embeddings, entity links (and entities left
// with no fact), co-mention edge strength it added, provenance, conflicts,
// summaries written since it arrived (the rows, and the text in those
// runs' reports), and the I facts behind it (or sharing
// its digest, so a pending copy cannot bring it back). A content-free tombstone
// (digest, id, actor, reason, time) stops the same sentence from being
// extracted again. The raw events the fact came from, and any event whose
// text holds one of its wordings, are deleted, or emptied to ForgottenText
// when another fact still cites them (the events index follows, with FTS5
// secure-delete). An unknown id forgets nothing; the rest go in
// transactions of ForgetChunk facts; integrate.ForgetFact deletes each
// fact's knowledge rows and writes its tombstone, beside the code that
// writes them. Afterwards the write-ahead log is checkpointed and truncated,
// so the old pages leave the disk too (the store zeroes deleted content:
// secure_delete is on for every connection).
func (p *Pipeline) Forget(ctx context.Context, ids []int64, opts ForgetOptions) (ForgetReport, error) {
	rep := ForgetReport{Facts: []int64{}, RowsBy: map[string]int{}, Engine: p.db.Engine().Name()}
	if opts.Actor == "" {
		opts.Actor = "cli"
	}
	// Every id must be stored before anything goes: an unknown id forgets
	// nothing.
	if err := p.checkFactsExist(ctx, ids); err != nil {
		return ForgetReport{Facts: []int64{}, RowsBy: map[string]int{}}, err
	}
	// The facts go in transactions of at most ForgetChunk: each commits
	// whole (a crash leaves every fact either forgotten with its events
	// or untouched), and none holds the store's write lock for long.
	for start := 0; start < len(ids); start += ForgetChunk {
		chunk := ids[start:min(len(ids), start+ForgetChunk)]
		err := p.db.Tx(ctx, func(tx *store.Tx) error {
			if err := tx.SecureDelete(ctx); err != nil {
				return fmt.Errorf("forget: %w", err)
			}
			events := map[int64]bool{}
			for _, id := range chunk {
				if slices.Contains(rep.Facts, id) {
					continue // named twice, or a twin of one already forgotten
				}
				rep.Facts = append(rep.Facts, id)
				if err := forgetOne(ctx, tx, id, opts, events, &rep); err != nil {
					return err
				}
			}
			return forgetEvents(ctx, tx, events, &rep)
		})
		if err != nil {
			if start == 0 {
				return ForgetReport{Facts: []int64{}, RowsBy: map[string]int{}}, err
			}
			return rep, fmt.Errorf("forget: %d facts forgotten before this failure: %w", start, err)
		}
	}
	for _, n := range rep.RowsBy {
		rep.Rows += n
	}
	// The code files cache sign codes, the forgotten facts' among them.
	if err := vector.RemoveCodeFiles(p.Dir()); err != nil {
		return rep, fmt.Errorf("forget: %w", err)
	}
	if err := p.removeInspectPage(&rep); err != nil {
		return rep, err
	}
	rep.WAL, rep.Residue = p.truncateWAL(ctx)
	return rep, nil
}

// ForgetChunk is how many facts one forget transaction takes.
const ForgetChunk = 250

// checkFactsExist refuses ids naming a fact that is not stored.
func (p *Pipeline) checkFactsExist(ctx context.Context, ids []int64) error {
	id, missing, err := integrate.MissingFact(ctx, p.db, ids)
	if err != nil {
		return fmt.Errorf("forget: %w", err)
	}
	if missing {
		return fmt.Errorf("forget fact %d: %w; list candidates with recollect forget --matching QUERY --dry-run", id, ErrFactNotFound)
	}
	return nil
}

// truncateWAL checkpoints the store and empties its write-ahead log, which
// keeps the pages as they were before forget until then. A reader that
// holds an old snapshot (a running daemon mid-search) can keep it; that is
// said, not hidden.
func (p *Pipeline) truncateWAL(ctx context.Context) (wal string, residue bool) {
	if residue := p.db.Engine().DeleteResidue(); residue != "" {
		return residue, true
	}
	complete, err := p.db.Checkpoint(ctx)
	if err != nil {
		return "not checkpointed (" + err.Error() + "); the old text leaves memory.db-wal at the next checkpoint", false
	}
	if !complete {
		return "not truncated: another process is reading the store; the old text leaves memory.db-wal at its next checkpoint", false
	}
	return "truncated", false
}

// sourceEvents adds to events the raw events fact id (whose origin is o)
// came from (cited by its provenance or by the extracted facts behind it)
// and every event whose text holds one of its wordings. Each lookup goes
// through an index: the provenance by fact, the extracted facts by fact id
// and by digest, and
// the events' full-text index for the wordings (a candidate is an event
// holding the wording's words in order; its text is then checked for the
// wording itself), so the cost follows the fact, not the store.
func sourceEvents(ctx context.Context, tx *store.Tx, id int64, o integrate.Origin, events map[int64]bool) error {
	for _, s := range o.Events {
		events[s] = true
	}
	wordings := []string{o.Content}
	behind, err := extract.Wordings(ctx, tx, id, o.Digest)
	if err != nil {
		return fmt.Errorf("find its events: %w", err)
	}
	for _, w := range behind {
		for _, s := range w.Events {
			events[s] = true
		}
		if !slices.Contains(wordings, w.Content) {
			wordings = append(wordings, w.Content)
		}
	}
	for _, w := range wordings {
		if err := eventsHolding(ctx, tx, w, events); err != nil {
			return err
		}
	}
	return nil
}

// eventsHolding adds the events whose text holds w: the full-text index
// finds those with w's words as a phrase, and each is checked for w.
func eventsHolding(ctx context.Context, tx *store.Tx, w string, events map[int64]bool) error {
	words := phraseWords(w)
	if len(w) == 0 || len(words) == 0 {
		return nil
	}
	eng := tx.Engine()
	rows, err := tx.QueryContext(ctx, `SELECT e.seq, e.content FROM `+eng.TextHits(store.EventText)+` k JOIN session_events e ON e.seq = k.id`,
		eng.TextQuery(store.TextQuery{strings.Join(words, " ")}))
	if err != nil {
		return fmt.Errorf("find events holding it: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		var text string
		if err := rows.Scan(&seq, &text); err != nil {
			return fmt.Errorf("find events holding it: %w", err)
		}
		if strings.Contains(text, w) {
			events[seq] = true
		}
	}
	return rows.Err()
}

// phraseWords are the words of s as the full-text index splits them:
// runs of letters and digits, lowercased.
func phraseWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}

// forgetEvents takes the sentence out of the raw events: an event no
// remaining fact cites is deleted (its dedupe key kept, as prune keeps it,
// so a re-read transcript cannot copy it back); one still cited keeps its
// row with ForgottenText instead of its text. The events index follows by
// trigger, with FTS5 secure-delete on.
func forgetEvents(ctx context.Context, tx *store.Tx, events map[int64]bool, rep *ForgetReport) error {
	if len(events) == 0 {
		return nil
	}
	// Which of them extracted facts still cite: one pass over the
	// extracted facts' citations for all the events, not one per event.
	stillCited, err := extract.CitedAmong(ctx, tx, events)
	if err != nil {
		return fmt.Errorf("forget events: %w", err)
	}
	for _, seq := range slices.Sorted(maps.Keys(events)) {
		cited := stillCited[seq]
		if !cited {
			var err error
			if cited, err = integrate.EventCited(ctx, tx, seq); err != nil {
				return fmt.Errorf("forget event %d: %w", seq, err)
			}
		}
		if cited {
			n, err := store.Changed(ctx, tx, `UPDATE session_events SET content = ?2, content_ref = NULL, metadata = NULL WHERE seq = ?1`, seq, ForgottenText)
			if err != nil {
				return fmt.Errorf("forget event %d: scrub: %w", seq, err)
			}
			rep.ScrubbedEvents += n
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO pruned_keys(dedupe_key)
			SELECT dedupe_key FROM session_events WHERE seq = ? AND dedupe_key IS NOT NULL
			ON CONFLICT(dedupe_key) DO NOTHING`, seq); err != nil {
			return fmt.Errorf("forget event %d: keep its dedupe key: %w", seq, err)
		}
		n, err := store.Changed(ctx, tx, `DELETE FROM session_events WHERE seq = ?`, seq)
		if err != nil {
			return fmt.Errorf("forget event %d: %w", seq, err)
		}
		rep.RowsBy["session_events"] += n
		if ftsTables(tx) {
			rep.RowsBy["events_fts"] += n
		}
	}
	return nil
}

// forgetOne forgets fact id: the raw events it came from join events,
// run reports written since it arrived lose their integrate summary, its
// extracted facts (and those sharing its digest) are deleted, and
// integrate.ForgetFact deletes the fact with its knowledge rows and
// tombstones its digests. Other facts with the same wording follow.
func forgetOne(ctx context.Context, tx *store.Tx, id int64, opts ForgetOptions, events map[int64]bool, rep *ForgetReport) error {
	o, ok, err := integrate.FactOrigin(ctx, tx, id)
	if err != nil {
		return fmt.Errorf("forget fact %d: %w", id, err)
	}
	if !ok {
		return fmt.Errorf("forget fact %d: %w; list candidates with recollect forget --matching QUERY --dry-run", id, ErrFactNotFound)
	}
	digests, err := extract.Digests(ctx, tx, id, o.Digest)
	if err != nil {
		return fmt.Errorf("forget fact %d: %w", id, err)
	}
	if err := sourceEvents(ctx, tx, id, o, events); err != nil {
		return fmt.Errorf("forget fact %d: %w", id, err)
	}
	n, err := scrubRunSummaries(ctx, tx, o.RecordedAt)
	if err != nil {
		return fmt.Errorf("forget fact %d: runs.summary: %w", id, err)
	}
	rep.ScrubbedRuns += n
	// The extracted facts behind it, and any sharing its digest, so a
	// pending copy cannot bring it back.
	n, err = extract.ForgetFacts(ctx, tx, id, o.Digest)
	if err != nil {
		return err
	}
	rep.RowsBy["session_facts"] += n
	if ftsTables(tx) {
		rep.RowsBy["session_facts_fts"] += n
	}
	gone, err := integrate.ForgetFact(ctx, tx, id, digests, integrate.Forgetter{Actor: opts.Actor, Reason: opts.Reason}, rep.RowsBy)
	if err != nil {
		return err
	}
	rep.Unlinked += gone.Unlinked
	rep.Tombstones += gone.Tombstones
	// Other facts with the same wording (superseded history, say) go too:
	// the sentence is forgotten, not one row of it. This one is deleted
	// already, so the chain ends.
	twin, ok, err := integrate.FactWithDigest(ctx, tx, o.Digest)
	if err != nil {
		return fmt.Errorf("forget fact %d: %w", id, err)
	}
	if !ok {
		return nil
	}
	rep.Facts = append(rep.Facts, twin)
	return forgetOne(ctx, tx, twin, opts, events, rep)
}

// scrubRunSummaries takes the integrate step's summary out of the report
// of every run that finished after a fact recorded at recordedAt arrived
// (or has not finished):
// a summary written since may quote or paraphrase the fact, and the next
// consolidation writes a fresh one. It returns how many reports changed.
func scrubRunSummaries(ctx context.Context, tx *store.Tx, recordedAt string) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, summary FROM runs WHERE summary IS NOT NULL
		AND (finished_at IS NULL OR finished_at >= ?)`, recordedAt)
	if err != nil {
		return 0, err
	}
	scrubbed := map[int64]string{}
	for rows.Next() {
		var run int64
		var summary string
		if err := rows.Scan(&run, &summary); err != nil {
			rows.Close()
			return 0, err
		}
		if s, ok := withoutIntegrateSummary(summary); ok {
			scrubbed[run] = s
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for run, s := range scrubbed {
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET summary = ? WHERE id = ?`, s, run); err != nil {
			return 0, err
		}
	}
	return len(scrubbed), nil
}

// withoutIntegrateSummary returns the run report summary without
// integrate.summary, and false when it holds none (or is not a JSON
// object).
func withoutIntegrateSummary(summary string) (string, bool) {
	var run map[string]json.RawMessage
	if json.Unmarshal([]byte(summary), &run) != nil {
		return "", false
	}
	var step map[string]json.RawMessage
	if json.Unmarshal(run["integrate"], &step) != nil {
		return "", false
	}
	if s, ok := step["summary"]; !ok || string(s) == "null" {
		return "", false
	}
	delete(step, "summary")
	b, err := json.Marshal(step)
	if err != nil {
		return "", false
	}
	run["integrate"] = b
	if b, err = json.Marshal(run); err != nil {
		return "", false
	}
	return string(b), true
}

// Candidate is a fact that forget --matching would remove.
type Candidate struct {
	ID      int64  `json:"id"`
	Domain  string `json:"domain"`
	Content string `json:"content"`
}

// ForgetCandidates lists the active facts a query finds, for a person to
// choose from before forgetting by id.
func (p *Pipeline) ForgetCandidates(ctx context.Context, query string, limit int) ([]Candidate, error) {
	ans, err := p.Reader.Search(ctx, graph.Query{Text: query, Limit: limit, KnowledgeOnly: true})
	if err != nil {
		return nil, fmt.Errorf("find facts matching %q: %w", query, err)
	}
	out := []Candidate{}
	for _, h := range ans.Results {
		if h.OnlyContext() {
			continue // it sits next to a match but does not contain the words
		}
		out = append(out, Candidate{ID: h.ID, Domain: h.Domain, Content: h.Content})
	}
	return out, nil
}

// ftsTables reports whether the store keeps its full-text indexes in
// tables of their own, whose rows forget counts (store.Engine.TextIndexRows).
func ftsTables(tx *store.Tx) bool { return tx.Engine().TextIndexRows() }

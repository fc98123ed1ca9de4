package hookctx

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/store"
)

// Section sizes of the session-start context, before the budget cuts.
const (
	KeyFacts     = 10
	RecentFacts  = 10
	SessionFacts = 15
	// OpenTasks, Rules and Changes bound the sections of a project's open
	// work, its standing rules and its recent decisions and fixes.
	OpenTasks = 10
	Rules     = 8
	Changes   = 10
)

// Sources of a SessionStart payload: why the session (re)started.
const (
	SourceStartup = "startup"
	SourceResume  = "resume"
	SourceClear   = "clear"
	SourceCompact = "compact"
)

// ConsolidationState is what the daemon said about the consolidation the
// PreCompact notice started.
type ConsolidationState string

// The states.
const (
	// Settled: no run was in flight or queued when the hook asked (or the
	// one in flight finished while it waited).
	Settled ConsolidationState = "settled"
	// StillRunning: a run was still in flight when the wait ran out.
	StillRunning ConsolidationState = "running"
	// NoDaemon: nothing answered on the control socket.
	NoDaemon ConsolidationState = "no-daemon"
	// Unknown: the daemon could not be asked; Reason says why.
	Unknown ConsolidationState = "unknown"
)

// Consolidation is what the caller learned from the daemon before a
// session start after compaction.
type Consolidation struct {
	State ConsolidationState
	// Waited is how long the hook waited for the run.
	Waited time.Duration
	// Reason explains Unknown.
	Reason string
}

// SessionInput is what a session-start context is made from besides the
// store.
type SessionInput struct {
	// Source is the payload's source: startup, resume, clear or compact.
	Source string
	// SessionID is the session that starts (after compact: the one just
	// compacted).
	SessionID string
	// Budget is the most the context may cost, in estimated tokens.
	Budget int
	// Consolidation is read only when Source is compact.
	Consolidation Consolidation
}

type fact struct {
	id      int64
	content string
	when    string
}

// SessionStart renders the context added at a session's start: a framing
// paragraph, then — after a compaction — the facts learned from this
// session, most recent first, with a line when consolidation is still
// running; then the open tasks, rules and recent decisions and fixes; then
// key facts (most important first), unresolved conflicts and
// recent knowledge. No fact appears twice; a line that does not fit the
// budget is left out and the last line says how many were. Only active
// facts are read, ordered with ties broken by id, so an unchanged store
// gives the same bytes. An empty store gives "": nothing to add.
func SessionStart(ctx context.Context, r *graph.Reader, in SessionInput) (string, error) {
	db := r.Store()
	if in.Budget < MinBudget {
		return "", fmt.Errorf("session-start budget %d tokens is below the minimum %d", in.Budget, MinBudget)
	}
	compact := in.Source == SourceCompact
	var fromSession []fact
	if compact && in.SessionID != "" {
		var err error
		fromSession, err = sessionFacts(ctx, r, in.SessionID)
		if err != nil {
			return "", err
		}
	}
	key, err := activeFacts(ctx, r, db.Engine().IndexHint("facts_key_order"), `importance DESC, confidence DESC, id`, KeyFacts)
	if err != nil {
		return "", err
	}
	recent, err := activeFacts(ctx, r, db.Engine().IndexHint(""), `id DESC`, RecentFacts+KeyFacts+len(fromSession))
	if err != nil {
		return "", err
	}
	conflicts, err := openConflicts(ctx, db)
	if err != nil {
		return "", err
	}
	tasks, err := kindFacts(ctx, r, taskKinds, OpenTasks)
	if err != nil {
		return "", err
	}
	rules, err := kindFacts(ctx, r, ruleKinds, Rules)
	if err != nil {
		return "", err
	}
	changes, err := kindFacts(ctx, r, changeKinds, Changes)
	if err != nil {
		return "", err
	}
	note := ""
	if compact {
		note = consolidationNote(in.Consolidation)
		if note == "" && len(fromSession) == 0 && in.SessionID != "" {
			note = "Note: the part just compacted has been consolidated, and no fact rests on this session's conversation: nothing in it was kept as knowledge."
		}
	}
	if len(key) == 0 && len(fromSession) == 0 && note == "" {
		return "", nil
	}

	t := &budgeted{budget: in.Budget}
	const footerReserve = 30
	if !t.add(framing, footerReserve) {
		return "", fmt.Errorf("session-start budget %d tokens cannot hold the framing lines", in.Budget)
	}
	shown := map[int64]bool{}
	section := func(title string, fs []fact, limit int) {
		n := 0
		for _, f := range fs {
			if shown[f.id] || n == limit {
				continue
			}
			line := factLine(f.id, f.when, f.content)
			head := ""
			if n == 0 {
				head = "\n## " + title + "\n\n"
			}
			if !t.add(head+line, footerReserve) {
				continue
			}
			shown[f.id] = true
			n++
		}
	}
	if compact {
		if note != "" {
			t.add("\n"+note+"\n", footerReserve)
		}
		section("Learned in this session before the compaction", fromSession, SessionFacts)
	}
	section("Open tasks", tasks, OpenTasks)
	section("Rules", rules, Rules)
	section("Recent decisions and fixes", changes, Changes)
	section("Key facts", key, KeyFacts)
	for i, c := range conflicts {
		if i == 0 {
			c = "\n## Open conflicts\n\n" + c
		}
		if !t.add(c, footerReserve) && i == 0 {
			t.omitted += len(conflicts) - 1 // no heading, so none of them
			break
		}
	}
	section("Recent knowledge", recent, RecentFacts)
	if t.omitted > 0 {
		t.add(fmt.Sprintf("\n(%d more lines left out to stay within %d tokens; search memory for more.)\n", t.omitted, in.Budget), 0)
	}
	return t.String(), nil
}

// framing opens the session-start context: what the lines are and how to
// treat them, in the words the briefing uses (graph.DataPreface).
var framing = "# Memory (recollect)\n\n" + strings.TrimSuffix(graph.DataPreface, "\n")

// consolidationNote says what became of the consolidation the compaction
// started, "" when it settled.
func consolidationNote(c Consolidation) string {
	switch c.State {
	case StillRunning:
		return fmt.Sprintf("Note: knowledge from the part just compacted is still being consolidated (waited %s); facts learned from it may be missing below — search memory again later.", c.Waited.Round(time.Millisecond))
	case NoDaemon:
		return "Note: no recollect daemon is running, so the part just compacted has not been consolidated yet; facts learned from it are missing below until `recollect daemon` or `recollect consolidate` runs."
	case Unknown:
		return "Note: whether the part just compacted has been consolidated is unknown (" + c.Reason + "); facts learned from it may be missing below."
	}
	return ""
}

// activeFacts reads the first limit active facts in order, through the
// index the caller's hint names (store.Engine.IndexHint): the key-fact
// index (v11) for importance order, the table itself walked backwards for
// newest first. Without the hint SQLite's planner, with no statistics,
// picks the status index and sorts every active fact.
// Like every read here, it keeps within the retention window.
func activeFacts(ctx context.Context, r *graph.Reader, index, order string, limit int) ([]fact, error) {
	within, args := r.Within("facts")
	return queryFacts(ctx, r.Store(), `SELECT id, content, COALESCE(said_at, valid_from, recorded_at) FROM facts `+index+`
		WHERE status = 'active' AND `+within+` ORDER BY `+order+` LIMIT ?`, append(args, limit)...)
}

// The conditions on kind of the session start's sections of open tasks,
// rules, and recent decisions and fixes (kindFacts).
const (
	taskKinds   = `kind = 'task'`
	ruleKinds   = `kind = 'rule'`
	changeKinds = `kind IN ('decision', 'fix')`
)

// kindFacts reads the newest limit active facts whose kind passes cond
// (a literal condition on kind), through the kind index (kindQuery).
func kindFacts(ctx context.Context, r *graph.Reader, cond string, limit int) ([]fact, error) {
	query, args := kindQuery(r, cond, limit)
	return queryFacts(ctx, r.Store(), query, args...)
}

// kindQuery is kindFacts' statement and its arguments. It names the kind
// index (v25) to the engine (store.Engine.IndexHint): without statistics
// (a store no run has analysed yet, or one under the rows Optimize keeps
// them for) SQLite's planner took the status index for kind IN (…) and
// sorted every active fact, 48 ms of a 100,000-fact session start.
func kindQuery(r *graph.Reader, cond string, limit int) (string, []any) {
	within, args := r.Within("facts")
	return `SELECT id, content, COALESCE(said_at, valid_from, recorded_at) FROM facts ` + r.Store().Engine().IndexHint("facts_kind") + `
		WHERE status = 'active' AND ` + cond + ` AND ` + within + ` ORDER BY id DESC LIMIT ?`, append(args, limit)
}

// sessionFacts are the active facts that rest on events of session id,
// newest first (ids grow with the time a fact is recorded).
func sessionFacts(ctx context.Context, r *graph.Reader, id string) ([]fact, error) {
	within, args := r.Within("f")
	return queryFacts(ctx, r.Store(), `SELECT f.id, f.content, COALESCE(f.said_at, f.valid_from, f.recorded_at) FROM facts f
		WHERE f.status = 'active' AND f.id IN (SELECT fact_id FROM fact_provenance WHERE session_id = ?) AND `+within+`
		ORDER BY f.id DESC LIMIT ?`, append(append([]any{id}, args...), SessionFacts)...)
}

func queryFacts(ctx context.Context, db *store.DB, query string, args ...any) ([]fact, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read facts: %w", err)
	}
	defer rows.Close()
	var out []fact
	for rows.Next() {
		var f fact
		if err := rows.Scan(&f.id, &f.content, &f.when); err != nil {
			return nil, fmt.Errorf("read facts: %w", err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read facts: %w", err)
	}
	return out, nil
}

// openConflicts lists unresolved supersession conflicts, one line each,
// naming the facts and how to settle them.
func openConflicts(ctx context.Context, db *store.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, COALESCE(fact_id, 0), COALESCE(other_id, 0), COALESCE(target_id, 0)
		FROM conflicts WHERE resolved_at IS NULL ORDER BY id LIMIT 5`)
	if err != nil {
		return nil, fmt.Errorf("read conflicts: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, a, b, target int64
		if err := rows.Scan(&id, &a, &b, &target); err != nil {
			return nil, fmt.Errorf("read conflicts: %w", err)
		}
		out = append(out, fmt.Sprintf("- conflict %d: facts %d and %d both claim to replace fact %d (recollect conflicts resolve)\n", id, a, b, target))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read conflicts: %w", err)
	}
	return out, nil
}

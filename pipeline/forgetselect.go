package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
)

// Selector names what to forget the way a person asks for it: by when it
// happened, by session, by subject, or by what a search finds. Set
// selectors combine: what every one of them selects.
type Selector struct {
	// Before selects what happened before this time: the events by their
	// own timestamps (when the agent's transcript says it happened, not
	// when it was copied), a fact by the newest event it cites (a fact
	// citing none, by when it was said).
	Before time.Time
	// Session selects one session's events and the facts they alone
	// support.
	Session string
	// Entity selects the facts that name an entity (by its name, in any
	// case).
	Entity string
	// Matching selects the facts a search for it finds (at most Limit).
	Matching string
	Limit    int
}

// Empty reports whether s selects by nothing.
func (s Selector) Empty() bool {
	return s.Before.IsZero() && s.Session == "" && s.Entity == "" && s.Matching == ""
}

// String is the selector as the mutation log records it.
func (s Selector) String() string {
	var parts []string
	if !s.Before.IsZero() {
		parts = append(parts, "before "+s.Before.UTC().Format(time.RFC3339))
	}
	if s.Session != "" {
		parts = append(parts, fmt.Sprintf("session %q", s.Session))
	}
	if s.Entity != "" {
		parts = append(parts, fmt.Sprintf("entity %q", s.Entity))
	}
	if s.Matching != "" {
		parts = append(parts, fmt.Sprintf("matching %q", s.Matching))
	}
	return strings.Join(parts, ", ")
}

// Selection is what a selector picks: the facts and the raw events that
// go, and a few of the facts' texts for a person to check.
type Selection struct {
	Facts  []int64  `json:"facts"`
	Events []int64  `json:"events"`
	Sample []string `json:"sample"`
}

// ErrEmptySelector means forget was given no selector.
var ErrEmptySelector = errors.New("forget: name what to forget (--before DATE, --session ID, --entity NAME or --matching QUERY)")

// Select resolves s to the facts and events it picks, reading only.
// Events are picked by Before and Session. A fact goes when every event
// it cites is picked (one still supported by an event that stays is
// kept), or when Entity or Matching picks it; with several selectors, a
// fact or event goes only when all of them pick it.
func (p *Pipeline) Select(ctx context.Context, s Selector) (Selection, error) {
	if s.Empty() {
		return Selection{}, ErrEmptySelector
	}
	sel := Selection{Facts: []int64{}, Events: []int64{}, Sample: []string{}}
	byEvents := !s.Before.IsZero() || s.Session != ""
	if byEvents {
		r := integrate.EventRange{Before: s.Before, Session: s.Session}
		cond, args := r.Where("")
		events, err := store.Column[int64](ctx, p.db, `SELECT seq FROM session_events WHERE `+cond+` ORDER BY seq`, args...)
		if err != nil {
			return sel, fmt.Errorf("select events: %w", err)
		}
		sel.Events = events
		if sel.Facts, err = integrate.FactsWithin(ctx, p.db, r); err != nil {
			return sel, err
		}
	}
	if s.Entity != "" {
		facts, err := integrate.FactsNaming(ctx, p.db, s.Entity)
		if err != nil {
			return sel, err
		}
		sel.Facts = narrow(sel.Facts, facts, byEvents)
		byEvents = true
	}
	if s.Matching != "" {
		cands, err := p.ForgetCandidates(ctx, s.Matching, max(s.Limit, 1))
		if err != nil {
			return sel, err
		}
		facts := make([]int64, len(cands))
		for i, c := range cands {
			facts[i] = c.ID
		}
		slices.Sort(facts)
		sel.Facts = narrow(sel.Facts, facts, byEvents)
	}
	for _, id := range sel.Facts[:min(5, len(sel.Facts))] {
		content, err := integrate.FactContent(ctx, p.db, id)
		if err != nil {
			return sel, err
		}
		sel.Sample = append(sel.Sample, fmt.Sprintf("[fact %d] %s", id, content))
	}
	return sel, nil
}

// narrow is what both picked, or picked itself when nothing picked
// before.
func narrow(have, picked []int64, before bool) []int64 {
	if !before {
		return picked
	}
	out := []int64{}
	for _, id := range have {
		if slices.Contains(picked, id) {
			out = append(out, id)
		}
	}
	return out
}

// ForgetSelected forgets what s selects: its facts as Forget forgets
// them (with their tombstones, and the events they alone rest on), then
// the picked events that remain: deleted, or emptied to ForgottenText
// where a fact that stays still cites them. One mutation record names the
// selector, the reason and the counts.
func (p *Pipeline) ForgetSelected(ctx context.Context, s Selector, opts ForgetOptions) (ForgetReport, Selection, error) {
	sel, err := p.Select(ctx, s)
	if err != nil {
		return ForgetReport{}, sel, err
	}
	if opts.Actor == "" {
		opts.Actor = "cli"
	}
	rep, err := p.Forget(ctx, sel.Facts, opts)
	if err != nil {
		return rep, sel, err
	}
	for start := 0; start < len(sel.Events); start += ForgetChunk * 4 {
		chunk := sel.Events[start:min(len(sel.Events), start+ForgetChunk*4)]
		err := p.db.Tx(ctx, func(tx *store.Tx) error {
			if err := tx.SecureDelete(ctx); err != nil {
				return fmt.Errorf("forget: %w", err)
			}
			in, args := store.InList(chunk)
			left, err := store.Column[int64](ctx, tx, `SELECT seq FROM session_events WHERE seq IN (`+in+`) AND content <> ?`, append(args, ForgottenText)...)
			if err != nil {
				return fmt.Errorf("forget events: %w", err)
			}
			events := map[int64]bool{}
			for _, seq := range left {
				events[seq] = true
			}
			return forgetEvents(ctx, tx, events, &rep)
		})
		if err != nil {
			return rep, sel, fmt.Errorf("forget: events: %w", err)
		}
	}
	rep.Rows = 0
	for _, n := range rep.RowsBy {
		rep.Rows += n
	}
	detail, err := jsonString(map[string]any{"selector": s.String(), "facts": len(sel.Facts), "events": len(sel.Events), "rows": rep.Rows, "rows_by_table": rep.RowsBy})
	if err != nil {
		return rep, sel, err
	}
	err = p.db.Tx(ctx, func(tx *store.Tx) error {
		return store.LogMutation(ctx, tx, "forget", "selector:"+s.String(), opts.Actor, opts.Reason, detail)
	})
	if err != nil {
		return rep, sel, fmt.Errorf("forget: log: %w", err)
	}
	if len(sel.Events) > 0 {
		if err := p.removeInspectPage(&rep); err != nil {
			return rep, sel, err
		}
		rep.WAL, rep.Residue = p.truncateWAL(ctx)
	}
	return rep, sel, nil
}

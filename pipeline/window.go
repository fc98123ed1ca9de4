package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
)

// WindowReport says what lies past retention.window: what happened
// before the window began, which no read returns, and, once applied, what
// was deleted.
type WindowReport struct {
	// Window is retention.window as config.json has it.
	Window string `json:"window"`
	// Floor is where the window began when this was counted.
	Floor string `json:"floor"`
	// Facts and Events are past the window (the facts whose every cited
	// event is; see Selector.Before), Summaries the consolidation
	// summaries written before it began.
	Facts     int `json:"facts"`
	Events    int `json:"events"`
	Summaries int `json:"summaries"`
	// Applied says they were deleted; RowsBy then counts the rows removed
	// per table, the cascade of forget included.
	Applied bool           `json:"applied"`
	Rows    int            `json:"rows,omitempty"`
	RowsBy  map[string]int `json:"rows_by_table,omitempty"`
}

// windowReason is the mutation record's reason for what the window
// deletes.
func windowReason(window string) string {
	return "past retention.window " + window
}

// PastWindow counts what is past retention.window now, deleting nothing;
// nil when no window is set.
func (p *Pipeline) PastWindow(ctx context.Context) (*WindowReport, error) {
	rep, _, err := p.pastWindow(ctx, time.Now())
	return rep, err
}

func (p *Pipeline) pastWindow(ctx context.Context, now time.Time) (*WindowReport, Selector, error) {
	w := p.Config.Retention.Window
	floor := w.Floor(now)
	if floor.IsZero() {
		return nil, Selector{}, nil
	}
	s := Selector{Before: floor}
	sel, err := p.Select(ctx, s)
	if err != nil {
		return nil, s, fmt.Errorf("retention window: %w", err)
	}
	rep := &WindowReport{Window: w.String(), Floor: floor.UTC().Format(time.RFC3339), Facts: len(sel.Facts), Events: len(sel.Events)}
	if rep.Summaries, err = integrate.SummariesBefore(ctx, p.db, floor); err != nil {
		return nil, s, fmt.Errorf("retention window: %w", err)
	}
	return rep, s, nil
}

// enforceWindow deletes what is past retention.window, as forget --before
// would (the same cascade, tombstones and mutation record, naming the
// window as the reason), and the consolidation summaries written before
// the window began. It returns nil when no window is set, and writes
// nothing when nothing is past it.
func (p *Pipeline) enforceWindow(ctx context.Context, actor string) (*WindowReport, error) {
	rep, s, err := p.pastWindow(ctx, time.Now())
	if err != nil || rep == nil {
		return rep, err
	}
	rep.Applied = true
	rep.RowsBy = map[string]int{}
	if rep.Facts > 0 || rep.Events > 0 {
		frep, _, err := p.ForgetSelected(ctx, s, ForgetOptions{Actor: actor, Reason: windowReason(rep.Window)})
		if err != nil {
			return rep, fmt.Errorf("retention window: %w", err)
		}
		for t, n := range frep.RowsBy {
			rep.RowsBy[t] += n
		}
	}
	if rep.Summaries > 0 {
		err := p.db.Tx(ctx, func(tx *store.Tx) error {
			if err := tx.SecureDelete(ctx); err != nil {
				return err
			}
			n, err := integrate.ForgetSummariesBefore(ctx, tx, s.Before)
			if err != nil {
				return err
			}
			rep.RowsBy["summaries"] += n
			detail, err := jsonString(map[string]any{"summaries": n, "before": rep.Floor})
			if err != nil {
				return err
			}
			return store.LogMutation(ctx, tx, "forget", "summaries", actor, windowReason(rep.Window), detail)
		})
		if err != nil {
			return rep, fmt.Errorf("retention window: delete summaries: %w", err)
		}
	}
	for _, n := range rep.RowsBy {
		rep.Rows += n
	}
	return rep, nil
}

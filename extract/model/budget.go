package model

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// Budget is one provider's token budget over one rolling window, as spent
// right now.
type Budget struct {
	// Provider is the configured provider name (http, ollama, cli).
	Provider string `json:"provider"`
	// Window is hour, day, week or month: the rolling span counted.
	Window string `json:"window"`
	// Cap is the configured token count, CapText as written ("2M").
	Cap     int64  `json:"cap"`
	CapText string `json:"cap_text"`
	// Used counts the input and output tokens reported in the window.
	Used int64 `json:"used"`
	// Remaining is Cap less Used, never below zero.
	Remaining int64 `json:"remaining"`
	// AgesOutAt is when the oldest counted usage leaves the window, nil
	// when nothing is counted.
	AgesOutAt *time.Time `json:"ages_out_at,omitempty"`
	// UnreportedCalls counts calls in the window whose tokens the provider
	// did not report; they are not in Used.
	UnreportedCalls int `json:"unreported_calls"`
	// Note says why the budget cannot be enforced, when it cannot.
	Note string `json:"note,omitempty"`
}

func (b Budget) agesOutText() string {
	if b.AgesOutAt == nil {
		return "no usage to age out"
	}
	return "the oldest usage ages out at " + b.AgesOutAt.Local().Format("2006-01-02 15:04")
}

// MaxCallTokens is the most tokens (input or output) one model call may
// report. A count outside 0..MaxCallTokens (a broken host said 2^62) is
// stored as unknown, with a logged reason, and reads as unknown from the
// spend_counted view, so sums over spend cannot overflow.
const MaxCallTokens = 1 << 30

// saneTokens returns n when it is a count a call can have, else nil and
// why not.
func saneTokens(n *int64) (*int64, string) {
	if n == nil || (*n >= 0 && *n <= MaxCallTokens) {
		return n, ""
	}
	return nil, fmt.Sprintf("absurd token count %d (outside 0..%d); stored as unknown", *n, MaxCallTokens)
}

// windowOrder lists budget windows shortest first.
var windowOrder = []string{"hour", "day", "week", "month"}

// Budgets reports every configured token budget at now: used, remaining,
// and when the oldest counted usage ages out.
func Budgets(ctx context.Context, db *store.DB, cfg config.Intelligence, now time.Time) ([]Budget, error) {
	provs := make([]string, 0, len(cfg.TokenBudget))
	for p := range cfg.TokenBudget {
		provs = append(provs, p)
	}
	sort.Strings(provs)
	var out []Budget
	for _, p := range provs {
		bs, err := budgetsFor(ctx, db, p, cfg.TokenBudget[p], now)
		if err != nil {
			return nil, err
		}
		note, err := unbudgetableNote(ctx, db, p)
		if err != nil {
			return nil, err
		}
		for i := range bs {
			bs[i].Note = note
		}
		out = append(out, bs...)
	}
	return out, nil
}

// budgetsFor reads one provider's windows.
func budgetsFor(ctx context.Context, db *store.DB, provider string, windows map[string]config.Count, now time.Time) ([]Budget, error) {
	var out []Budget
	for _, w := range windowOrder {
		capN, ok := windows[w]
		if !ok {
			continue
		}
		if err := capN.Err(); err != nil {
			return nil, fmt.Errorf("intelligence.token_budget.%s.%s: %w", provider, w, err)
		}
		length := config.BudgetWindows[w]
		since := store.FormatTime(now.Add(-length))
		b := Budget{Provider: provider, Window: w, Cap: capN.Int64(), CapText: capN.String()}
		var oldest *string
		err := db.QueryRowContext(ctx, `SELECT COALESCE(sum(COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0)), 0),
				min(CASE WHEN input_tokens IS NOT NULL OR output_tokens IS NOT NULL THEN created_at END),
				count(*) - count(CASE WHEN input_tokens IS NOT NULL OR output_tokens IS NOT NULL THEN 1 END)
			FROM spend_counted WHERE provider = ? AND created_at >= ?`, provider, since).Scan(&b.Used, &oldest, &b.UnreportedCalls)
		if err != nil {
			return nil, fmt.Errorf("read token usage of %s: %w", provider, err)
		}
		if oldest != nil {
			t, err := store.ParseTime(*oldest)
			if err != nil {
				return nil, err
			}
			t = t.Add(length)
			b.AgesOutAt = &t
		}
		b.Remaining = max(b.Cap-b.Used, 0)
		out = append(out, b)
	}
	return out, nil
}

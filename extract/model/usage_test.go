package model

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/extract/model/modeltest"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// Token counts near 2^62 from a host are refused at the door (stored as
// unknown, with a logged reason), so the spend sums cannot overflow and
// budgets keep working.
func TestAbsurdTokenCountsAreStoredAsUnknown(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	h := modeltest.NewHost(t)
	h.Enqueue(modeltest.Answer{Content: `{"answer":"hi"}`, InputTokens: 1 << 62, OutputTokens: 1 << 62},
		modeltest.Answer{Content: `{"answer":"hi"}`, InputTokens: 1 << 62, OutputTokens: 10})
	cfg := h.Intelligence("m")
	cfg.TokenBudget = map[string]map[string]config.Count{"http": {"day": config.NewCount("1M")}}
	var logs strings.Builder
	r, err := NewRouter(cfg, db, func(string) string { return "" }, slog.New(slog.NewTextHandler(&logs, nil))).BeginRun(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := r.Call(context.Background(), testRequest("extract")); err != nil {
			t.Fatal(err)
		}
	}
	var in, out, unknown int
	if err := db.QueryRow(`SELECT count(input_tokens), count(output_tokens), count(*) - count(input_tokens) FROM spend`).Scan(&in, &out, &unknown); err != nil {
		t.Fatal(err)
	}
	if in != 0 || out != 1 || unknown != 2 {
		t.Fatalf("spend kept %d input and %d output counts; want the absurd ones stored as unknown (0 and 1)", in, out)
	}
	if !strings.Contains(logs.String(), "absurd token count") {
		t.Errorf("no logged reason for the refused counts:\n%s", logs.String())
	}
	bs, err := Budgets(context.Background(), db, cfg, time.Now())
	if err != nil || len(bs) != 1 || bs[0].Used != 10 || bs[0].Remaining != 1_000_000-10 {
		t.Fatalf("budgets = %+v, %v; want 10 used", bs, err)
	}
}

// Rows an older recollect stored with absurd counts never break reading
// the rest: they count as unreported.
func TestStoredAbsurdTokenCountsDoNotBreakBudgets(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	now := time.Now()
	for _, n := range []int64{1 << 62, 1 << 62, -5, 100} {
		if _, err := db.Exec(`INSERT INTO spend(stage, provider, input_tokens, output_tokens, elapsed_ms, ok, created_at) VALUES ('extract','http',?,?,1,1,?)`,
			n, n, store.FormatTime(now.Add(-time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	cfg := modeltest.NewHost(t).Intelligence("m")
	cfg.TokenBudget = map[string]map[string]config.Count{"http": {"day": config.NewCount("1M")}}
	bs, err := Budgets(context.Background(), db, cfg, now)
	if err != nil || len(bs) != 1 || bs[0].Used != 200 || bs[0].UnreportedCalls != 3 {
		t.Fatalf("budgets over stored absurd rows = %+v, %v; want 200 used and 3 calls unreported", bs, err)
	}
}

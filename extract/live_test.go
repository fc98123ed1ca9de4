package extract

import (
	"context"
	"os"
	"testing"

	"github.com/recollect/recollect/store/storetest"
)

// TestLiveHTTPExtraction runs one real extraction against the
// OpenAI-compatible host named by RECOLLECT_LIVE_HTTP (for example
// http://localhost:11434/v1). RECOLLECT_LIVE_MODEL pins the model when the
// host offers several.
func TestLiveHTTPExtraction(t *testing.T) {
	url := os.Getenv("RECOLLECT_LIVE_HTTP")
	if url == "" {
		t.Skip("LIVE CHECK NOT RUN: RECOLLECT_LIVE_HTTP is unset, so no real model was asked; set RECOLLECT_LIVE_HTTP=http://host:port/v1 (and RECOLLECT_LIVE_MODEL when the host offers several chat models) to run one real extraction")
	}
	db := storetest.Open(t, "sqlite")
	seqs := addEvents(t, db, "live", "I moved from Porto to Lisbon last month and now work at Acme Robotics as a firmware engineer.",
		"Our team deploys the billing service to Fly.io and keeps staging on Postgres 16.")
	cfg := httpIntelligence(url, os.Getenv("RECOLLECT_LIVE_MODEL"))
	stage, r := modelStage(t, db, cfg)
	rep, err := stage.Run(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("report: %+v; router warnings: %q", rep, r.Warnings())
	if len(rep.Held) != 0 {
		_, _, lastErr := watermark(t, db, "live")
		t.Fatalf("the live host's answer was held: %s", lastErr)
	}
	facts := sessionFacts(t, db)
	if len(facts) == 0 {
		t.Fatalf("the live model extracted no fact from two factual statements (events %v)", seqs)
	}
	for _, f := range facts {
		t.Logf("fact: %s (domain %v, events %s, entities %v)", f.Content, deref(f.Domain), f.EventIDs, deref(f.Entities))
	}
	if rows := spendRows(t, db); len(rows) == 0 {
		t.Fatal("no spend row for the live call")
	}
}

func deref(s *string) string {
	if s == nil {
		return "<none>"
	}
	return *s
}

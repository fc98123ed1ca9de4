package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/recollect/recollect/extract/model/modeltest"
	"github.com/recollect/recollect/store/config"
)

// TestConsolidateThroughAnHTTPModel runs consolidate and stats against a
// local OpenAI-compatible host: one conversation's facts land, the other's
// failure holds only that conversation, and stats says so.
func TestConsolidateThroughAnHTTPModel(t *testing.T) {
	h := modeltest.NewHost(t)
	dir := t.TempDir()
	env := map[string]string{}
	runEnv := func(args ...string) (int, string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		e := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}
		code := Run(context.Background(), append([]string{"recollect", "--data", dir}, args...), e)
		return code, out.String(), errb.String()
	}
	cfg := config.Default()
	cfg.Intelligence.Provider = "http"
	cfg.Intelligence.HTTP.BaseURL = h.OpenAIURL()
	cfg.Intelligence.HTTP.Model = "llama3.2:3b"
	cfg.Intelligence.TokenBudget = map[string]map[string]config.Count{"http": {"day": config.NewCount("1M")}}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	for _, ev := range [][2]string{{"s-a", "Our billing service deploys to Fly.io now."}, {"s-a", "The staging database is Postgres 16."}, {"s-b", "I moved to Lisbon in October."}} {
		if code, _, errs := runEnv("record", "--session-id", ev[0], "--content", ev[1]); code != 0 {
			t.Fatalf("record: %s", errs)
		}
	}
	h.Enqueue(modeltest.Answer{Content: `{"facts":[{"content":"The user's billing service deploys to Fly.io.","domain":"work","confidence":0.9,"importance":0.7,"entities":[{"name":"Fly.io","type":"organization","role":"object","is_subject":false}],"event_ids":[1]}]}`, InputTokens: 800, OutputTokens: 50},
		modeltest.Answer{Status: http.StatusInternalServerError}, modeltest.Answer{Status: http.StatusInternalServerError})
	code, out, errs := runEnv("consolidate", "--extract")
	if code != 0 {
		t.Fatalf("consolidate: exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"extract:   2 events examined, 1 fact extracted, 1 event remaining (http / llama3.2:3b)",
		"held: conversation s-b (see stats for the error)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("consolidate output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runEnv("stats")
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"stages       extract http, classify http, entities http, reconcile http, supersede http, summarise http",
		"budget       http per day: 850 of 1M tokens used, 999150 left; the oldest usage ages out at ",
		"health       extract on http: 2 failures in a row, last at ",
		"held         conversation s-b: 1 failure, watermark kept; last error at ",
		"held: extract on http: chat completion at " + h.OpenAIURL() + ": error, status code: 500",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stats output lacks %q:\n%s", want, out)
		}
	}
	env["RECOLLECT_PROVIDER"] = "heuristic"
	if _, out, _ = runEnv("stats"); !strings.Contains(out, "stages       extract heuristic, classify heuristic") {
		t.Errorf("kill-switch not shown in stats:\n%s", out)
	}
}

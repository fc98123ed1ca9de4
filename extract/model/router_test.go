package model

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/extract/model/modeltest"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// newRun begins one run over a new router.
func newRun(t testing.TB, cfg config.Intelligence, db *store.DB, env map[string]string) *Run {
	t.Helper()
	run, err := NewRouter(cfg, db, func(k string) string { return env[k] }, slog.New(slog.DiscardHandler)).BeginRun(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return run
}

var testSchema = json.RawMessage(`{"type":"object","required":["answer"],"properties":{"answer":{"type":"string"}}}`)

func testRequest(stage string) Request {
	return Request{Stage: stage, System: "Answer.", Prompt: "Say hi.", SchemaName: "answer", Schema: testSchema}
}

type spendRow struct {
	Stage, Provider string
	Model           *string
	In, Out         *int64
	OK              bool
}

func spendRows(t testing.TB, db *store.DB) []spendRow {
	t.Helper()
	return storetest.Rows[spendRow](t, db, `SELECT stage, provider, model, input_tokens, output_tokens, ok FROM spend ORDER BY id`)
}

func TestRouterUsesTheOnlyChatModelAndSaysToPinIt(t *testing.T) {
	h := modeltest.NewHost(t, "llama3.2:3b", "nomic-embed-text:latest")
	h.Enqueue(modeltest.Answer{Content: `{"answer":"hi"}`, InputTokens: 40, OutputTokens: 3})
	db := storetest.Open(t, "sqlite")
	r := newRun(t, h.Intelligence(""), db, nil)
	resp, err := r.Call(context.Background(), testRequest("extract"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != `{"answer":"hi"}` || resp.Model != "llama3.2:3b" || resp.Provider != "http" {
		t.Fatalf("response = %+v", resp)
	}
	want := "intelligence.http.model is empty; using llama3.2:3b, the only chat model at " + h.OpenAIURL() + " — pin intelligence.http.model"
	if w := r.Warnings(); len(w) != 1 || w[0] != want {
		t.Fatalf("warnings = %q, want %q", w, want)
	}
	chats := h.Requests("/v1/chat/completions")
	if len(chats) != 1 {
		t.Fatalf("%d chat requests, want 1", len(chats))
	}
	var sent struct {
		Model          string `json:"model"`
		ResponseFormat struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name   string          `json:"name"`
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := chats[0].Decode(&sent); err != nil {
		t.Fatal(err)
	}
	if sent.Model != "llama3.2:3b" || sent.ResponseFormat.Type != "json_schema" || sent.ResponseFormat.JSONSchema.Name != "answer" ||
		!strings.Contains(string(sent.ResponseFormat.JSONSchema.Schema), `"required":["answer"]`) {
		t.Fatalf("request sent = %+v", sent)
	}
	rows := spendRows(t, db)
	if len(rows) != 1 || rows[0].In == nil || *rows[0].In != 40 || rows[0].Out == nil || *rows[0].Out != 3 || !rows[0].OK || *rows[0].Model != "llama3.2:3b" {
		t.Fatalf("spend = %+v", rows)
	}
}

func TestRouterRefusesToGuessAmongSeveralModels(t *testing.T) {
	h := modeltest.NewHost(t, "qwen2.5:7b", "llama3.2:3b", "nomic-embed-text:latest")
	db := storetest.Open(t, "sqlite")
	r := newRun(t, h.Intelligence(""), db, nil)
	_, err := r.Call(context.Background(), testRequest("extract"))
	if !errors.Is(err, ErrHeld) {
		t.Fatalf("err = %v, want held", err)
	}
	want := "intelligence.http.model is empty and " + h.OpenAIURL() + " offers 2 chat models (llama3.2:3b, qwen2.5:7b); set intelligence.http.model to one of them"
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v\nwant it to say %q", err, want)
	}
	if n := len(h.Requests("/v1/chat/completions")); n != 0 {
		t.Fatalf("%d chat requests made, want none", n)
	}
	if rows := spendRows(t, db); len(rows) != 0 {
		t.Fatalf("spend rows for a call never made: %+v", rows)
	}
	var fails int
	var last string
	if err := db.QueryRow(`SELECT consecutive_failures, last_error FROM stage_health WHERE stage = 'extract' AND provider = 'http'`).Scan(&fails, &last); err != nil {
		t.Fatal(err)
	}
	if fails != 1 || !strings.Contains(last, "offers 2 chat models") {
		t.Fatalf("stage_health = %d %q", fails, last)
	}
}

func TestRouterRetriesThenFallsBackThenHolds(t *testing.T) {
	ok := modeltest.Answer{Content: `{"answer":"hi"}`}
	junk := modeltest.Answer{Content: `Sure! Here is the answer: hi`}
	wrongShape := modeltest.Answer{Content: `{"answer": 3}`}
	empty := modeltest.Answer{Content: ""}
	e500 := modeltest.Answer{Status: http.StatusInternalServerError}
	hang := modeltest.Answer{Hang: true}
	cases := []struct {
		name     string
		onFail   string
		http     []modeltest.Answer
		ollama   bool // the on_fail ollama provider answers ok
		wantErr  error
		wantFrom string
		// wantSpend lists the ok flag of each spend row, in order.
		wantSpend []bool
	}{
		{"ok first time", "", []modeltest.Answer{ok}, false, nil, "http", []bool{true}},
		{"500 then ok", "", []modeltest.Answer{e500, ok}, false, nil, "http", []bool{false, true}},
		{"junk then ok", "", []modeltest.Answer{junk, ok}, false, nil, "http", []bool{false, true}},
		{"junk twice holds", "", []modeltest.Answer{junk, wrongShape}, false, ErrHeld, "", []bool{false, false}},
		{"empty twice holds", "none", []modeltest.Answer{empty, empty}, false, ErrHeld, "", []bool{false, false}},
		{"timeout twice holds", "", []modeltest.Answer{hang, hang}, false, ErrHeld, "", []bool{false, false}},
		{"500 twice then on_fail answers", "ollama", []modeltest.Answer{e500, e500}, true, nil, "ollama", []bool{false, false, true}},
		{"500 twice then on_fail heuristic", "heuristic", []modeltest.Answer{e500, e500}, false, ErrHeuristic, "", []bool{false, false}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := modeltest.NewHost(t)
			h.Enqueue(tc.http...)
			if tc.ollama {
				h.Enqueue(ok)
			}
			cfg := h.Intelligence("llama3.2:3b")
			cfg.HTTP.TimeoutMS = 300
			cfg.Stages = map[string]config.StageRoute{"extract": {OnFail: tc.onFail}}
			db := storetest.Open(t, "sqlite")
			r := newRun(t, cfg, db, nil)
			resp, err := r.Call(context.Background(), testRequest("extract"))
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if tc.wantErr == nil && resp.Provider != tc.wantFrom {
				t.Fatalf("answered by %q, want %q", resp.Provider, tc.wantFrom)
			}
			if errors.Is(tc.wantErr, ErrHeld) && errors.Is(err, ErrHeuristic) {
				t.Fatalf("held call also reads as heuristic: %v", err)
			}
			rows := spendRows(t, db)
			var got []bool
			for _, row := range rows {
				got = append(got, row.OK)
			}
			if !equalBools(got, tc.wantSpend) {
				t.Fatalf("spend ok flags = %v, want %v", got, tc.wantSpend)
			}
			if h.Pending() != 0 {
				t.Fatalf("%d scripted answers left: the router made fewer calls than expected", h.Pending())
			}
		})
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRouterStepsDownResponseFormatsAndRemembers(t *testing.T) {
	h := modeltest.NewHost(t)
	h.RejectFormat("json_schema", "'response_format.type' must be 'json_object' or 'text'")
	h.RejectFormat("json_object", "response_format is not supported by this server")
	h.Enqueue(modeltest.Answer{Content: "```json\n{\"answer\":\"hi\"}\n```"}, modeltest.Answer{Content: `{"answer":"again"}`})
	r := newRun(t, h.Intelligence("llama3.2:3b"), storetest.Open(t, "sqlite"), nil)
	for _, want := range []string{`{"answer":"hi"}`, `{"answer":"again"}`} {
		resp, err := r.Call(context.Background(), testRequest("classify"))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != want {
			t.Fatalf("text = %q, want %q", resp.Text, want)
		}
	}
	if got := sentFormats(t, h); got != "json_schema,json_object,none,none" {
		t.Fatalf("formats sent = %s, want json_schema,json_object,none,none", got)
	}
	if w := r.Warnings(); len(w) != 2 || !strings.Contains(w[1], "asking with prompt-only JSON for the rest of this run") {
		t.Fatalf("warnings = %q", w)
	}
}

// sentFormats lists the response_format type of each chat request, "none"
// for a request without one.
func sentFormats(t testing.TB, h *modeltest.Host) string {
	t.Helper()
	var formats []string
	for _, req := range h.Requests("/v1/chat/completions") {
		var sent struct {
			ResponseFormat *struct{ Type string } `json:"response_format"`
		}
		if err := req.Decode(&sent); err != nil {
			t.Fatal(err)
		}
		f := "none"
		if sent.ResponseFormat != nil {
			f = sent.ResponseFormat.Type
		}
		formats = append(formats, f)
	}
	return strings.Join(formats, ",")
}

// TestRunsOfOneRouterLearnApart: runs share the router's clients, not what
// a run learns. A format the host rejected is asked with again by the next
// run (a host may have been upgraded), and each run warns about it once;
// spend rows carry each call's run id from its context, none outside a run.
func TestRunsOfOneRouterLearnApart(t *testing.T) {
	h := modeltest.NewHost(t)
	h.RejectFormat("json_schema", "'response_format.type' must be 'json_object' or 'text'")
	db := storetest.Open(t, "sqlite")
	r := NewRouter(h.Intelligence("llama3.2:3b"), db, func(string) string { return "" }, slog.New(slog.DiscardHandler))
	for id := int64(1); id <= 2; id++ {
		run, err := r.BeginRun(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ctx := WithRun(context.Background(), id)
		for range 2 {
			h.Enqueue(modeltest.Answer{Content: `{"answer":"hi"}`})
			if _, err := run.Call(ctx, testRequest("classify")); err != nil {
				t.Fatal(err)
			}
		}
		if w := run.Warnings(); len(w) != 1 || !strings.Contains(w[0], "rejected response_format json_schema") {
			t.Fatalf("run %d warnings = %q, want the rejected format once", id, w)
		}
	}
	if got, want := sentFormats(t, h), "json_schema,json_object,json_object,json_schema,json_object,json_object"; got != want {
		t.Fatalf("formats sent = %s, want %s (each run starts from json_schema)", got, want)
	}
	outside, err := r.BeginRun(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h.Enqueue(modeltest.Answer{Content: `{"answer":"hi"}`})
	if _, err := outside.Call(context.Background(), testRequest("classify")); err != nil {
		t.Fatal(err)
	}
	var runs []string
	rows, err := db.Query(`SELECT COALESCE(CAST(run_id AS TEXT), 'none') FROM spend ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, s)
	}
	if got := strings.Join(runs, ","); got != "1,1,2,2,none" {
		t.Fatalf("spend rows carry runs %s, want 1,1,2,2,none", got)
	}
}

func TestRouterBooksUnreportedTokensAsNull(t *testing.T) {
	h := modeltest.NewHost(t)
	h.Enqueue(modeltest.Answer{Content: `{"answer":"hi"}`, NoUsage: true})
	db := storetest.Open(t, "sqlite")
	r := newRun(t, h.Intelligence("llama3.2:3b"), db, nil)
	if _, err := r.Call(context.Background(), testRequest("summarise")); err != nil {
		t.Fatal(err)
	}
	rows := spendRows(t, db)
	if len(rows) != 1 || rows[0].In != nil || rows[0].Out != nil || !rows[0].OK || rows[0].Stage != "summarise" {
		t.Fatalf("spend = %+v, want one ok row with NULL tokens", rows)
	}
}

func TestRouterOverBudgetHoldsWithoutCalling(t *testing.T) {
	h := modeltest.NewHost(t)
	db := storetest.Open(t, "sqlite")
	old := store.FormatTime(time.Now().Add(-2 * time.Hour))
	if _, err := db.Exec(`INSERT INTO spend(stage, provider, model, input_tokens, output_tokens, elapsed_ms, ok, created_at)
		VALUES ('extract','http','m',1500,600,10,1,?)`, old); err != nil {
		t.Fatal(err)
	}
	cfg := h.Intelligence("llama3.2:3b")
	cfg.TokenBudget = map[string]map[string]config.Count{"http": {"day": config.NewCount("2k"), "hour": config.NewCount("1M")}}
	cfg.Stages = map[string]config.StageRoute{"extract": {OnFail: "heuristic"}}
	r := newRun(t, cfg, db, nil)
	_, err := r.Call(context.Background(), testRequest("extract"))
	if !errors.Is(err, ErrOverBudget) || !errors.Is(err, ErrHeld) || errors.Is(err, ErrHeuristic) {
		t.Fatalf("err = %v, want over budget and held, no heuristic fallback", err)
	}
	if !strings.Contains(err.Error(), "http used 2100 of its 2k tokens per day") {
		t.Fatalf("err = %v", err)
	}
	if n := len(h.Requests()); n != 0 {
		t.Fatalf("%d requests reached the host over budget", n)
	}
}

func TestRouterKillSwitchAndRoutes(t *testing.T) {
	cfg := config.Default().Intelligence
	cfg.Provider = "cli"
	cfg.Stages = map[string]config.StageRoute{"classify": {Provider: "http"}, "summarise": {Provider: "heuristic"}}
	r := newRun(t, cfg, nil, nil)
	for stage, want := range map[string]string{"extract": "cli", "classify": "http", "summarise": "heuristic", "entities": "cli"} {
		if got := r.ProviderFor(stage); got != want {
			t.Errorf("ProviderFor(%s) = %s, want %s", stage, got, want)
		}
	}
	if _, err := r.Call(context.Background(), testRequest("summarise")); !errors.Is(err, ErrHeuristic) {
		t.Fatalf("heuristic stage: err = %v, want ErrHeuristic", err)
	}
	killed := newRun(t, cfg, nil, map[string]string{EnvProvider: "heuristic"})
	for _, stage := range config.Stages {
		if got := killed.ProviderFor(stage); got != "heuristic" {
			t.Errorf("with the kill-switch ProviderFor(%s) = %s", stage, got)
		}
	}
}

func TestHTTPProviderSendsTheKeyFromItsEnvVar(t *testing.T) {
	h := modeltest.NewHost(t)
	cfg := h.Intelligence("llama3.2:3b")
	cfg.HTTP.APIKeyEnv = "TEST_LLM_KEY"
	missing := newRun(t, cfg, nil, nil)
	_, err := missing.Call(context.Background(), testRequest("extract"))
	if !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), "intelligence.http.api_key_env names TEST_LLM_KEY, which is not set; export TEST_LLM_KEY") {
		t.Fatalf("err = %v", err)
	}
	h.Enqueue(modeltest.Answer{Content: `{"answer":"hi"}`})
	r := newRun(t, cfg, nil, map[string]string{"TEST_LLM_KEY": "sk-test-123"})
	if _, err := r.Call(context.Background(), testRequest("extract")); err != nil {
		t.Fatal(err)
	}
	reqs := h.Requests("/v1/chat/completions")
	if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer sk-test-123" {
		t.Fatalf("requests = %+v", reqs)
	}
}

func TestRouterBadSettingsFailOnlyTheirProvider(t *testing.T) {
	h := modeltest.NewHost(t)
	h.Enqueue(modeltest.Answer{Content: `{"answer":"hi"}`})
	cfg := h.Intelligence("llama3.2:3b")
	cfg.Ollama.Host = "::not a url"
	cfg.Stages = map[string]config.StageRoute{"summarise": {Provider: "ollama"}}
	r := newRun(t, cfg, storetest.Open(t, "sqlite"), nil)
	if _, err := r.Call(context.Background(), testRequest("extract")); err != nil {
		t.Fatalf("http stage failed for ollama's settings: %v", err)
	}
	_, err := r.Call(context.Background(), testRequest("summarise"))
	if !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), `config.json: intelligence.ollama.host: "::not a url" is not a URL; write e.g. http://localhost:11434`) {
		t.Fatalf("err = %v", err)
	}
}

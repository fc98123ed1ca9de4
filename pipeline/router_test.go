package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/extract/model/modeltest"
	"github.com/recollect/recollect/fixtures/testlog"
	"github.com/recollect/recollect/store/config"
)

// chatGate holds model chat requests, once armed, until as many as it was
// armed with have arrived: the calls of concurrent runs are then all in
// flight before any is answered and booked.
type chatGate struct {
	mu      sync.Mutex
	hold    int
	release chan struct{}
}

// arm makes the next n chat requests wait for each other.
func (g *chatGate) arm(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.hold, g.release = n, make(chan struct{})
}

func (g *chatGate) wait(ctx context.Context) {
	g.mu.Lock()
	if g.hold == 0 {
		g.mu.Unlock()
		return
	}
	g.hold--
	ch := g.release
	if g.hold == 0 {
		close(ch)
	}
	g.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
	case <-time.After(20 * time.Second): // a run that never calls fails the test's assertions, not by hanging
	}
}

// front serves host behind the gate: chat requests (OpenAI's and
// Ollama's) pass through g, everything else goes straight through.
func (g *chatGate) front(t testing.TB, host *modeltest.Host) string {
	t.Helper()
	u, err := url.Parse(host.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && (r.URL.Path == "/v1/chat/completions" || r.URL.Path == "/api/chat") {
			g.wait(r.Context())
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// factAnswer is an extract answer stating content, citing event seq.
func factAnswer(content string, seq int64) modeltest.Answer {
	return modeltest.Answer{Content: fmt.Sprintf(`{"facts":[{"content":%q,"domain":"","confidence":0.9,"importance":0.5,"entities":[],"event_ids":[%d]}]}`, content, seq)}
}

// runIDsOf maps each stage to the run ids its spend rows carry.
func runIDsOf(t testing.TB, p *Pipeline) map[string][]int64 {
	t.Helper()
	rows, err := p.db.Query(`SELECT stage, COALESCE(run_id, 0) FROM spend ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]int64{}
	for rows.Next() {
		var stage string
		var id int64
		if err := rows.Scan(&stage, &id); err != nil {
			t.Fatal(err)
		}
		out[stage] = append(out[stage], id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestConcurrentRunsBookTheirOwnRunIDs: the scheduler and the MCP server's
// consolidate tool can run at once in one process, over the pipeline's one
// model router. One run extracts (an OpenAI-compatible host), the other
// integrates (classify on Ollama); both calls are in flight together, and
// each spend row carries the id of the run that made the call.
func TestConcurrentRunsBookTheirOwnRunIDs(t *testing.T) {
	ctx := context.Background()
	openAI, ollama := modeltest.NewHost(t), modeltest.NewHost(t)
	var gate chatGate
	cfg := config.Default()
	cfg.Intelligence.Stages = map[string]config.StageRoute{"extract": {Provider: "http"}, "classify": {Provider: "ollama"}}
	cfg.Intelligence.HTTP.BaseURL, cfg.Intelligence.HTTP.Model, cfg.Intelligence.HTTP.TimeoutMS = gate.front(t, openAI)+"/v1", "llama3.2:3b", 30000
	cfg.Intelligence.Ollama.Host, cfg.Intelligence.Ollama.Model, cfg.Intelligence.Ollama.TimeoutMS = gate.front(t, ollama), "llama3.2:3b", 30000
	p := openConfigured(t, cfg, nil)

	seqs := say(t, p, "s1", "I live in Paris")
	openAI.Enqueue(factAnswer("The user lives in Paris.", seqs[0]))
	before, err := p.Run(ctx, RunOptions{Steps: Steps{Extract: true}})
	if err != nil {
		t.Fatal(err)
	}
	seqs = say(t, p, "s2", "I work on the billing service")
	openAI.Enqueue(factAnswer("The user works on the billing service.", seqs[0]))
	for range 2 { // the integrate run may meet the other run's fact too
		ollama.Enqueue(modeltest.Answer{Content: `{"domain":"home"}`})
	}

	gate.arm(2)
	var wg sync.WaitGroup
	sums := make([]Summary, 2)
	errs := make([]error, 2)
	for i, steps := range []Steps{{Extract: true}, {Integrate: true}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[i], errs[i] = p.Run(ctx, RunOptions{Steps: steps})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	extractRun, integrateRun := sums[0].RunID, sums[1].RunID
	ids := runIDsOf(t, p)
	if got := ids["extract"]; len(got) != 2 || got[0] != before.RunID || got[1] != extractRun {
		t.Errorf("extract spend rows carry runs %v, want [%d %d] (the first run, then the extracting one)", got, before.RunID, extractRun)
	}
	if got := ids["classify"]; len(got) == 0 {
		t.Errorf("no classify call was booked; spend rows %v", ids)
	}
	for _, id := range ids["classify"] {
		if id != integrateRun {
			t.Errorf("classify spend rows carry runs %v, want only %d (the integrating run; extracting run %d)", ids["classify"], integrateRun, extractRun)
			break
		}
	}
}

// TestAModelPulledBetweenRunsIsFound: with intelligence.http.model unset,
// a run discovers the host's only chat model. A host with none holds the
// first run's conversation; once the user pulls a model, the next run of
// the same process finds it — a failed discovery lasts one run only.
func TestAModelPulledBetweenRunsIsFound(t *testing.T) {
	ctx := context.Background()
	host := modeltest.NewHost(t, "nomic-embed-text:latest")
	cfg := config.Default()
	cfg.Intelligence.Provider = "http"
	cfg.Intelligence.HTTP.BaseURL, cfg.Intelligence.HTTP.TimeoutMS = host.OpenAIURL(), 10000
	p := openConfigured(t, cfg, nil)
	seqs := say(t, p, "s1", "I live in Paris")

	first, err := p.Run(ctx, RunOptions{Steps: Steps{Extract: true}})
	if err != nil {
		t.Fatal(err)
	}
	if first.Extract == nil || len(first.Extract.Held) != 1 || first.Extract.FactsExtracted != 0 {
		t.Fatalf("with no chat model on the host: extract %+v, want s1 held", first.Extract)
	}

	host.SetModels("llama3.2:3b", "nomic-embed-text:latest")
	host.Enqueue(factAnswer("The user lives in Paris.", seqs[0]))
	second, err := p.Run(ctx, RunOptions{Steps: Steps{Extract: true}})
	if err != nil {
		t.Fatal(err)
	}
	if second.Extract == nil || len(second.Extract.Held) != 0 || second.Extract.FactsExtracted != 1 || second.Extract.Model != "llama3.2:3b" {
		t.Fatalf("after pulling llama3.2:3b: extract %+v, want one fact from llama3.2:3b", second.Extract)
	}
	if n := len(host.Requests("/v1/models")); n != 2 {
		t.Errorf("the host's models were listed %d times, want once per run (2)", n)
	}
}

// TestRouterWarnsOncePerRun: a run that uses an unpinned model says so
// once however many calls it makes, and every run says so again — the
// daemon's log shows it for each run, not once per process.
func TestRouterWarnsOncePerRun(t *testing.T) {
	ctx := context.Background()
	host := modeltest.NewHost(t, "llama3.2:3b")
	cfg := config.Default()
	cfg.Intelligence.Provider = "http"
	cfg.Intelligence.HTTP.BaseURL, cfg.Intelligence.HTTP.TimeoutMS = host.OpenAIURL(), 10000
	dir := t.TempDir()
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	var logs testlog.Buffer
	p, err := Open(ctx, dir, Options{Getenv: func(string) string { return "" }, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	const warning = "intelligence.http.model is empty; using llama3.2:3b"

	for run := 1; run <= 2; run++ {
		var seqs []int64
		for _, s := range []string{"a", "b"} {
			seqs = append(seqs, say(t, p, fmt.Sprintf("run%d-%s", run, s), "I keep my notes in plain text files")...)
		}
		for _, seq := range seqs {
			host.Enqueue(factAnswer("The user keeps notes in plain text files.", seq))
		}
		sum, err := p.Run(ctx, RunOptions{Steps: Steps{Extract: true}, Extract: extract.Options{All: true}})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Extract == nil || sum.Extract.FactsExtracted != 2 {
			t.Fatalf("run %d: extract %+v, want two facts from two calls", run, sum.Extract)
		}
		var said int
		for _, w := range sum.Extract.Warnings {
			if strings.HasPrefix(w, warning) {
				said++
			}
		}
		if said != 1 {
			t.Errorf("run %d reports the unpinned model %d times, want once: %q", run, said, sum.Extract.Warnings)
		}
		if n := strings.Count(logs.String(), warning); n != run {
			t.Errorf("after run %d the log says %q %d times, want once per run (%d)", run, warning, n, run)
		}
	}
}

package stats

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// spendRow writes one spend row as the extract router books a call.
func spendRow(tb testing.TB, p *pipeline.Pipeline, run int64, stage, provider, model string, in, out *int64, ok bool, at time.Time) {
	tb.Helper()
	var runArg any
	if run > 0 {
		runArg = run
	}
	if _, err := p.Store().ExecContext(context.Background(), `INSERT INTO spend(run_id, stage, provider, model, input_tokens, output_tokens, elapsed_ms, ok, created_at)
		VALUES (?,?,?,?,?,?,?,?,?)`, runArg, stage, provider, model, in, out, 100, ok, store.FormatTime(at)); err != nil {
		tb.Fatal(err)
	}
}

func ptr(n int64) *int64 { return &n }

func TestStatsSpend(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	sum := consolidate(t, p)
	now := time.Now()
	spendRow(t, p, sum.RunID, "extract", "http", "m1", ptr(1000), ptr(200), true, now.Add(-time.Hour))
	spendRow(t, p, sum.RunID, "extract", "http", "m1", nil, nil, false, now.Add(-time.Hour))
	spendRow(t, p, 0, "classify", "ollama", "m2", ptr(50), ptr(5), true, now.Add(-48*time.Hour))
	st, err := Read(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	want24 := SpendTotal{Calls: 2, Failed: 1, InputTokens: 1000, OutputTokens: 200, UnreportedCalls: 1, ElapsedMS: 200}
	if st.Spend.Last24h != want24 {
		t.Errorf("last 24 h = %+v, want %+v", st.Spend.Last24h, want24)
	}
	if all := st.Spend.AllTime; all.Calls != 3 || all.InputTokens != 1050 || all.OutputTokens != 205 {
		t.Errorf("all time = %+v", all)
	}
	if st.Spend.ByStage["classify"].Calls != 1 || st.Spend.ByProvider["http"].Calls != 2 || st.Spend.ByModel["ollama/m2"].InputTokens != 50 {
		t.Errorf("groups = %+v", st.Spend)
	}
	if len(st.Spend.LastRuns) != 1 || st.Spend.LastRuns[0].ID != sum.RunID || st.Spend.LastRuns[0].Spend.Calls != 2 {
		t.Errorf("last runs = %+v", st.Spend.LastRuns)
	}
}

func TestStatsEmbeddingCoverage(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	say(t, p, "s", shellfish, "I prefer dark mode in every editor and terminal I use.")
	consolidate(t, p)
	vec := func(n int) []byte {
		b, err := vector.Encode(make([]float32, n))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var first int64
	if err := p.Store().QueryRowContext(ctx, `SELECT min(id) FROM facts`).Scan(&first); err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		provider, model string
		dim             int
	}{{"ollama", "nomic", 4}, {"http", "old", 2}} {
		if _, err := p.Store().ExecContext(ctx, `INSERT INTO embeddings(fact_id, provider, model, dim, vector, created_at) VALUES (?,?,?,?,?,?)`,
			first, e.provider, e.model, e.dim, vec(e.dim), store.Now()); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Read(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Embeddings.Semantic != nil {
		t.Fatalf("semantic reported with no embedding provider configured: %+v", st.Embeddings.Semantic)
	}
	if len(st.Embeddings.Leftover) != 2 {
		t.Fatalf("leftover = %+v", st.Embeddings.Leftover)
	}
	p.Config.Embedding.Provider, p.Config.Embedding.Model = "ollama", "nomic"
	if st, err = Read(ctx, p); err != nil {
		t.Fatal(err)
	}
	if sem := st.Embeddings.Semantic; sem == nil || sem.Dim != nil || sem.Embedded != 0 || sem.Missing != 2 {
		t.Fatalf("before the embedder learnt its dimension: semantic = %+v", sem)
	}
	// The embed step records the dimension of the model's first answer.
	if err := store.SetMeta(ctx, p.Store(), "embedding_dim:ollama/nomic", "4"); err != nil {
		t.Fatal(err)
	}
	if st, err = Read(ctx, p); err != nil {
		t.Fatal(err)
	}
	sem := st.Embeddings.Semantic
	if sem == nil || sem.Dim == nil || *sem.Dim != 4 || sem.Embedded != 1 || sem.Missing != 1 || sem.Uncoded != 1 {
		t.Fatalf("semantic = %+v; want the vector stored without a code counted as uncoded", sem)
	}
	if n, err := integrate.BackfillCodes(ctx, p.Store(), vector.Space{Provider: "ollama", Model: "nomic", Dim: 4}, 10); err != nil || n != 1 {
		t.Fatalf("backfill: %d, %v", n, err)
	}
	if st, err = Read(ctx, p); err != nil || st.Embeddings.Semantic.Uncoded != 0 {
		t.Fatalf("after backfill: %+v, %v", st.Embeddings.Semantic, err)
	}
	if len(st.Embeddings.Leftover) != 1 || st.Embeddings.Leftover[0].Model != "old" {
		t.Fatalf("leftover = %+v", st.Embeddings.Leftover)
	}
}

// TestStatsDaemonProbeWithoutDaemon covers the two "no daemon" answers;
// cmd's TestStatsSeesRunningDaemon runs the real daemon.
func TestStatsDaemonProbeWithoutDaemon(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	dir := p.Dir()
	if ds := probeDaemon(ctx, dir); ds.Listening || ds.Note != "no daemon: the control socket does not exist; start one with recollect daemon" {
		t.Fatalf("no socket: %+v", ds)
	}
	// A Unix socket path must be short; the temp dir may be long.
	short, err := os.MkdirTemp("", "rcl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	ln, err := net.Listen("unix", notice.SocketPath(short))
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if ds := probeDaemon(ctx, short); ds.Listening || ds.PID != 0 || ds.Note != "no daemon listening: the control socket is stale; start one with recollect daemon" {
		t.Fatalf("stale socket: %+v", ds)
	}
}

func TestStatsDisk(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	p.Config.Extraction.WorkingMemorySize = 1
	say(t, p, "s", shellfish)
	toolOutput(t, p, "s", 3, 100)
	say(t, p, "s", "Could you run it again?")
	consolidate(t, p)
	st, err := Read(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Disk.ReclaimableEvents != 3 || st.Disk.ReclaimableBytes == 0 || st.Disk.BudgetBytes != nil || st.Disk.LastPruneAt != "" {
		t.Fatalf("disk = %+v", st.Disk)
	}
	if st.Disk.FileBytes != pipeline.FileBytes(p.Store().Path) || st.Disk.UsedBytes <= 0 {
		t.Fatalf("sizes = %+v", st.Disk)
	}
	if _, err := p.Prune(ctx, pipeline.PruneOptions{Apply: true}); err != nil {
		t.Fatal(err)
	}
	p.Config.Retention.DiskBudget = config.NewBytes("2GB")
	if st, err = Read(ctx, p); err != nil {
		t.Fatal(err)
	}
	if st.Disk.ReclaimableEvents != 0 || st.Disk.LastPruneEvents == nil || *st.Disk.LastPruneEvents != 3 || st.Disk.BudgetBytes == nil || *st.Disk.BudgetBytes != 2<<30 {
		t.Fatalf("after prune: %+v", st.Disk)
	}
}

// TestStatsUnreadableCountIsUnknown: a count whose table cannot be read
// is reported in Unknown with the reason; every other number still comes.
func TestStatsUnreadableCountIsUnknown(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	say(t, p, "s1", "My colleague Robin at Acme is leading the Atlas migration.")
	consolidate(t, p)
	if _, err := p.Store().ExecContext(ctx, `DROP TABLE redactions`); err != nil {
		t.Fatal(err)
	}
	st, err := Read(ctx, p)
	if err != nil {
		t.Fatalf("one unreadable count failed the whole report: %v", err)
	}
	if reason := st.Unknown["redactions"]; reason == "" || !strings.Contains(reason, "could not be read: stats: no such table: redactions") {
		t.Errorf("unknown = %v", st.Unknown)
	}
	if st.Facts.Active == 0 || st.Events.Count == 0 {
		t.Errorf("the readable counts are missing: facts %+v, events %+v", st.Facts, st.Events)
	}
}

package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/pipeline/stats"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/sqlite"
)

func TestStatsSentences(t *testing.T) {
	dir := t.TempDir()
	diskMust(t, dir, "record", "--session-id", "s", "--content", "I prefer dark mode in every editor and terminal I use.")
	diskMust(t, dir, "record", "--session-id", "s", "--role", "tool", "--event-type", "tool_result", "--content", "exit status 0")
	diskMust(t, dir, "record", "--session-id", "s", "--content", "Could you run it again?")
	diskMust(t, dir, "consolidate")
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Retention.DiskBudget = config.NewBytes("2GB")
	cfg.Intelligence.TokenBudget = map[string]map[string]config.Count{"http": {"day": config.NewCount("2M")}}
	cfg.Extraction.WorkingMemorySize = 1
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`INSERT INTO spend(run_id, stage, provider, model, input_tokens, output_tokens, elapsed_ms, ok, created_at)
		VALUES (1, 'extract', 'http', 'm1', 1200, 300, 900, 1, ?), (1, 'extract', 'http', 'm1', NULL, NULL, 800, 0, ?)`, store.Now(), store.Now())
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	out := diskMust(t, dir, "stats")
	for _, want := range []string{
		"facts        1 active, 1 total (0 superseded)\n",
		"events       3 (",
		"unextracted  0 events\n",
		"backlog      drain, batches of 50 to 800 events (every model route runs on this machine, so a backlog costs time, not money); nothing waits\n",
		"extracted by heuristic 1\n",
		"semantic     off: no embedding provider configured (embedding.provider)\n",
		"spend        last 24 h: 2 calls (1 failed), 1200 input + 300 output tokens (1 call did not report tokens); all time: 2 calls (1 failed), 1200 input + 300 output tokens (1 call did not report tokens)\n",
		"  by stage     extract: 2 calls (1 failed), 1200 input + 300 output tokens (1 call did not report tokens)\n",
		"  by model     http/m1: 2 calls",
		"disk budget  2GB: ",
		"reclaimable  1 event (13 B); recollect prune --apply removes them\n",
		"caches       none (the embedding step writes them once facts have vectors)\n",
		"privacy      only you: the data directory is 0700 and its files 0600\n",
		"daemon       no daemon: the control socket does not exist; start one with recollect daemon\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`(?m)^budget       http per day: 1500 of 2M tokens used, 1998500 left; the oldest usage ages out at \S+ \(1 call reported no tokens\)$`).MatchString(out) {
		t.Errorf("stats lacks the token budget line:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^  run 1 +cli \S+: 2 calls`).MatchString(out) {
		t.Errorf("stats lacks run 1's spend:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^file         \d+\.\d KiB on disk, \d+\.\d KiB in use$`).MatchString(out) {
		t.Errorf("stats lacks the file line:\n%s", out)
	}
	if strings.Contains(out, "unknown") {
		t.Errorf("stats reports an unknown on a plain store:\n%s", out)
	}
}

func TestDiskBudgetRefusalInStats(t *testing.T) {
	dir := t.TempDir()
	diskMust(t, dir, "record", "--session-id", "s", "--content", "Could you look at the logs?")
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Retention.DiskBudget = config.NewBytes("64KB") // below an empty store: nothing can be written
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := diskRun(t, dir, "record", "--session-id", "s", "--content", "one more line of output")
	want := "recollect: disk budget reached: the store holds "
	if code != 1 || !strings.HasPrefix(errOut, want) || !strings.HasSuffix(errOut, " against retention.disk_budget 64KB and no raw event is reclaimable (each is conversation text, unexamined, cited by a fact or in working memory); new events are refused — run recollect consolidate so extraction examines them, forget facts you no longer need, or raise retention.disk_budget in config.json\n") {
		t.Fatalf("refused record: status %d, %q", code, errOut)
	}
	out := diskMust(t, dir, "stats")
	if !regexp.MustCompile(`(?m)^refused      1 write refused for the disk budget, last at \S+: disk budget reached: the store holds `).MatchString(out) {
		t.Fatalf("stats does not report the refusal:\n%s", out)
	}
	if !strings.Contains(out, "disk budget  64KB: ") {
		t.Fatalf("stats does not show the budget:\n%s", out)
	}
}

// TestPrintEmbeddingsUncoded pins the line that says search scans every
// vector while some have no sign code.
func TestPrintEmbeddingsUncoded(t *testing.T) {
	dim := 768
	var b strings.Builder
	printEmbeddings(&b, stats.EmbeddingStats{Semantic: &stats.SemanticCoverage{Provider: "ollama", Model: "nomic-embed-text", Dim: &dim, Embedded: 10, Missing: 2, Uncoded: 3}})
	want := "semantic     ollama/nomic-embed-text/768: 10 of 12 active facts embedded (2 missing)\n" +
		"             3 vectors have no sign code yet, so search scans every vector; recollect consolidate writes them\n"
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestStatsCountsVectorCaches: stats says how large the code and vector
// files beside the store are, and that the disk budget leaves them out.
func TestStatsCountsVectorCaches(t *testing.T) {
	dir := t.TempDir()
	diskMust(t, dir, "init")
	ctx := context.Background()
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	sp := vector.Space{Provider: "ollama", Model: "m", Dim: 8}
	for i := range 300 {
		content := fmt.Sprintf("fact number %d", i)
		var id int64
		if err := db.QueryRowContext(ctx, `INSERT INTO facts(content, digest, producer, recorded_at) VALUES (?,?,'capture',?) RETURNING id`,
			content, store.Digest(content), store.Now()).Scan(&id); err != nil {
			t.Fatal(err)
		}
		v := make([]float32, sp.Dim)
		for j := range v {
			v[j] = float32((i*7+j*3)%11) - 5
		}
		if err := integrate.StoreVector(ctx, db, id, sp, v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := vector.WriteCodeFile(ctx, db, sp); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var size int64
	for _, p := range []string{vector.CodeFilePath(dir, sp), vector.VectorFilePath(dir, sp)} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatalf("cache file: %v", err)
		}
		size += fi.Size()
	}
	out := diskMust(t, dir, "stats")
	want := "caches       " + humanBytes(size) + " of vector codes and vectors beside the store, outside the disk budget; safe to delete (searches read the table instead)\n"
	if !strings.Contains(out, want) {
		t.Fatalf("stats lacks %q:\n%s", want, out)
	}
}

// A store upgraded to a signature change (schema 21) has its facts signed
// again by the next integrate run: stats says so while it waits, and not
// after.
func TestStatsSaysWhenFactsAreSignedAgain(t *testing.T) {
	dir := t.TempDir()
	diskMust(t, dir, "init")
	diskMust(t, dir, "record", "--content", "The API gateway runs on port 8443 in staging.")
	diskMust(t, dir, "consolidate")
	const says = "signatures   the next integrate run signs the stored facts again, up to fact 1,"
	if out := diskMust(t, dir, "stats"); strings.Contains(out, "signatures ") {
		t.Fatalf("a store with nothing to sign again says:\n%s", out)
	}
	db, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	// What the migration leaves in a store that holds facts.
	if _, err := db.Exec(`INSERT INTO fact_signature_backfill SELECT max(id) FROM facts`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if out := diskMust(t, dir, "stats"); !strings.Contains(out, says) {
		t.Fatalf("stats lacks %q:\n%s", says, out)
	}
	if out := diskMust(t, dir, "stats", "--json"); !strings.Contains(out, `"sign_again_up_to_fact": 1`) {
		t.Fatalf("stats --json lacks the fact to sign again up to:\n%s", out)
	}
	diskMust(t, dir, "consolidate")
	if out := diskMust(t, dir, "stats"); strings.Contains(out, "signatures ") {
		t.Fatalf("after the integrate run signed them, stats still says:\n%s", out)
	}
}

package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/extract/extracttest"
	"github.com/recollect/recollect/store/config"
)

func TestNormalizeDiaID(t *testing.T) {
	cases := []struct {
		in       string
		want     string
		repaired bool
	}{
		{"D1:3", "D1:3", false},
		{"D:11:26", "D11:26", true},
		{"D30:05", "D30:5", true},
		{" D2:1 ", "D2:1", false},
		{"D", "", false},
		{"D1", "", false},
		{"X1:2", "", false},
		{"D0:1", "", false},
		{"D1:x", "", false},
	}
	for _, c := range cases {
		got, rep := normalizeDiaID(c.in)
		if got != c.want || rep != c.repaired {
			t.Errorf("normalizeDiaID(%q) = %q, %v; want %q, %v", c.in, got, rep, c.want, c.repaired)
		}
	}
}

func TestCleanEvidence(t *testing.T) {
	known := map[string]bool{"D8:6": true, "D9:17": true, "D9:1": true, "D4:4": true, "D4:6": true, "D11:26": true}
	var cl Cleaning
	got := cleanEvidence([]string{"D8:6; D9:17", "D9:1 D4:4 D4:6", "D:11:26", "D", "D10:19", "D8:6"}, known, &cl)
	want := []string{"D8:6", "D9:17", "D9:1", "D4:4", "D4:6", "D11:26"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("evidence = %q, want %q", got, want)
	}
	if cl != (Cleaning{Split: 2, Repaired: 1, Junk: 1, Missing: 1}) {
		t.Fatalf("cleaning = %+v", cl)
	}
}

func TestScoreRanking(t *testing.T) {
	cases := []struct {
		name        string
		evidence    []string
		ranked      [][]string
		r5, r10, rr float64
	}{
		{"first hit", []string{"a"}, [][]string{{"a"}, {"b"}}, 1, 1, 1},
		{"third hit", []string{"a"}, [][]string{{"x"}, {"y"}, {"a"}}, 1, 1, 1.0 / 3},
		{"at rank 7", []string{"a"}, [][]string{{"1"}, {"2"}, {"3"}, {"4"}, {"5"}, {"6"}, {"a"}}, 0, 1, 1.0 / 7},
		{"half of two", []string{"a", "b"}, [][]string{{"x"}, {"b"}}, 0.5, 0.5, 0.5},
		{"merged fact cites both", []string{"a", "b"}, [][]string{{"a", "b"}}, 1, 1, 1},
		{"past the depth", []string{"a"}, [][]string{{"1"}, {"2"}, {"3"}, {"4"}, {"5"}, {"6"}, {"7"}, {"8"}, {"9"}, {"10"}, {"a"}}, 0, 0, 0},
		{"nothing found", []string{"a"}, nil, 0, 0, 0},
	}
	for _, c := range cases {
		r5, r10, rr := ScoreRanking(c.evidence, c.ranked)
		if r5 != c.r5 || r10 != c.r10 || rr != c.rr {
			t.Errorf("%s: got %.3f %.3f %.3f, want %.3f %.3f %.3f", c.name, r5, r10, rr, c.r5, c.r10, c.rr)
		}
	}
}

func TestPercentiles(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	l := Percentiles(ds)
	if l.N != 100 || l.P50 != 51*time.Millisecond || l.P95 != 95*time.Millisecond {
		t.Fatalf("percentiles = %+v", l)
	}
	if (Percentiles(nil) != Latency{}) {
		t.Fatal("no timings must give N = 0")
	}
}

func TestLoadLocomoMini(t *testing.T) {
	convs, cl, err := LoadLocomo(filepath.Join("testdata", "mini_locomo.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 1 || len(convs[0].Sessions) != 2 || countTurns(convs[0]) != 7 {
		t.Fatalf("read %d conversations; sessions/turns wrong: %+v", len(convs), convs)
	}
	if d := convs[0].Sessions[1].Date; !d.Equal(time.Date(2023, 6, 22, 10, 4, 0, 0, time.UTC)) {
		t.Fatalf("session 2 date = %v", d)
	}
	if cl != (Cleaning{Split: 1, Repaired: 1, Junk: 1, Missing: 1, NoEvidence: 1}) {
		t.Fatalf("cleaning = %+v", cl)
	}
}

func TestLoadLocomoErrors(t *testing.T) {
	_, _, err := LoadLocomo(filepath.Join(t.TempDir(), "absent.json"))
	if err == nil || !strings.Contains(err.Error(), "pass the path to locomo10.json") {
		t.Fatalf("missing file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"not": "a list"}`), 0o600)
	if _, _, err := LoadLocomo(bad); err == nil || !strings.Contains(err.Error(), "pass the official locomo10.json") {
		t.Fatalf("bad file: %v", err)
	}
}

func TestRunLocomoMini(t *testing.T) {
	rep, err := RunLocomo(context.Background(), LocomoOptions{Path: filepath.Join("testdata", "mini_locomo.json"), WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Turns != 7 || rep.Facts != 7 || rep.Questions != 4 {
		t.Fatalf("turns %d facts %d questions %d; want 7, 7, 4 (category 5 and the question without evidence are not scored)", rep.Turns, rep.Facts, rep.Questions)
	}
	if len(rep.Systems) != 3 || rep.Systems[0].Name != SystemRecollect {
		t.Fatalf("systems = %+v", rep.Systems)
	}
	for _, s := range rep.Systems {
		if s.Latency.N != 4 || s.Overall.N != 4 {
			t.Fatalf("%s: %d timings, %d scored", s.Name, s.Latency.N, s.Overall.N)
		}
	}
	if got := rep.Systems[0].ByCategory[4]; got.N != 2 || got.RecallAt10 != 1 {
		t.Fatalf("recollect, category 4: %+v; want both single-hop questions answered", got)
	}
	var out bytes.Buffer
	PrintLocomo(&out, rep)
	for _, want := range []string{"LoCoMo retrieval — 1 conversations, 7 turns (7 facts), 4 questions", "recollect keyword  all", "BM25 plain", "1 multi-id strings split",
		"recollect hybrid: " + HybridNotRun} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// TestRunLocomoMiniHybrid scores hybrid search against a local host that
// speaks Ollama's /api/embed: every fact is embedded, every question too,
// and the hybrid system is scored on the same questions.
func TestRunLocomoMiniHybrid(t *testing.T) {
	host := extracttest.NewHost(t, "nomic-embed-text")
	emb := host.ServeEmbeddings(16)
	rep, err := RunLocomo(context.Background(), LocomoOptions{Path: filepath.Join("testdata", "mini_locomo.json"), WorkDir: t.TempDir(),
		Embedding: config.Embedding{Provider: "ollama", Model: "nomic-embed-text", BaseURL: host.URL}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Hybrid != "" || rep.Embed <= 0 || len(rep.Systems) != 4 || rep.Systems[3].Name != SystemHybrid || rep.Systems[3].Overall.N != 4 {
		t.Fatalf("hybrid %q, embed %s, systems %+v", rep.Hybrid, rep.Embed, rep.Systems)
	}
	var out bytes.Buffer
	PrintLocomo(&out, rep)
	if !strings.Contains(out.String(), "recollect hybrid   all") || !strings.Contains(out.String(), "embed: ") {
		t.Errorf("report:\n%s", out.String())
	}
	emb.Fail(500)
	if _, err := RunLocomo(context.Background(), LocomoOptions{Path: filepath.Join("testdata", "mini_locomo.json"), WorkDir: t.TempDir(),
		Embedding: config.Embedding{Provider: "ollama", Model: "nomic-embed-text", BaseURL: host.URL}}); err == nil || !strings.Contains(err.Error(), "embed the turns") {
		t.Fatalf("a failing host: %v, want the run to stop with the embedding error", err)
	}
}

// locomoPath finds the real dataset beside the repository (or at
// $RECOLLECT_LOCOMO), or skips.
func locomoPath(t *testing.T) string {
	t.Helper()
	p := filepath.Join("..", "..", LocomoDefaultPath)
	if env := os.Getenv("RECOLLECT_LOCOMO"); env != "" {
		p = env
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("LoCoMo dataset not found at %s (it lives in ../shared/bench/locomo beside the clone, CC BY-NC, never copied here): %v", p, err)
	}
	return p
}

// TestLocomoRealBeatsBM25 runs the first real conversation: context
// ranking must beat plain BM25 there too.
func TestLocomoRealBeatsBM25(t *testing.T) {
	rep, err := RunLocomo(context.Background(), LocomoOptions{Path: locomoPath(t), WorkDir: t.TempDir(), Conversations: 1})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Score{}
	for _, s := range rep.Systems {
		byName[s.Name] = s.Overall
	}
	if rep.Questions < 150 {
		t.Fatalf("only %d questions scored in the first conversation", rep.Questions)
	}
	if k, b := byName[SystemRecollect].RecallAt10, byName[SystemBM25Plain].RecallAt10; k <= b {
		t.Fatalf("recollect recall@10 %.3f does not beat plain BM25 %.3f", k, b)
	}
}

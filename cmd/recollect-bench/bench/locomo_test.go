package bench

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recollect/recollect/extract/model/modeltest"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/postgres/pgtest"
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
	if rep.Turns != 7 || rep.Questions != 4 || len(rep.Routes) != 2 {
		t.Fatalf("turns %d questions %d routes %d; want 7, 4 (category 5 and the question without evidence are not scored), 2", rep.Turns, rep.Questions, len(rep.Routes))
	}
	if rep.Routes[0].Route != RouteCapture || rep.Routes[1].Route != RouteMetadata {
		t.Fatalf("routes %s, %s; the capture route is the headline and comes first", rep.Routes[0].Route, rep.Routes[1].Route)
	}
	for _, rr := range rep.Routes {
		if rr.Facts != 7 || rr.Active != 7 || rr.Superseded != 0 {
			t.Fatalf("%s: facts %d active %d superseded %d; want 7, 7, 0", rr.Route, rr.Facts, rr.Active, rr.Superseded)
		}
		if len(rr.Systems) != 3 || rr.Systems[0].Name != SystemRecollect {
			t.Fatalf("%s: systems = %+v", rr.Route, rr.Systems)
		}
		for _, s := range rr.Systems {
			if s.Latency.N != 4 || s.Overall.N != 4 {
				t.Fatalf("%s %s: %d timings, %d scored", rr.Route, s.Name, s.Latency.N, s.Overall.N)
			}
		}
		if got := rr.Systems[0].ByCategory[4]; got.N != 2 || got.RecallAt10 != 1 {
			t.Fatalf("%s, recollect, category 4: %+v; want both single-hop questions answered", rr.Route, got)
		}
	}
	var out bytes.Buffer
	PrintLocomo(&out, rep)
	for _, want := range []string{"LoCoMo retrieval — 1 conversations, 7 turns, 4 questions",
		"route capture: 7 facts made, 7 active, 0 (0.0%) superseded", "route metadata: 7 facts made",
		"recollect keyword  all", "BM25 plain", "BM25 porter", "1 multi-id strings split",
		"recollect hybrid: " + HybridNotRun} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Index(out.String(), "route capture") > strings.Index(out.String(), "route metadata") {
		t.Errorf("the capture route must come first:\n%s", out.String())
	}
}

// TestLocomoCaptureRoute checks that the capture route stores what
// capture_fact stores: the date and speaker in the text, said_at the
// date the text opens with, and no speaker or event; and that a route can
// be chosen alone.
func TestLocomoCaptureRoute(t *testing.T) {
	convs, _, err := LoadLocomo(filepath.Join("testdata", "mini_locomo.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := pipeline.Open(context.Background(), t.TempDir(), pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	byCapture, dups, err := ingest(context.Background(), p.Store(), RouteCapture, convs[0])
	if err != nil || dups != 0 || len(byCapture) != 7 {
		t.Fatalf("ingest: %v, %d duplicates, %d captures", err, dups, len(byCapture))
	}
	var content string
	var speaker, said sql.NullString
	var events, ids string
	if err := p.Store().QueryRow(`SELECT content, speaker, said_at, event_ids FROM session_facts ORDER BY id LIMIT 1`).Scan(&content, &speaker, &said, &ids); err != nil {
		t.Fatal(err)
	}
	if content != "[8 May 2023] Ana: Hi Ben! I adopted a grey cat called Pixel yesterday." || speaker.Valid || said.String != "2023-05-08T00:00:00.000000000Z" || ids != "[]" {
		t.Fatalf("captured %q speaker %v said_at %v events %s; want the dated line, said on its date, and nothing else", content, speaker, said, ids)
	}
	if err := p.Store().QueryRow(`SELECT count(*) FROM session_events`).Scan(&events); err != nil || events != "0" {
		t.Fatalf("the capture route recorded %s events (%v); capture_fact records none", events, err)
	}
	rep, err := RunLocomo(context.Background(), LocomoOptions{Path: filepath.Join("testdata", "mini_locomo.json"), WorkDir: t.TempDir(), Routes: []string{RouteMetadata}})
	if err != nil || len(rep.Routes) != 1 || rep.Routes[0].Route != RouteMetadata {
		t.Fatalf("metadata alone: %v, %+v", err, rep.Routes)
	}
	if _, err := RunLocomo(context.Background(), LocomoOptions{Path: filepath.Join("testdata", "mini_locomo.json"), Routes: []string{"mcp"}}); err == nil ||
		!strings.Contains(err.Error(), `unknown route "mcp"; the routes are capture, metadata`) {
		t.Fatalf("unknown route: %v", err)
	}
}

// TestRunLocomoMiniHybrid scores hybrid search against a local host that
// speaks Ollama's /api/embed: every fact is embedded, every question too,
// and the hybrid system is scored on the same questions.
func TestRunLocomoMiniHybrid(t *testing.T) {
	host := modeltest.NewHost(t, "nomic-embed-text")
	emb := host.ServeEmbeddings(16)
	rep, err := RunLocomo(context.Background(), LocomoOptions{Path: filepath.Join("testdata", "mini_locomo.json"), WorkDir: t.TempDir(),
		Embedding: config.Embedding{Provider: "ollama", Model: "nomic-embed-text", BaseURL: host.URL}})
	if err != nil {
		t.Fatal(err)
	}
	for _, rr := range rep.Routes {
		if rep.Hybrid != "" || rr.Embed <= 0 || len(rr.Systems) != 4 || rr.Systems[3].Name != SystemHybrid || rr.Systems[3].Overall.N != 4 {
			t.Fatalf("%s: hybrid %q, embed %s, systems %+v", rr.Route, rep.Hybrid, rr.Embed, rr.Systems)
		}
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
	p := filepath.Join("..", "..", "..", LocomoDefaultPath)
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
	if rep.Questions < 150 {
		t.Fatalf("only %d questions scored in the first conversation", rep.Questions)
	}
	for _, rr := range rep.Routes {
		k, _ := rr.System(SystemRecollect)
		b, _ := rr.System(SystemBM25Plain)
		if k.Overall.RecallAt10 <= b.Overall.RecallAt10 {
			t.Errorf("%s route: recollect recall@10 %.3f does not beat plain BM25 %.3f", rr.Route, k.Overall.RecallAt10, b.Overall.RecallAt10)
		}
	}
}

// TestRunLocomoMiniOnPostgres scores the mini dataset with every store on
// PostgreSQL (bench locomo --engine postgres): the same questions are
// answered as on SQLite, and no conversation's schema is left behind.
func TestRunLocomoMiniOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	path := filepath.Join("testdata", "mini_locomo.json")
	lite, err := RunLocomo(ctx, LocomoOptions{Path: path, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	pg, err := RunLocomo(ctx, LocomoOptions{Path: path, WorkDir: work,
		Storage: config.Storage{Provider: "postgres", Postgres: config.PostgresStorage{URLEnv: "LOCOMO_PG_URL"}},
		Getenv:  func(k string) string { return map[string]string{"LOCOMO_PG_URL": url}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Routes) != len(lite.Routes) || pg.Questions != lite.Questions {
		t.Fatalf("postgres scored %d routes, %d questions; sqlite %d, %d", len(pg.Routes), pg.Questions, len(lite.Routes), lite.Questions)
	}
	for i, rr := range pg.Routes {
		got, want := rr.Systems[0].Overall, lite.Routes[i].Systems[0].Overall
		if rr.Facts != lite.Routes[i].Facts || got.N != want.N || got.RecallAt10 != want.RecallAt10 {
			t.Errorf("%s: postgres %d facts, recollect %+v; sqlite %d facts, %+v", rr.Route, rr.Facts, got, lite.Routes[i].Facts, want)
		}
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var left int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM information_schema.schemata WHERE schema_name LIKE 'locomo-%'`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d conversation schemas left on the server (%v)", left, err)
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/recollect/recollect/cmd/recollect-bench/bench"
	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/store/postgres/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// runApp runs recollect-bench in process with env as its environment and
// no executable of its own (so recollect is looked for on PATH only when
// no --recollect is given), and returns stdout, stderr and the exit status.
func runApp(t *testing.T, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"recollect-bench"}, args...), Env{
		Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] },
	})
	return out.String(), errb.String(), code
}

// run is runApp with an empty environment.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	out, errs, code := runApp(t, nil, args...)
	return code, out, errs
}

func TestBenchLocomo(t *testing.T) {
	mini := filepath.Join("bench", "testdata", "mini_locomo.json")
	code, out, errs := run(t, "locomo", mini)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"recall@10", "recollect keyword  all", "BM25 porter", "ingest:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"route capture:", "route metadata:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = run(t, "locomo", "--routes", "metadata", mini)
	if code != 0 || strings.Contains(out, "route capture:") || !strings.Contains(out, "route metadata:") {
		t.Fatalf("--routes metadata: exit %d, %s\n%s", code, errs, out)
	}
	code, _, errs = run(t, "locomo", "--routes", "capture,mcp", mini)
	if code != 2 || !strings.Contains(errs, `unknown route "mcp"; the routes are capture, metadata`) {
		t.Fatalf("unknown route: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, "locomo", filepath.Join(t.TempDir(), "none.json"))
	if code != 1 || !strings.Contains(errs, "pass the path to locomo10.json") {
		t.Fatalf("missing dataset: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, "locomo", "a", "b")
	if code != 2 || !strings.Contains(errs, "give one path") {
		t.Fatalf("two paths: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, "locomo", "--embedding-model", "nomic-embed-text", mini)
	if code != 2 || !strings.Contains(errs, "need --embedding-provider ollama or http") {
		t.Fatalf("a model without a provider: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, "locomo", "--embedding-provider", "ollama", mini)
	if code == 0 || !strings.Contains(errs, "embedding.model") {
		t.Fatalf("a provider without a model: exit %d, %q", code, errs)
	}
}

// TestBenchEnginePostgres runs the copy and search parts on a tiny store
// on PostgreSQL (recollect-bench --engine postgres): both are measured against the
// server's own raw queries, and no bench schema is left on the server.
func TestBenchEnginePostgres(t *testing.T) {
	fixtures := filepath.Join("..", "..", bench.FixturesDefaultPath)
	if errs, code := bad(t, "--integrate-rounds", "0"); code != 2 || !strings.Contains(errs, "--integrate-rounds and --idle must be positive") {
		t.Errorf("--integrate-rounds 0: exit %d, %q", code, errs)
	}
	if errs, code := bad(t, "--engine", "mysql"); code != 2 || !strings.Contains(errs, `unknown engine "mysql"; use sqlite or postgres`) {
		t.Errorf("--engine mysql: exit %d, %q", code, errs)
	}
	if errs, code := bad(t, "--engine", "postgres", "--only", "copy,notify"); code != 2 || !strings.Contains(errs, `runs copy, search, hooks only; drop "notify" from --only`) {
		t.Errorf("--engine postgres --only notify: exit %d, %q", code, errs)
	}
	if _, errs, code := runApp(t, map[string]string{"HOME": t.TempDir()}, "--engine", "postgres", "--fixtures", fixtures); code != 1 || !strings.Contains(errs, "RECOLLECT_POSTGRES_URL") {
		t.Errorf("--engine postgres without the URL variable: exit %d, %q; want 1 naming the variable", code, errs)
	}
	url := pgtest.URL(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	benchSchemas := func() int {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM information_schema.schemata WHERE schema_name LIKE 'bench-%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := benchSchemas()
	env := map[string]string{"RECOLLECT_POSTGRES_URL": url, "HOME": t.TempDir()}
	out, errs, code := runApp(t, env, "--engine", "postgres", "--fixtures", fixtures, "--copy-lines", "400", "--search-sizes", "300", "--search-queries", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"engine of the copy and search stores: postgres", "raw batched insert", "ts_rank query p50"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not measured") || strings.Contains(out, "FTS5") {
		t.Errorf("a part was not measured on postgres, or measured against FTS5:\n%s", out)
	}
	if left := benchSchemas() - before; left != 0 {
		t.Errorf("%d bench schemas left on the server", left)
	}
}

// bad runs the CLI with an empty environment and returns its stderr and
// exit status.
func bad(t *testing.T, args ...string) (string, int) {
	t.Helper()
	code, _, errs := run(t, args...)
	return errs, code
}

// TestRecollectBinary: the parts that run recollect say what to build
// when --recollect holds none; the in-process parts need no binary; and a
// directory holding both binaries is the one the notify part times.
func TestRecollectBinary(t *testing.T) {
	empty := t.TempDir()
	want := "recollect-bench: --recollect " + empty + ": no recollect there; build it with `go build -tags sqlite_fts5 -o bin/ ./cmd/...` and give --recollect bin"
	for _, args := range [][]string{
		{"--only", "notify", "--recollect", empty},
		{"coding", "--recollect", empty, "--questions", filepath.Join("..", "..", "fixtures", "coding", "questions.json")},
	} {
		if _, errs, code := runApp(t, nil, args...); code != 1 || strings.TrimSpace(errs) != want {
			t.Errorf("%v: exit %d, %q; want 1 and %q", args, code, errs, want)
		}
	}
	fixtures := filepath.Join("..", "..", bench.FixturesDefaultPath)
	out, errs, code := runApp(t, nil, "--only", "search", "--recollect", empty, "--fixtures", fixtures, "--search-sizes", "200", "--search-queries", "3")
	if code != 0 || !strings.Contains(out, "FTS5 MATCH p50") {
		t.Errorf("--only search with no recollect binary: exit %d, %s\n%s", code, errs, out)
	}
	bin := testbin.Binary(t)
	out, errs, code = runApp(t, nil, "--only", "notify", "--notify-runs", "3", "--recollect", filepath.Dir(bin))
	if code != 0 || !strings.Contains(out, "notify hook ") || strings.Contains(out, "not beside") {
		t.Errorf("--only notify --recollect %s: exit %d, %s\n%s", filepath.Dir(bin), code, errs, out)
	}
}

package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/postgres"
	"github.com/recollect/recollect/store/postgres/pgtest"
	"github.com/recollect/recollect/store/storetest"
)

// openEngine opens a copy store following the Claude Code transcripts
// under home on the named engine, configured as a user configures it: in
// config.json (storage.provider), the PostgreSQL URL in the variable
// storage.postgres.url_env names.
func openEngine(t *testing.T, engine, home string) *Pipeline {
	t.Helper()
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Mode = "copy"
	cfg.Sources = []config.Source{{Kind: sources.ClaudeCode, Home: home}}
	env := map[string]string{}
	if engine == "postgres" {
		url, schema := pgtest.Schema(t)
		cfg.Storage = config.Storage{Provider: "postgres", Postgres: config.PostgresStorage{URLEnv: "TEAM_MEMORY_URL", Schema: schema}}
		env["TEAM_MEMORY_URL"] = url
	}
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	p, err := Open(context.Background(), dir, Options{Log: slog.New(slog.DiscardHandler), Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatalf("open %s pipeline: %v", engine, err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// claudeHome is a Claude Code home holding one transcript of project
// /w/app with lines.
func claudeHome(t *testing.T, lines string) string {
	t.Helper()
	home := t.TempDir()
	path := filepath.Join(home, "projects", "-w-app", "s.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// TestCopyExtractIntegrateSearchOnEveryEngine follows one transcript on
// each engine through every step a user's store takes — copy, extract,
// integrate, search — and expects the same knowledge: a move supersedes
// the old address, search finds the new one first by keyword, and forget
// takes exactly the fact and its event.
func TestCopyExtractIntegrateSearchOnEveryEngine(t *testing.T) {
	ctx := context.Background()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			home := claudeHome(t, `{"type":"user","sessionId":"s","cwd":"/w/app","timestamp":"2026-01-02T09:00:00Z","message":{"role":"user","content":"I live in Paris."}}
{"type":"user","sessionId":"s","cwd":"/w/app","timestamp":"2026-01-02T09:01:00Z","message":{"role":"user","content":"We deploy the Atlas service with Render."}}
{"type":"user","sessionId":"s","cwd":"/w/app","timestamp":"2026-01-09T09:00:00Z","message":{"role":"user","content":"I moved to Berlin last week."}}
`)
			p := openEngine(t, engine, home)
			if got := p.db.Engine().Name(); got != engine {
				t.Fatalf("store engine %q, want %q", got, engine)
			}
			sum, err := p.Run(ctx, RunOptions{Steps: Steps{Copy: true, Extract: true, Integrate: true}})
			if err != nil {
				t.Fatalf("consolidate: %v", err)
			}
			if sum.Copy == nil || sum.Copy.Events != 3 {
				t.Fatalf("copy report %+v, want 3 events", sum.Copy)
			}
			ans, err := p.Reader.Search(ctx, graph.Query{Text: "where do I live"})
			if err != nil {
				t.Fatal(err)
			}
			if len(ans.Results) == 0 || !strings.Contains(ans.Results[0].Content, "Berlin") {
				t.Fatalf("first hit for where do I live: %+v, want the move to Berlin", ans.Results)
			}
			ans, err = p.Reader.Search(ctx, graph.Query{Text: "Render deploy"})
			if err != nil {
				t.Fatal(err)
			}
			var render int64
			for _, h := range ans.Results {
				if strings.Contains(h.Content, "Render") {
					for _, m := range h.MatchedBy {
						if m.Arm == graph.ArmKeyword {
							render = h.ID
						}
					}
				}
			}
			if render == 0 {
				t.Fatalf("the Render fact was not found by the keyword arm: %+v", ans.Results)
			}
			rep, err := p.Forget(ctx, []int64{render}, ForgetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, fts := rep.RowsBy["facts_fts"]; fts != (engine == "sqlite") || (engine == "postgres") != strings.HasPrefix(rep.WAL, "kept by the server") {
				t.Errorf("forget report rows %v, WAL %q: an index table counted only where it is a table, the server's copies said on postgres", rep.RowsBy, rep.WAL)
			}
			if ans, err = p.Reader.Search(ctx, graph.Query{Text: "Render deploy"}); err != nil {
				t.Fatal(err)
			}
			for _, h := range ans.Results {
				if strings.Contains(h.Content, "Render") {
					t.Errorf("forgotten fact still found: %+v", h)
				}
			}
			active, superseded := storetest.Count(t, p.db, `SELECT count(*) FROM facts WHERE status = 'active'`), storetest.Count(t, p.db, `SELECT count(*) FROM facts WHERE status = 'superseded'`)
			if events := storetest.Count(t, p.db, `SELECT count(*) FROM session_events`); active == 0 || superseded == 0 || events != 2 {
				t.Errorf("facts %d active, %d superseded, events %d; want active and superseded facts and 2 events (3 copied, 1 forgotten with its fact)", active, superseded, events)
			}
			// Nothing fell back to a SQLite file beside the config.
			_, err = os.Stat(filepath.Join(p.db.Dir, store.DBFile))
			if exists := err == nil; exists != (engine == "sqlite") {
				t.Errorf("%s store: memory.db exists = %v", engine, exists)
			}
		})
	}
}

// TestPostgresStoreRefusesWithoutServer: a postgres store whose URL
// variable is unset, or whose server does not answer, stops Open with one
// line naming the variable or the host and the fix, and creates no SQLite
// file in its place.
func TestPostgresStoreRefusesWithoutServer(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name, url string
		is        error
		says      []string
	}{
		{"unset", "", postgres.ErrNoURL, []string{"$TEAM_MEMORY_URL is not set", "export TEAM_MEMORY_URL="}},
		{"unreachable", "postgres://ann@127.0.0.1:1/team?connect_timeout=2", postgres.ErrUnreachable, []string{"127.0.0.1:1", "start the server"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := config.Default()
			cfg.Storage = config.Storage{Provider: "postgres", Postgres: config.PostgresStorage{URLEnv: "TEAM_MEMORY_URL"}}
			if err := config.Write(dir, cfg); err != nil {
				t.Fatal(err)
			}
			_, err := Open(ctx, dir, Options{Getenv: func(k string) string {
				if k == "TEAM_MEMORY_URL" {
					return c.url
				}
				return ""
			}})
			if !errors.Is(err, c.is) {
				t.Fatalf("open: %v, want %v", err, c.is)
			}
			for _, s := range c.says {
				if !strings.Contains(err.Error(), s) || strings.Contains(err.Error(), "\n") {
					t.Errorf("error %q: want one line saying %q", err, s)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, store.DBFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a failed postgres open left %s: %v", store.DBFile, err)
			}
		})
	}
}

// TestRunRefusesAStoreUpgradedSinceOpen: when a newer recollect migrates
// the store under a running process (another machine's daemon on the same
// schema, a newer binary's command beside this daemon), the next run
// refuses with ErrNewerSchema and what to do, on either engine, instead of
// writing into tables this binary does not know.
func TestRunRefusesAStoreUpgradedSinceOpen(t *testing.T) {
	ctx := context.Background()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			p := openEngine(t, engine, t.TempDir())
			if _, err := p.Run(ctx, RunOptions{Trigger: "test"}); err != nil {
				t.Fatal(err)
			}
			newer := `PRAGMA user_version = ` + fmt.Sprint(store.SchemaVersion+1)
			if engine == "postgres" {
				newer = `UPDATE recollect_schema SET version = ` + fmt.Sprint(store.SchemaVersion+1)
			}
			if _, err := p.db.ExecContext(ctx, newer); err != nil {
				t.Fatal(err)
			}
			_, err := p.Run(ctx, RunOptions{Trigger: "test"})
			if !errors.Is(err, store.ErrNewerSchema) || !errors.Is(err, postgres.ErrNewerSchema) || !strings.Contains(err.Error(), "upgrade recollect here and restart it") {
				t.Fatalf("run on a store upgraded since open: %v; want ErrNewerSchema saying what to do", err)
			}
		})
	}
}

// TestNULAndInvalidUTF8OnEveryEngine: a transcript line whose text holds a
// NUL ("\u0000" in its JSON, as a tool's output of a binary file does) and
// a recorded event with invalid UTF-8 are stored on both engines, the
// PostgreSQL store with U+FFFD where its text cannot hold the byte; the
// line's copy used to fail there at every retry. Extraction and
// integration run over them, and a search finds the line by its words.
func TestNULAndInvalidUTF8OnEveryEngine(t *testing.T) {
	ctx := context.Background()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			home := claudeHome(t, `{"type":"user","sessionId":"s","cwd":"/w/app","timestamp":"2026-01-02T09:00:00Z","message":{"role":"user","content":"We keep the firmware blob ELF\u0000\u0001 under vendor/atlas."}}`+"\n")
			p := openEngine(t, engine, home)
			if _, err := p.Record(ctx, []store.Event{{SessionID: "r", Source: "record", Role: "user", EventType: "message", ContentType: "text",
				Content: "The atlas build log has \xff\xfe bytes in it."}}); err != nil {
				t.Fatalf("record invalid UTF-8: %v", err)
			}
			sum, err := p.Run(ctx, RunOptions{Steps: Steps{Copy: true, Extract: true, Integrate: true}})
			if err != nil {
				t.Fatalf("consolidate: %v", err)
			}
			if sum.Copy == nil || sum.Copy.Events != 1 || sum.Copy.Detail == nil || len(sum.Copy.Detail.Errors) != 0 {
				t.Fatalf("copy report %+v, want the one line stored", sum.Copy)
			}
			contents := storetest.Column[string](t, p.db, `SELECT content FROM session_events ORDER BY seq`)
			blob, bytes := "ELF\x00\x01", "\xff\xfe"
			if engine == "postgres" {
				blob, bytes = "ELF\uFFFD\x01", "\uFFFD"
			}
			want := []string{"The atlas build log has " + bytes + " bytes in it.", "We keep the firmware blob " + blob + " under vendor/atlas."}
			if !slices.Equal(contents, want) {
				t.Fatalf("stored %q, want %q", contents, want)
			}
			ans, err := p.Reader.Search(ctx, graph.Query{Text: "firmware blob vendor"})
			if err != nil {
				t.Fatal(err)
			}
			if len(ans.Results) == 0 && len(ans.Episodes) == 0 {
				t.Fatalf("search for the line's words found nothing: %+v", ans)
			}
		})
	}
}

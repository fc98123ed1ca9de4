package firstrun_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/recollect/recollect/pipeline/firstrun"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/sqlite"
)

// TestCreateOnceAmongRacers: the session-start hook and the MCP server
// start together; exactly one writes the config and the notice, every
// other returns once the config is there, and the notice is taken once.
func TestCreateOnceAmongRacers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".recollect")
	cfg, _ := firstrun.ProjectConfig("/src/app", []firstrun.Agent{{Kind: "claude-code", Transcripts: 2}}, "claude-code")
	var wg sync.WaitGroup
	var mu sync.Mutex
	created := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := firstrun.Create(dir, cfg, "made it")
			if err != nil {
				t.Error(err)
			}
			if _, err := os.Stat(filepath.Join(dir, config.FileName)); err != nil {
				t.Errorf("Create returned before the config was written: %v", err)
			}
			if ok {
				mu.Lock()
				created++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if created != 1 {
		t.Fatalf("%d processes wrote the config, want 1", created)
	}
	got, err := config.Load(dir)
	if err != nil || got.Mode != config.ModeCopy || len(got.Sources) != 1 || got.Sources[0].Cwd != "/src/app" {
		t.Fatalf("config %+v (%v), want copy mode for /src/app", got, err)
	}
	taken := 0
	for range 3 {
		if text, ok := firstrun.TakeNotice(dir); ok {
			taken++
			if text != "made it" {
				t.Errorf("notice %q", text)
			}
		}
	}
	if taken != 1 {
		t.Fatalf("the notice was taken %d times, want once", taken)
	}
	if ok, err := firstrun.Create(dir, cfg, "again"); ok || err != nil {
		t.Fatalf("Create over an existing config: created %v, %v", ok, err)
	}
}

// TestProjectConfigChoosesAgentsWithTranscripts: every agent holding
// transcripts of the project is a source, most first; with none, the
// fallback agent's.
func TestProjectConfigChoosesAgentsWithTranscripts(t *testing.T) {
	agents := []firstrun.Agent{{Kind: "claude-code", Transcripts: 1}, {Kind: "cursor"}, {Kind: "codex", Transcripts: 4}}
	cfg, used := firstrun.ProjectConfig("/p", agents, "claude-code")
	if len(cfg.Sources) != 2 || cfg.Sources[0].Kind != "codex" || cfg.Sources[1].Kind != "claude-code" || len(used) != 2 {
		t.Fatalf("sources %+v, want codex then claude-code", cfg.Sources)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	cfg, _ = firstrun.ProjectConfig("/p", []firstrun.Agent{{Kind: "cursor"}}, "claude-code")
	if len(cfg.Sources) != 1 || cfg.Sources[0].Kind != "claude-code" || cfg.Mode != config.ModeCopy {
		t.Fatalf("no transcripts: %+v, want the fallback claude-code", cfg.Sources)
	}
}

// TestFreshTakesAnEmptyStoreWithoutConfig: a store an earlier server made
// without a config, holding nothing, is fresh; one holding an event is not.
func TestFreshTakesAnEmptyStoreWithoutConfig(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if ok, err := firstrun.Fresh(ctx, dir); !ok || err != nil {
		t.Fatalf("empty directory: fresh %v, %v", ok, err)
	}
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := firstrun.Fresh(ctx, dir); !ok || err != nil {
		t.Fatalf("empty store: fresh %v, %v", ok, err)
	}
	for _, q := range []string{
		`INSERT INTO sessions (id, source, created_at) VALUES ('s', 'record', '2026-01-01T00:00:00Z')`,
		`INSERT INTO session_events (session_id, source, role, event_type, content_type, content, recorded_at) VALUES ('s', 'record', 'user', 'message', 'text', 'hello', '2026-01-01T00:00:00Z')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if ok, err := firstrun.Fresh(ctx, dir); ok || err != nil {
		t.Fatalf("store with an event: fresh %v, %v", ok, err)
	}
}

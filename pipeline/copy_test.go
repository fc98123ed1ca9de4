package pipeline

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/store/config"
)

func TestCopyStepCopiesConfiguredSources(t *testing.T) {
	ctx := context.Background()
	dir, home := t.TempDir(), t.TempDir()
	path := filepath.Join(home, "projects", "-w-app", "s.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"type":"user","sessionId":"s","cwd":"/w/app","message":{"role":"user","content":"we deploy with make ship"}}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Mode = "copy"
	cfg.Sources = []config.Source{{Kind: "claude-code", Home: home}}
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	p, err := Open(ctx, dir, Options{Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	rep, err := p.Copy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files != 1 || rep.Events != 1 || rep.Detail == nil || rep.Detail.Lines != 1 {
		t.Fatalf("copy report %+v, want 1 file, 1 event", rep)
	}

	if err := os.Symlink(filepath.Join(home, "gone"), filepath.Join(filepath.Dir(path), "broken.jsonl")); err != nil {
		t.Fatal(err)
	}
	rep, err = p.Copy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rep.Note, "0 events from 2 files; 1 could not be read (first: copy ") {
		t.Errorf("note %q", rep.Note)
	}
}

package install

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Two installs in the same second keep both originals: a backup never
// overwrites another (settings.json, and Codex's config.toml alike).
func TestBackupsNeverOverwriteEachOther(t *testing.T) {
	now := time.Date(2026, 12, 5, 0, 29, 59, 0, time.UTC)
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(settings, []byte(`{"first": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r1, err := Claude(settings, "/bin/recollect", "/d1", now)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Claude(settings, "/bin/recollect", "/d2", now)
	if err != nil {
		t.Fatal(err)
	}
	if r1.Backup == "" || r2.Backup == "" || r1.Backup == r2.Backup {
		t.Fatalf("backups %q and %q; want two files", r1.Backup, r2.Backup)
	}
	if b, _ := os.ReadFile(r1.Backup); string(b) != `{"first": true}` {
		t.Errorf("the first backup no longer holds the original: %s", b)
	}
	codex := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(codex, []byte("model = \"o4\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c1, err := Codex(codex, "/bin/recollect-notify", "/d1", false, now)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := Codex(codex, "/bin/recollect-notify", "/d2", false, now)
	if err != nil {
		t.Fatal(err)
	}
	if c1.Backup == "" || c1.Backup == c2.Backup {
		t.Fatalf("codex backups %q and %q; want two files", c1.Backup, c2.Backup)
	}
	if b, _ := os.ReadFile(c1.Backup); string(b) != "model = \"o4\"\n" {
		t.Errorf("the first codex backup no longer holds the original: %s", b)
	}
}

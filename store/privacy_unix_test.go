//go:build !windows

package store

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPrivacySaysWhoCanRead: stats' privacy line names each file others
// can read, with its mode, and says "only you" once they cannot.
func TestPrivacySaysWhoCanRead(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "config.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Privacy(dir)
	want := "others can read the directory (mode 0755), config.json (mode 0644); run chmod go-rwx on them, or open the store as its owner, which tightens them"
	if err != nil || got != want {
		t.Fatalf("Privacy = %q, %v\nwant %q", got, err, want)
	}
	if err := Private(dir, "config.json"); err != nil {
		t.Fatal(err)
	}
	if got, err := Privacy(dir); err != nil || got != "only you: the data directory is 0700 and its files 0600" {
		t.Fatalf("after Private: %q, %v", got, err)
	}
}

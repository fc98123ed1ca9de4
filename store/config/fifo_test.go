//go:build unix

package config

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recollect/recollect/store/regfile"
)

// A config.json that is a FIFO is refused at once with the path and the
// fix, never waited on (stats and mcp hung on it).
func TestLoadRefusesFIFOConfig(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, FileName), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(dir); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, regfile.ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") || !strings.Contains(err.Error(), "replace it with a regular file") {
			t.Fatalf("Load of a FIFO config: %v; want a not-a-regular-file error with the fix", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Load of a FIFO config.json hung")
	}
}

// settings set reads config.json too: a FIFO there is refused, not waited on.
func TestSetRefusesFIFOConfig(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, FileName), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Set(dir, "mode", "copy"); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, regfile.ErrNotRegular) {
			t.Fatalf("Set on a FIFO config: %v; want ErrNotRegular", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Set on a FIFO config.json hung")
	}
}

//go:build unix

package config

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestCheckProjectRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, FileName), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	err := CheckProject(dir, func(string) string { return t.TempDir() })
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("FIFO config: %v", err)
	}
}

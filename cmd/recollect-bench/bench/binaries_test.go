package bench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindRecollect pins where the harness looks for the recollect binary
// it drives: --recollect alone when given (a directory or the binary),
// else beside its own executable, else on PATH; and what the error says
// to build when none is there.
func TestFindRecollect(t *testing.T) {
	withBin, beside, onPath, empty := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	for _, dir := range []string{withBin, beside, onPath} {
		if err := os.WriteFile(filepath.Join(dir, RecollectName), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	notExec := filepath.Join(empty, "plain")
	if err := os.WriteFile(notExec, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(beside, "recollect-bench")
	path := func(string) (string, error) { return filepath.Join(onPath, RecollectName), nil }
	noPath := func(string) (string, error) { return "", errors.New("not found") }
	cases := []struct {
		name, given, self string
		lookPath          func(string) (string, error)
		want, wantErr     string
	}{
		{name: "flag names a directory", given: withBin, self: self, lookPath: path, want: filepath.Join(withBin, RecollectName)},
		{name: "flag names the binary", given: filepath.Join(withBin, RecollectName), self: self, lookPath: path, want: filepath.Join(withBin, RecollectName)},
		{name: "flag wins over beside", given: withBin, self: self, lookPath: noPath, want: filepath.Join(withBin, RecollectName)},
		{name: "flag names a directory without it", given: empty, self: self, lookPath: path,
			wantErr: "--recollect " + empty + ": no recollect there; build it with `go build -tags sqlite_fts5 -o bin/ ./cmd/...` and give --recollect bin"},
		{name: "flag names a file that cannot run", given: notExec, self: self, lookPath: path, wantErr: notExec + " is not executable"},
		{name: "beside the harness", self: self, lookPath: path, want: filepath.Join(beside, RecollectName)},
		{name: "on PATH", self: filepath.Join(empty, "recollect-bench"), lookPath: path, want: filepath.Join(onPath, RecollectName)},
		{name: "nowhere", self: filepath.Join(empty, "recollect-bench"), lookPath: noPath,
			wantErr: "no recollect binary beside " + filepath.Join(empty, "recollect-bench") + " or on PATH; build all three binaries into one directory with `go build -tags sqlite_fts5 -o bin/ ./cmd/...` and run bin/recollect-bench, or give --recollect DIR"},
		{name: "nowhere, own path unknown", lookPath: noPath, wantErr: "no recollect binary on PATH; build"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := FindRecollect(c.given, c.self, c.lookPath)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got %q, %v; want an error containing %q", got, err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

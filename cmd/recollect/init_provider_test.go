package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInitPicksTheProviderItCanSee(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		env        map[string]string
		wantConfig string
		wantOut    string
	}{
		{"claude on PATH", map[string]string{"PATH": bin}, `"provider": "cli"`, "provider cli: found claude at " + filepath.Join(bin, "claude") + ", so facts are extracted by Claude Code (model haiku)"},
		{"kill-switch", map[string]string{"PATH": bin, "RECOLLECT_PROVIDER": "heuristic"}, `"provider": "heuristic"`, "provider heuristic: RECOLLECT_PROVIDER=heuristic is set, so facts are extracted by the built-in heuristic"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			var out, errb bytes.Buffer
			home := t.TempDir() // approvals stay in the test's own HOME
			env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
				if k == "HOME" {
					return home
				}
				return tc.env[k]
			}}
			if code := Run(context.Background(), []string{"recollect", "init", "--yes", dir}, env); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Fatalf("output lacks %q:\n%s", tc.wantOut, out.String())
			}
			cfg, err := os.ReadFile(filepath.Join(dir, "config.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(cfg), tc.wantConfig) {
				t.Fatalf("config.json lacks %s", tc.wantConfig)
			}
		})
	}
}

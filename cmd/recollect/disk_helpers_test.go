package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/recollect/recollect/store/config"
)

// diskRun runs the CLI against data directory dir and returns its output
// and exit status.
func diskRun(tb testing.TB, dir string, args ...string) (stdout, stderr string, code int) {
	tb.Helper()
	var out, errb bytes.Buffer
	env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
		if k == "HOME" {
			return dir
		}
		return ""
	}}
	code = Run(context.Background(), append([]string{"recollect", "--data", dir}, args...), env)
	return out.String(), errb.String(), code
}

// diskMust runs the CLI and fails the test on a non-zero status.
func diskMust(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	out, errOut, code := diskRun(tb, dir, args...)
	if code != 0 {
		tb.Fatalf("recollect %s: status %d: %s%s", strings.Join(args, " "), code, errOut, out)
	}
	return out
}

// writeWorkingMemory sets extraction.working_memory_size in dir's config.
func writeWorkingMemory(dir string, n int) error {
	cfg, err := config.Load(dir)
	if err != nil {
		return err
	}
	cfg.Extraction.WorkingMemorySize = n
	return config.Write(dir, cfg)
}

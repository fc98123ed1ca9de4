package main

import (
	"strings"
	"testing"
)

// TestBenchPointsToRecollectBench: the shipped binary has no benchmarks;
// `recollect bench`, with any arguments, says in one line where they are,
// exits 2, and is not listed in the help.
func TestBenchPointsToRecollectBench(t *testing.T) {
	want := "recollect: the benchmarks are not part of recollect: run recollect-bench (build it beside recollect with `go build -tags sqlite_fts5 -o bin/ ./cmd/...`)\n"
	for _, args := range [][]string{{"bench"}, {"bench", "--only", "search"}, {"bench", "locomo", "locomo10.json"}} {
		code, out, errs := run(t, "", args...)
		if code != 2 || out != "" || errs != want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", args, code, out, errs, want)
		}
	}
	if _, out, _ := run(t, "", "--help"); strings.Contains(out, "bench") {
		t.Errorf("help lists bench:\n%s", out)
	}
}

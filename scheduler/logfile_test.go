package scheduler_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/scheduler"
)

// TestLogFileRotates: past the size limit the log moves to .1, .1 to .2,
// and no more than keep files remain; every recent line is kept.
func TestLogFileRotates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, scheduler.LogName)
	lf, err := scheduler.OpenLogFile(path, 100, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		fmt.Fprintf(lf, "line %02d %s\n", i, strings.Repeat("x", 30)) // 40 bytes: two lines per file
	}
	if err := lf.Close(); err != nil {
		t.Fatal(err)
	}
	if err := lf.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := fmt.Fprintln(lf, "late"); err == nil {
		t.Error("write after Close succeeded")
	}
	names, _ := filepath.Glob(path + "*")
	if len(names) != 3 {
		t.Fatalf("files %q, want 3", names)
	}
	for suffix, first := range map[string]string{"": "line 10", ".1": "line 08", ".2": "line 06"} {
		data, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), first) || strings.Count(string(data), "\n") != 2 || len(data) > 100 {
			t.Errorf("%s holds %q, want two lines from %s", scheduler.LogName+suffix, data, first)
		}
	}
	// Reopening appends to what is there.
	lf, err = scheduler.OpenLogFile(path, 100, 3)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(lf, "line 12 %s\n", strings.Repeat("x", 30))
	lf.Close()
	data, _ := os.ReadFile(path + ".1")
	if !strings.HasPrefix(string(data), "line 10") {
		t.Errorf("reopened log did not rotate by its existing size: .1 = %q", data)
	}
}

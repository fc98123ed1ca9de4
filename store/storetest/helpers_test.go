package storetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/store"
)

// recorder is a testing.TB that keeps what a helper reports instead of
// failing the test; Fatalf ends the goroutine, as testing's does.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
	runtime.Goexit()
}

// run calls fn with a recorder in a goroutine of its own, so a Fatalf
// ends only that goroutine.
func run(t *testing.T, fn func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(r)
	}()
	<-done
	return r
}

func TestGolden(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll(filepath.Join("testdata", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "sub", "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, func(tb testing.TB) { Golden(tb, "sub/a.txt", "one\ntwo\n") }); len(r.errors)+len(r.fatals) != 0 {
		t.Errorf("equal output: %q %q", r.errors, r.fatals)
	}
	if r := run(t, func(tb testing.TB) { Golden(tb, "sub/a.txt", []byte("one\n2\n")) }); len(r.errors) != 1 ||
		!strings.Contains(r.errors[0], `line 2:`) || !strings.Contains(r.errors[0], `got:  "2"`) || !strings.Contains(r.errors[0], `want: "two"`) {
		t.Errorf("different output: %q, want one error naming line 2", r.errors)
	}
	if r := run(t, func(tb testing.TB) { Golden(tb, "sub/a.txt", "one\ntwo\nthree\n") }); len(r.errors) != 1 ||
		!strings.Contains(r.errors[0], `want: "(end of file)"`) {
		t.Errorf("longer output: %q, want one error naming the end of the file", r.errors)
	}
	if r := run(t, func(tb testing.TB) { Golden(tb, "missing.txt", "x") }); len(r.fatals) != 1 || !strings.Contains(r.fatals[0], "go test -update writes it") {
		t.Errorf("missing file: %q, want a failure saying how to write it", r.fatals)
	}
}

func TestGoldenUpdate(t *testing.T) {
	t.Chdir(t.TempDir())
	*update = true
	t.Cleanup(func() { *update = false })
	Golden(t, "new/b.txt", "written\n")
	got, err := os.ReadFile(filepath.Join("testdata", "new", "b.txt"))
	if err != nil || string(got) != "written\n" {
		t.Fatalf("-update wrote %q, %v", got, err)
	}
}

func TestEventually(t *testing.T) {
	calls := 0
	took := Eventually(t, "the third call", func() bool { calls++; return calls == 3 })
	if calls != 3 || took <= 0 {
		t.Errorf("calls = %d, took %s; want 3 calls and a positive duration", calls, took)
	}
	r := run(t, func(tb testing.TB) {
		eventually(tb, 20*time.Millisecond, "a condition that never holds", func() bool { return false })
	})
	if len(r.fatals) != 1 || r.fatals[0] != "waited 20ms for a condition that never holds; it never came" {
		t.Errorf("never: %q", r.fatals)
	}
}

func TestReaders(t *testing.T) {
	ForEach(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		for _, s := range []string{
			`INSERT INTO skipped_records(source, record_type, count) VALUES ('cursor', 'summary', 2)`,
			`INSERT INTO skipped_records(source, record_type, count) VALUES ('cursor', 'image', 1)`,
			`INSERT INTO skipped_records(source, record_type, count) VALUES ('codex', 'summary', 5)`,
		} {
			if _, err := db.ExecContext(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		if n := Count(t, db, `SELECT sum(count) FROM skipped_records WHERE record_type = ?`, "summary"); n != 7 {
			t.Errorf("Count = %d, want 7", n)
		}
		if got := fmt.Sprint(Skipped(t, db, "cursor")); got != "map[image:1 summary:2]" {
			t.Errorf("Skipped(cursor) = %s", got)
		}
		if got := fmt.Sprint(Skipped(t, db, "")); got != "map[codex/summary:5 cursor/image:1 cursor/summary:2]" {
			t.Errorf("Skipped() = %s", got)
		}
		type skip struct {
			Source, Type string
			N            int64
		}
		if got := Rows[skip](t, db, `SELECT source, record_type, count FROM skipped_records ORDER BY count`); fmt.Sprint(got) != "[{cursor image 1} {cursor summary 2} {codex summary 5}]" {
			t.Errorf("Rows = %v", got)
		}
		if r := run(t, func(tb testing.TB) { Count(tb, db, `SELECT count FROM skipped_records`) }); len(r.fatals) != 1 ||
			!strings.Contains(r.fatals[0], "3 rows, want one") {
			t.Errorf("Count of three rows: %q", r.fatals)
		}
	})
}

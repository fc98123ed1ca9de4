package storetest

import (
	"bytes"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/sqlite"
)

// update is the -update flag of every test binary that imports storetest:
// Golden rewrites the files it compares with instead of failing.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// OpenDir opens the SQLite store in dir (made when missing) for tb, as a
// test opens a store that a command or daemon writes.
func OpenDir(tb testing.TB, dir string) *store.DB {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		tb.Fatalf("open store in %s: %v", dir, err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// Count returns the one integer query gives on q: a count, a sum, an id.
func Count(tb testing.TB, q Querier, query string, args ...any) int {
	tb.Helper()
	got := Column[int](tb, q, query, args...)
	if len(got) != 1 {
		tb.Fatalf("%s: %d rows, want one", query, len(got))
	}
	return got[0]
}

// Map returns the rows query gives on q as a map from the first column to
// the second.
func Map[K comparable, V any](tb testing.TB, q Querier, query string, args ...any) map[K]V {
	tb.Helper()
	out := map[K]V{}
	each(tb, q, query, args, func(rows *sql.Rows) error {
		var k K
		var v V
		err := rows.Scan(&k, &v)
		out[k] = v
		return err
	})
	return out
}

// Rows returns the rows query gives on q, each scanned into a T, a struct
// whose fields take the columns in order.
func Rows[T any](tb testing.TB, q Querier, query string, args ...any) []T {
	tb.Helper()
	var out []T
	each(tb, q, query, args, func(rows *sql.Rows) error {
		var v T
		rv := reflect.ValueOf(&v).Elem()
		if rv.Kind() != reflect.Struct {
			return fmt.Errorf("Rows scans into a struct, not %s", rv.Type())
		}
		dest := make([]any, rv.NumField())
		for i := range dest {
			dest[i] = rv.Field(i).Addr().Interface()
		}
		err := rows.Scan(dest...)
		out = append(out, v)
		return err
	})
	return out
}

// Skipped returns what was read but not stored for source, per record
// type (the skipped_records table); with source "", every source's, keyed
// "source/record_type".
func Skipped(tb testing.TB, q Querier, source string) map[string]int64 {
	tb.Helper()
	if source == "" {
		return Map[string, int64](tb, q, `SELECT source || '/' || record_type, count FROM skipped_records`)
	}
	return Map[string, int64](tb, q, `SELECT record_type, count FROM skipped_records WHERE source = ?`, source)
}

// EventuallyWithin is how long Eventually waits: far longer than any
// condition takes on a loaded machine, so only a condition that never
// holds reaches it.
const EventuallyWithin = 60 * time.Second

// Eventually polls cond, more and more slowly up to ten times a second,
// until it holds and returns how long that took; it
// fails tb, naming what it waited for, when cond still does not hold after
// EventuallyWithin.
func Eventually(tb testing.TB, what string, cond func() bool) time.Duration {
	tb.Helper()
	return eventually(tb, EventuallyWithin, what, cond)
}

func eventually(tb testing.TB, within time.Duration, what string, cond func() bool) time.Duration {
	tb.Helper()
	start, pause := time.Now(), time.Millisecond
	for !cond() {
		if time.Since(start) > within {
			tb.Fatalf("waited %s for %s; it never came", within, what)
		}
		// Quick to see a condition that comes soon, and gentle on the
		// machine when cond is costly (a query, a process) and slow.
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
	return time.Since(start)
}

// Golden compares got with the file testdata/name. With -update it writes
// got there first (making folders), so a reviewed diff of testdata/ is
// the change.
func Golden[T ~string | ~[]byte](tb testing.TB, name string, got T) {
	tb.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(name))
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal([]byte(got), want) {
		tb.Errorf("%s differs from what the test produced (go test -update rewrites it; review the diff):\n%s", path, firstDifference(string(got), string(want)))
	}
}

// firstDifference describes where got and want first differ, by line.
func firstDifference(got, want string) string {
	g, w := strings.Split(strings.TrimSuffix(got, "\n"), "\n"), strings.Split(strings.TrimSuffix(want, "\n"), "\n")
	for i := 0; ; i++ {
		var gl, wl string
		gok, wok := i < len(g), i < len(w)
		if gok {
			gl = g[i]
		}
		if wok {
			wl = w[i]
		}
		if !gok && !wok {
			return "the same lines, different bytes"
		}
		if !gok || !wok || gl != wl {
			return fmt.Sprintf("line %d:\n  got:  %q\n  want: %q\n(got %d lines, want %d)", i+1, orEnd(gl, gok), orEnd(wl, wok), len(g), len(w))
		}
	}
}

func orEnd(line string, ok bool) string {
	if !ok {
		return "(end of file)"
	}
	return line
}

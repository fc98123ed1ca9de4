package store_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/sqlite"
)

func TestInList(t *testing.T) {
	cases := []struct {
		name string
		xs   []int64
		in   string
	}{
		{"empty", nil, ""},
		{"one", []int64{7}, "?"},
		{"three", []int64{3, 1, 2}, "?,?,?"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, args := store.InList(c.xs)
			if in != c.in || len(args) != len(c.xs) {
				t.Fatalf("InList(%v) = %q with %d args, want %q with %d", c.xs, in, len(args), c.in, len(c.xs))
			}
			for i, a := range args {
				if a != any(c.xs[i]) {
					t.Fatalf("argument %d = %v, want %v", i, a, c.xs[i])
				}
			}
		})
	}
}

// TestInListSelects runs the rendered list against a real store: the
// values are bound, so a quote in one is a value, never SQL.
func TestInListSelects(t *testing.T) {
	db, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, k := range []string{"a", "b'c", "d"} {
		if err := store.SetMeta(context.Background(), db, k, "v"); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range [][]string{{"b'c", "d"}, {}} {
		in, args := store.InList(want)
		rows, err := db.QueryContext(context.Background(), `SELECT key FROM meta WHERE key IN (`+in+`) ORDER BY key`, args...)
		if err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				t.Fatal(err)
			}
			got = append(got, k)
		}
		rows.Close()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("IN %v selected %v", want, got)
		}
	}
}

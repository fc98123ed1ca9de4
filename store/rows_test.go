package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

func TestColumnAndChanged(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if _, err := db.ExecContext(ctx, `CREATE TABLE rows_probe (id INTEGER PRIMARY KEY, name TEXT NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		for i, name := range []string{"b", "a", "c"} {
			if _, err := db.ExecContext(ctx, `INSERT INTO rows_probe (id, name) VALUES (?, ?)`, i+1, name); err != nil {
				t.Fatal(err)
			}
		}
		names, err := store.Column[string](ctx, db, `SELECT name FROM rows_probe ORDER BY id`)
		if err != nil || !slices.Equal(names, []string{"b", "a", "c"}) {
			t.Fatalf("Column = %v, %v; want [b a c] in row order", names, err)
		}
		if none, err := store.Column[int64](ctx, db, `SELECT id FROM rows_probe WHERE name = ?`, "z"); err != nil || none != nil {
			t.Fatalf("Column of no rows = %v, %v; want nil", none, err)
		}
		if n, err := store.Changed(ctx, db, `DELETE FROM rows_probe WHERE name <> ?`, "a"); err != nil || n != 2 {
			t.Fatalf("Changed = %d, %v; want 2 rows deleted", n, err)
		}
		if _, err := store.Column[string](ctx, db, `SELECT nothing FROM rows_probe`); err == nil {
			t.Fatal("Column of a bad query: no error")
		}
	})
}

//go:build unix

package sources

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// Two machines copy into one store from the same path: on one it is a FIFO
// (not a transcript), on the other a transcript read fine. The first
// machine's problem stays recorded, under its name, until that machine
// reads the path fine itself: the other cannot vouch for it.
func TestTwoMachinesKeepTheirOwnProblems(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		src, dir := claudeHome(t, "/home/alice/app")
		path := filepath.Join(dir, "s1.jsonl")
		laptop, box := twoMachines(t, db, src)
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Fatal(err)
		}
		copyWithin(t, box)
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		writeFile(t, path, userLine("s1", "/home/alice/app", "the laptop's transcript"))
		copyWithin(t, laptop)
		recorded := func() []string {
			t.Helper()
			rows, err := db.QueryContext(context.Background(), `SELECT machine, problem FROM source_problems WHERE path = ? ORDER BY machine`, path)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var out []string
			for rows.Next() {
				var m, p string
				if err := rows.Scan(&m, &p); err != nil {
					t.Fatal(err)
				}
				out = append(out, m+" "+p)
			}
			return out
		}
		if got, want := recorded(), []string{box.Machine + " " + ProblemNotRegular}; !slices.Equal(got, want) {
			t.Fatalf("problems of %s after the laptop read it fine = %q, want %q", path, got, want)
		}
		copyWithin(t, box) // now a transcript on the box too
		if got := recorded(); len(got) != 0 {
			t.Errorf("problems of %s after the box read it fine = %q, want none", path, got)
		}
	})
}

package sources

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// Two machines whose transcripts have the same absolute path (a synced
// home, the same user name on a laptop and a remote box) copy into one
// store, taking turns: each stores every line of its own file exactly
// once, its progress never taken for the other's. Both files hold an
// identical line ("yes"), which each must keep.
func TestTwoMachinesSamePathKeepTheirOwnLines(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		src, dir := claudeHome(t, "/home/alice/app")
		path := filepath.Join(dir, "s1.jsonl")
		laptop, box := twoMachines(t, db, src)

		var mine = map[*Copier][]string{}
		files := map[*Copier][]byte{}
		say := func(c *Copier, texts ...string) {
			for _, s := range texts {
				files[c] = append(files[c], userLine("s1", "/home/alice/app", s)...)
				mine[c] = append(mine[c], s)
			}
		}
		turn := func(c *Copier) {
			t.Helper()
			writeFile(t, path, files[c]) // the path holds this machine's file
			copyAll(t, c)
		}
		say(laptop, "yes", "laptop: the deploy script lives in ops/deploy.sh", "laptop: we pin Go 1.26")
		turn(laptop)
		say(box, "yes", "box: the staging database is on port 6543")
		turn(box)
		say(laptop, "laptop: always run make check before pushing")
		turn(laptop)
		say(box, "box: logs rotate nightly", "box: never restart the queue by hand")
		turn(box)
		turn(laptop)
		say(box, "yes")
		turn(box)

		var want []string
		for _, c := range []*Copier{laptop, box} {
			want = append(want, mine[c]...)
		}
		got := contents(t, db, path)
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("stored %d events, want each machine's %d lines once:\n got %q\nwant %q", len(got), len(want), got, want)
		}
		var machines int
		if err := db.QueryRowContext(context.Background(), `SELECT count(DISTINCT machine) FROM source_files WHERE path = ?`, path).Scan(&machines); err != nil {
			t.Fatal(err)
		}
		if machines != 2 {
			t.Errorf("progress rows of %s on %d machines, want 2", path, machines)
		}
	})
}

// A progress row recorded before machines were told apart (machine ”) is
// taken over by the first copier that follows its path: it continues at
// the row's offset and copies nothing twice.
func TestRowBeforeMachinesIsTakenOver(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		src, dir := claudeHome(t, "/w/app")
		path := filepath.Join(dir, "s1.jsonl")
		var body []byte
		for i := range 5 {
			body = append(body, userLine("s1", "/w/app", fmt.Sprintf("line %d", i))...)
		}
		writeFile(t, path, body)
		old, _ := newCopier(t, db, src) // a copier told no machine writes rows as before
		copyAll(t, old)
		appendFile(t, path, userLine("s1", "/w/app", "line 5"))
		c, _ := newCopier(t, db, src)
		c.Machine = "laptop0000000001"
		if rep := copyAll(t, c); rep.Events != 1 || rep.Reread != 0 {
			t.Errorf("copy after the upgrade stored %d events (reread %d), want the 1 new line", rep.Events, rep.Reread)
		}
		if n := len(contents(t, db, path)); n != 6 {
			t.Errorf("%d events stored, want 6", n)
		}
		var owners []string
		rows, err := db.QueryContext(context.Background(), `SELECT machine FROM source_files WHERE path = ?`, path)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var m string
			if err := rows.Scan(&m); err != nil {
				t.Fatal(err)
			}
			owners = append(owners, m)
		}
		if !slices.Equal(owners, []string{"laptop0000000001"}) {
			t.Errorf("progress rows of %s belong to %q, want the machine that took it over", path, owners)
		}
	})
}

// twoMachines returns two copiers of src into db that differ only in the
// machine they say they run on: a laptop and a remote box.
func twoMachines(t *testing.T, db *store.DB, src config.Source) (laptop, box *Copier) {
	t.Helper()
	laptop, _ = newCopier(t, db, src)
	laptop.Machine = "laptop0000000001"
	box, _ = newCopier(t, db, src)
	box.Machine = "remotebox0000002"
	return laptop, box
}

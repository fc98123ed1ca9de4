package integrate_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// TestReadingsBound pins the Readings' bound: it holds at most twice its
// size, keeps what was used since the last turnover and forgets the rest.
func TestReadingsBound(t *testing.T) {
	rs := integrate.NewReadings(2)
	for i := range 10 {
		rs.Read(fmt.Sprintf("I use editor %d.", i), "user")
	}
	if _, misses, held := rs.Stats(); misses != 10 || held > 4 {
		t.Fatalf("10 distinct statements: %d read, %d held; want 10 read and at most 4 held", misses, held)
	}
	rs.Read("I use editor 9.", "user") // used since the last turnover: kept
	if _, misses, _ := rs.Stats(); misses != 10 {
		t.Errorf("the most recent statement was read again (%d reads)", misses)
	}
	rs.Read("I use editor 9.", "ann")  // another speaker is another reading
	rs.Read("I use editor 0.", "user") // long forgotten
	if _, misses, _ := rs.Stats(); misses != 12 {
		t.Errorf("%d reads, want 12: another speaker's and a forgotten statement are read anew", misses)
	}
}

// TestReadingsAcrossRuns integrates the labelled set's newer statements one
// run each into a store holding all the older ones, three ways: each run
// with its own readings (nil), with a Readings kept across the runs as a
// daemon's pipeline keeps one, and with one so small it turns over all the
// time. What is superseded, and by what, is the same; the kept Readings
// reads each stored statement once over all the runs. On both engines.
func TestReadingsAcrossRuns(t *testing.T) {
	for _, engine := range storetest.Engines {
		t.Run(engine, func(t *testing.T) {
			readingsAcrossRuns(t, func(tb testing.TB) *store.DB { return storetest.Open(tb, engine) })
		})
	}
}

func readingsAcrossRuns(t *testing.T, open func(testing.TB) *store.DB) {
	cases := supersessionSet(t)
	integrateAll := func(rs *integrate.Readings) []string {
		db := open(t)
		for i, c := range cases {
			say(t, db, statement{session: fmt.Sprintf("old%d", i), text: c.Older, day: 1})
		}
		in := newIntegrator(db, day(1))
		in.Readings = rs
		run(t, in)
		for i, c := range cases {
			say(t, db, statement{session: fmt.Sprintf("new%d", i), text: c.Newer, day: 5})
			in := newIntegrator(db, day(5))
			in.Readings = rs
			run(t, in)
		}
		rows, err := db.QueryContext(context.Background(), `SELECT f.content, f.status, COALESCE(n.content, '') FROM facts f
			LEFT JOIN facts n ON n.id = f.superseded_by ORDER BY f.id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var content, status, by string
			if err := rows.Scan(&content, &status, &by); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s [%s] %s", content, status, by))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	own := integrateAll(nil)
	kept := integrate.NewReadings(integrate.DefaultReadings)
	tiny := integrate.NewReadings(1)
	for name, rs := range map[string]*integrate.Readings{"kept": kept, "tiny": tiny} {
		if got := integrateAll(rs); !slices.Equal(got, own) {
			t.Errorf("%s readings: the store differs from each run reading its own:\n got %q\nwant %q", name, got, own)
		}
	}
	superseded := 0
	for _, f := range own {
		if strings.Contains(f, " [superseded] ") {
			superseded++
		}
	}
	if superseded == 0 {
		t.Fatal("nothing superseded: the comparison shows nothing")
	}
	lookups, misses, _ := kept.Stats()
	if misses > 2*len(cases) || lookups <= misses {
		t.Errorf("kept readings: %d statements asked for, %d read; want each of the %d stored statements read at most once and some asked for again",
			lookups, misses, 2*len(cases))
	}
	if _, tinyMisses, _ := tiny.Stats(); tinyMisses <= misses {
		t.Errorf("a Readings of size 1 read %d statements, the kept one %d: the bound forgets nothing", tinyMisses, misses)
	}
}

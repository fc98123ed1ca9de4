package integrate_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store/storetest"
)

// BenchmarkIntegrate integrates a batch of 100 heuristic facts into a store
// already holding 0 and 2000 facts; compare the two for how the cost of a
// fact grows with the store (run with -bench Integrate -benchtime 3x).
func BenchmarkIntegrate(b *testing.B) {
	for _, stored := range []int{0, 2000} {
		b.Run(fmt.Sprintf("stored=%d", stored), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				db := storetest.Open(b, "sqlite")
				for j := 0; j < stored; j++ {
					say(b, db, statement{session: fmt.Sprintf("old%d", j%50), text: fmt.Sprintf("Service %d of team %d runs on Kubernetes cluster %d", j, j%37, j%11), day: 1 + j%28})
				}
				if _, err := newIntegrator(db, day(28)).Run(context.Background()); err != nil {
					b.Fatal(err)
				}
				for j := 0; j < 100; j++ {
					say(b, db, statement{session: "new", text: fmt.Sprintf("I moved service %d to the Nomad cluster %d instead", j, j%7), day: 28})
				}
				b.StartTimer()
				if _, err := newIntegrator(db, day(28)).Run(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIntegrateRuns integrates 100 new facts in runs of 5, as a
// daemon integrates what each batch extracted, into a store of 2000 facts
// about the same teams and tools: each run with readings of its own (own,
// what a run given none makes) against one Readings kept across the runs
// (kept), as the pipeline keeps one. reads/fact counts the stored
// statements read anew (run with -bench IntegrateRuns -benchtime 3x).
func BenchmarkIntegrateRuns(b *testing.B) {
	for _, kept := range []bool{false, true} {
		name := "readings=own"
		if kept {
			name = "readings=kept"
		}
		b.Run(name, func(b *testing.B) {
			reads, facts := 0, 0
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				db := storetest.Open(b, "sqlite")
				for j := 0; j < 2000; j++ {
					say(b, db, statement{session: fmt.Sprintf("old%d", j%50), text: fmt.Sprintf("Team %d uses Postgres %d for the billing service %d", j%37, j%11, j), day: 1 + j%28})
				}
				if _, err := newIntegrator(db, day(28)).Run(context.Background()); err != nil {
					b.Fatal(err)
				}
				rs := integrate.NewReadings(integrate.DefaultReadings)
				for r := 0; r < 20; r++ {
					for j := 0; j < 5; j++ {
						say(b, db, statement{session: "new", text: fmt.Sprintf("Team %d uses MySQL now for the billing service %d", (5*r+j)%37, 5*r+j), day: 28})
					}
					if !kept {
						_, misses, _ := rs.Stats()
						reads += misses
						rs = integrate.NewReadings(integrate.DefaultReadings)
					}
					in := newIntegrator(db, day(28))
					in.Readings = rs
					b.StartTimer()
					if _, err := in.Run(context.Background()); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					facts += 5
				}
				_, misses, _ := rs.Stats()
				reads += misses
			}
			b.ReportMetric(float64(reads)/float64(facts), "reads/fact")
		})
	}
}

package integrate_test

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkIntegrate integrates a batch of 100 heuristic facts into a store
// already holding 0 and 2000 facts; compare the two for how the cost of a
// fact grows with the store (run with -bench Integrate -benchtime 3x).
func BenchmarkIntegrate(b *testing.B) {
	for _, stored := range []int{0, 2000} {
		b.Run(fmt.Sprintf("stored=%d", stored), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				db := openStore(b)
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

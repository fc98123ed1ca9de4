package integrate_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/recollect/recollect/store/storetest"
)

// TestPostgresClaimSkipsLockedFacts: while another writer holds some
// pending facts locked (its claim in flight), a claim takes the others at
// once instead of waiting, and takes the rest once they are free.
func TestPostgresClaimSkipsLockedFacts(t *testing.T) {
	a, b := storetest.Pair(t, "postgres")
	ctx := context.Background()
	for i := range 10 {
		say(t, a, statement{session: "s", text: fmt.Sprintf("Service number %d runs on the Omega%d cluster", i, i), day: 1 + i})
	}
	held, err := b.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Rollback()
	if _, err := held.ExecContext(ctx, `SELECT id FROM session_facts ORDER BY id LIMIT 3 FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rep, err := newIntegrator(a, day(20)).Run(wait)
	if err != nil {
		t.Fatalf("claim beside another writer's locked facts: %v (a claim that waits for the lock runs out of time)", err)
	}
	if rep.Claimed != 7 {
		t.Errorf("claimed %d beside 3 locked facts, want the 7 free ones", rep.Claimed)
	}
	if err := held.Rollback(); err != nil {
		t.Fatal(err)
	}
	rep, err = newIntegrator(a, day(20)).Run(ctx)
	if err != nil || rep.Claimed != 3 {
		t.Fatalf("after the lock is released: claimed %d, %v; want the other 3", rep.Claimed, err)
	}
}

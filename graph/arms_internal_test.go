package graph

import (
	"context"
	"errors"
	"testing"
)

// Arms run one after another keep the first error, also one from an arm
// started inside another that itself succeeds (the entity arm is started
// from the keyword arm's function), and run nothing after it; side by
// side they do as errgroup does.
func TestArmGroupKeepsTheFirstError(t *testing.T) {
	inner := errors.New("entity arm failed")
	for _, parallel := range []bool{false, true} {
		g, _ := newArmGroup(context.Background(), parallel)
		g.Go(func() error {
			g.Go(func() error { return inner })
			return nil
		})
		if err := g.Wait(); !errors.Is(err, inner) {
			t.Errorf("parallel %v: Wait = %v; want the inner arm's error", parallel, err)
		}
	}
	g, _ := newArmGroup(context.Background(), false)
	ran := false
	g.Go(func() error { return inner })
	g.Go(func() error { ran = true; return nil })
	if err := g.Wait(); !errors.Is(err, inner) || ran {
		t.Errorf("one after another: Wait = %v, later arm ran %v; want the first error and no later arm", err, ran)
	}
}

package scheduler

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/recollect/recollect/pipeline"
)

// follower keeps the events table current with the configured transcript
// sources.
type follower struct {
	log *slog.Logger
}

// newFollower returns the follower of a copy store, nil for a record store
// (its events come from record and log_event, there is nothing to follow).
func newFollower(p *pipeline.Pipeline, log *slog.Logger) (*follower, error) {
	if p.Config.Mode != "copy" {
		return nil, nil
	}
	return nil, fmt.Errorf("copy mode is configured but transcript sources are not available in this build; set mode to record")
}

func (f *follower) follow(ctx context.Context, onChange func([]string)) error {
	<-ctx.Done()
	return ctx.Err()
}

func (s *Scheduler) copyChanged(f *follower) func([]string) {
	return func(paths []string) { s.copyPaths(context.Background(), f, paths) }
}

func (s *Scheduler) copyPaths(ctx context.Context, f *follower, paths []string) {}

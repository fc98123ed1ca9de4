package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store/config"
)

// follower keeps the events table current with the configured transcript
// sources: the sources Watcher says which files changed, the pipeline's
// Copier (the one the MCP server's tool calls use too) stores their new
// complete lines. It has no loop of its own.
type follower struct {
	watcher *sources.Watcher
	p       *pipeline.Pipeline
	log     *slog.Logger
	// failing maps a path to the last copy error logged for it, so a file
	// that keeps failing is logged once and its recovery once.
	mu      sync.Mutex
	failing map[string]string
	// fails counts each failing path's copies that failed in a row: its
	// retry waits sources.RetryAfter(fails).
	fails map[string]int
}

// newFollower returns the follower of a copy store, nil for a record store
// (its events come from record and log_event, there is nothing to follow).
func newFollower(p *pipeline.Pipeline, log *slog.Logger) (*follower, error) {
	if p.Config.Mode != config.ModeCopy {
		return nil, nil
	}
	w, err := sources.NewWatcher(p.Config.Sources, p.Getenv, log)
	if err != nil {
		return nil, fmt.Errorf("watch sources: %w", err)
	}
	return &follower{watcher: w, p: p, log: log, failing: map[string]string{}, fails: map[string]int{}}, nil
}

// follow copies every changed file until ctx ends, closing first when
// the watcher's first pass (every selected file) is copied, or when the
// watcher stops before it. The watcher calls back from one goroutine, so
// the follower's copies never overlap one another.
func (s *Scheduler) follow(ctx context.Context, f *follower, first chan<- struct{}) error {
	var once sync.Once
	defer once.Do(func() { close(first) })
	return f.watcher.Run(ctx, func(paths []string) {
		s.noteFolders(ctx, f)
		stored := s.copyPaths(ctx, f, paths)
		once.Do(func() { close(first) })
		if stored > 0 {
			// New lines are the threshold moment: the gate decides whether
			// enough are waiting, so no hook is needed for it.
			s.enqueue(notice.MomentThreshold, "")
		}
	})
}

// copyPaths copies the new lines of paths, counting and logging what
// failed; one file failing never stops the others. It returns the number
// of events stored.
func (s *Scheduler) copyPaths(ctx context.Context, f *follower, paths []string) (stored int64) {
	for _, path := range paths {
		if ctx.Err() != nil {
			return stored
		}
		rep, err := f.p.CopyFile(ctx, path)
		stored += rep.Events
		if err == nil && len(rep.Errors) > 0 {
			err = &rep.Errors[0]
		}
		s.mu.Lock()
		s.status.Copied += int(rep.Events)
		s.followed += rep.Events
		if err != nil && ctx.Err() == nil {
			s.status.CopyErrors++
			s.status.LastError = err.Error()
		}
		s.mu.Unlock()
		switch {
		case ctx.Err() != nil:
			return stored
		case errors.Is(err, sources.ErrNotSelected):
			s.log.Warn("transcript outside the configured sources; not copied", "path", path, "err", err)
		case err != nil:
			retry := f.retry(path)
			if f.note(path, err.Error()) {
				s.log.Error("copy failed; will retry", "path", path, "err", err, "retry_in", retry.String())
			}
		default:
			if f.note(path, "") {
				s.log.Info("copy recovered", "path", path)
			}
			if rep.Events > 0 || rep.BadLines > 0 {
				s.log.Info("copied new transcript lines", "path", path, "events", rep.Events, "bad_lines", rep.BadLines)
			}
		}
	}
	return stored
}

// noteFolders puts the folders the watcher could not list in the daemon's
// status and in the store for stats.
func (s *Scheduler) noteFolders(ctx context.Context, f *follower) {
	unreadable := f.watcher.Unreadable()
	paths := make([]string, len(unreadable))
	for i, fe := range unreadable {
		paths[i] = fe.Path
	}
	s.mu.Lock()
	s.status.UnreadableFolders = paths
	s.mu.Unlock()
	if err := f.p.RecordFolders(ctx, unreadable); err != nil && ctx.Err() == nil {
		s.log.Warn("could not record unreadable folders", "err", err)
	}
}

// retry schedules the next copy of a path whose copy failed: the file may
// not change again (a full disk freed meanwhile), so the watcher hands it
// back after a backoff that grows with each failure in a row.
func (f *follower) retry(path string) time.Duration {
	f.mu.Lock()
	f.fails[path]++
	d := sources.RetryAfter(f.fails[path])
	f.mu.Unlock()
	f.watcher.RetryAt(path, time.Now().Add(d))
	return d
}

// note records path's copy outcome ("" for success) and reports whether it
// changed, i.e. whether it is worth a log line.
func (f *follower) note(path, errText string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	last, was := f.failing[path]
	if errText == "" {
		delete(f.failing, path)
		delete(f.fails, path)
		return was
	}
	f.failing[path] = errText
	return last != errText
}

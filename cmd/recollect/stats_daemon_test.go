package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/hooks"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/scheduler"
)

// TestStatsSeesRunningDaemon runs the real scheduler on a data directory
// and checks that stats reports it listening with its pid, and not after
// it stops.
func TestStatsSeesRunningDaemon(t *testing.T) {
	dir, err := os.MkdirTemp("", "rcl") // short: Unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := pipeline.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	release, err := scheduler.Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	done := make(chan error, 1)
	go func() { done <- scheduler.New(p, scheduler.Options{}).Run(ctx) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := hooks.Send(ctx, hooks.SocketPath(dir), hooks.Request{Op: hooks.OpStatus}); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("daemon did not answer within 30 s")
		}
		time.Sleep(20 * time.Millisecond) // polling the socket, not waiting blind
	}
	want := fmt.Sprintf("daemon       listening (pid %d) on %s\n", os.Getpid(), hooks.SocketPath(dir))
	if out := diskMust(t, dir, "stats"); !strings.Contains(out, want) {
		t.Fatalf("stats lacks %q:\n%s", want, out)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("daemon: %v", err)
	}
	if out := diskMust(t, dir, "stats"); !strings.Contains(out, "daemon       no daemon") {
		t.Fatalf("stats after the daemon stopped:\n%s", out)
	}
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/scheduler"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
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
	p, err := pipeline.Open(ctx, dir, pipeline.Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	release, err := scheduler.Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	done := make(chan error, 1)
	go func() { done <- scheduler.New(p, scheduler.Options{}).Run(ctx) }()
	storetest.Eventually(t, "the daemon to answer on its socket", func() bool {
		_, err := control.Send(ctx, notice.SocketPath(dir), notice.Request{Op: notice.OpStatus})
		return err == nil
	})
	want := fmt.Sprintf("daemon       listening (pid %d) on %s; it copies and consolidates\n", os.Getpid(), notice.SocketPath(dir))
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

// TestRecordWakesThresholdExtraction: `record` sends the threshold notice
// to a running daemon, which extracts the event when the threshold is due
// (here one event, no interval), as it does for copied lines.
func TestRecordWakesThresholdExtraction(t *testing.T) {
	dir, err := os.MkdirTemp("", "rcl") // short: Unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cfg := config.Default()
	cfg.Scheduler.ThresholdEvents, cfg.Scheduler.ThresholdInterval = 1, config.NewDuration("0s")
	cfg.Intelligence.Provider = "heuristic"
	if err := config.Write(dir, cfg); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := pipeline.Open(ctx, dir, pipeline.Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	release, err := scheduler.Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	done := make(chan error, 1)
	go func() { done <- scheduler.New(p, scheduler.Options{}).Run(ctx) }()
	status := func() *control.Status {
		resp, err := control.Send(ctx, notice.SocketPath(dir), notice.Request{Op: notice.OpStatus})
		if err != nil {
			return nil
		}
		return resp.Status
	}
	storetest.Eventually(t, "the daemon's start run to finish", func() bool {
		st := status()
		return st != nil && st.Runs["daemon-start"] > 0 && !st.Running && !st.Pending
	})
	diskMust(t, dir, "record", "--content", "My colleague Robin leads the Atlas migration.")
	storetest.Eventually(t, "record to wake threshold extraction", func() bool { st := status(); return st != nil && st.Runs["threshold"] > 0 })
	storetest.Eventually(t, "the threshold run to examine the recorded event", func() bool {
		return count(t, dir, `SELECT count(*) FROM session_events e WHERE e.seq > coalesce((SELECT last_seq FROM extract_watermarks w WHERE w.session_id = e.session_id), 0)`) == 0
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("daemon: %v", err)
	}
}

// TestEditorMCPAndDaemonSideBySide: an editor's MCP server copies and
// consolidates while no daemon runs (stats says so); a daemon started
// beside it takes the store over instead of failing, and stats names it;
// when the daemon stops, the MCP server takes the work back.
func TestEditorMCPAndDaemonSideBySide(t *testing.T) {
	dir, err := os.MkdirTemp("", "rcl") // short: Unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := testbin.Binary(t)
	env := []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "RECOLLECT_PROVIDER=heuristic"}
	start := func(args ...string) (*exec.Cmd, *bytes.Buffer) {
		t.Helper()
		cmd := exec.Command(bin, append(args, "--data", dir)...)
		cmd.Env = env
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if args[0] == "mcp" {
			if _, err := cmd.StdinPipe(); err != nil { // held open: the client stays
				t.Fatal(err)
			}
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		})
		return cmd, &errb
	}
	stats := func() string {
		cmd := exec.Command(bin, "stats", "--data", dir)
		cmd.Env = env
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	waitStats := func(what, want string) {
		t.Helper()
		var out string
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("%s: the last stats said:\n%s", what, out)
			}
		})
		storetest.Eventually(t, what+": stats to say "+strconv.Quote(want), func() bool {
			out = stats()
			return strings.Contains(out, want)
		})
	}
	mcp, _ := start("mcp")
	sock := notice.SocketPath(dir)
	waitStats("the editor's MCP server alone", fmt.Sprintf("daemon       none; recollect mcp (pid %d, an editor's or agent's MCP server) copies and consolidates until one starts, listening on %s\n", mcp.Process.Pid, sock))

	daemon, daemonErr := start("daemon")
	waitStats("a daemon beside it", fmt.Sprintf("daemon       listening (pid %d) on %s; it copies and consolidates\n", daemon.Process.Pid, sock))
	if !strings.Contains(daemonErr.String(), "took over copying and consolidating from the MCP server") {
		t.Errorf("the daemon's log does not say it took over:\n%s", daemonErr.String())
	}
	daemon.Process.Signal(syscall.SIGTERM)
	if err := daemon.Wait(); err != nil {
		t.Fatalf("daemon: %v\n%s", err, daemonErr.String())
	}
	waitStats("after the daemon stopped", fmt.Sprintf("daemon       none; recollect mcp (pid %d, an editor's", mcp.Process.Pid))
}

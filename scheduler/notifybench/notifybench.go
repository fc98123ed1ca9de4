// Package notifybench measures what a hook costs: the whole-process wall
// time of `recollect-notify compaction` (the command the installed hook
// runs) and of `recollect notify compaction` (the full binary) against a
// running daemon, beside `node -e 0` (what a Node-based hook pays just to
// start) and `true` (the cost of starting any process), all timed in the
// same run on the same machine.
//
// It starts its own daemon on a temporary data directory and stops it at
// the end; it never touches a user's store.
package notifybench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recollect/recollect/hooks/install"
	"github.com/recollect/recollect/scheduler/daemonproc"
)

// MinRuns is the fewest runs per column a reported figure rests on, and
// the default.
const MinRuns = 30

// The notify columns' names.
const (
	HookColumn = "recollect-notify compaction"
	FullColumn = "recollect notify compaction"
	// StartColumn is the hook binary starting, printing its usage and
	// exiting: the part of a notify that is process start, not notice.
	StartColumn = "recollect-notify --help"
)

// Options say what to measure.
type Options struct {
	// Binary is the recollect binary to measure (absolute path); the
	// recollect-notify beside it, when there is one, is measured too.
	Binary string
	// Runs per column; MinRuns when zero. Fewer than MinRuns is for
	// tests of the harness, not for figures.
	Runs int
}

// Column is one command's timings.
type Column struct {
	Name    string
	Command []string
	// Runs is how many runs were timed; 0 when the column was skipped.
	Runs             int
	Median, P90, Min time.Duration
	// Skipped says why the column has no figures.
	Skipped string
}

// Result is every column of one measurement.
type Result struct {
	Columns []Column
}

// Measure starts a daemon, then times the columns' commands in
// interleaved rounds (notify, node, true, notify, …) so that load on the
// machine falls on all of them alike, and stops the daemon.
func Measure(ctx context.Context, opts Options) (Result, error) {
	if opts.Runs <= 0 {
		opts.Runs = MinRuns
	}
	dir, err := os.MkdirTemp("", "recollect-notifybench-")
	if err != nil {
		return Result{}, fmt.Errorf("create data directory: %w", err)
	}
	defer os.RemoveAll(dir)
	data := filepath.Join(dir, "data")
	d, err := daemonproc.Start(ctx, opts.Binary, data)
	if err != nil {
		return Result{}, err
	}
	defer d.Kill()
	res, err := measure(ctx, opts, data)
	return res, errors.Join(err, d.Stop())
}

// measure runs the rounds against the daemon of data.
func measure(ctx context.Context, opts Options, data string) (Result, error) {
	payload := fmt.Sprintf(`{"hook_event_name":"PreCompact","session_id":"bench","transcript_path":%q,"cwd":"/tmp","trigger":"auto","custom_instructions":""}`,
		filepath.Join(data, "bench.jsonl"))
	hookBin, hasHook := install.HookBinary(opts.Binary)
	cols := []Column{
		{Name: HookColumn, Command: []string{hookBin, "compaction", "--data", data}},
		{Name: StartColumn, Command: []string{hookBin, "--help"}},
		{Name: FullColumn, Command: []string{opts.Binary, "notify", "compaction", "--data", data}},
		{Name: "node -e 0", Command: []string{"node", "-e", "0"}},
		{Name: "true", Command: []string{"true"}},
	}
	if !hasHook {
		cols[0].Skipped = install.NotifyBinaryName + " is not beside " + opts.Binary + "; build both (go build -tags sqlite_fts5 -o DIR/ ./cmd/...) to time the hook's command"
		cols[1].Skipped = cols[0].Skipped
	}
	times := make([][]time.Duration, len(cols))
	for i := range cols {
		if cols[i].Skipped != "" {
			continue
		}
		path, err := exec.LookPath(cols[i].Command[0])
		if err != nil {
			cols[i].Skipped = fmt.Sprintf("%s not found on PATH; column skipped", cols[i].Command[0])
			continue
		}
		cols[i].Command[0] = path
	}
	for range opts.Runs {
		for i, c := range cols {
			if c.Skipped != "" {
				continue
			}
			stdin := ""
			if c.Name == HookColumn || c.Name == FullColumn {
				stdin = payload
			}
			d, err := timeOnce(ctx, c.Command, stdin)
			if err != nil {
				return Result{}, fmt.Errorf("run %s: %w", c.Name, err)
			}
			times[i] = append(times[i], d)
		}
	}
	for i := range cols {
		if len(times[i]) == 0 {
			continue
		}
		slices.Sort(times[i])
		n := len(times[i])
		cols[i].Runs, cols[i].Min = n, times[i][0]
		cols[i].Median = times[i][n/2]
		if n%2 == 0 {
			cols[i].Median = (times[i][n/2-1] + times[i][n/2]) / 2
		}
		cols[i].P90 = times[i][(n*9)/10]
	}
	return Result{Columns: cols}, nil
}

// timeOnce runs argv to completion and returns its wall time. notify must
// also stay silent on stdout and stderr: a daemon is running.
func timeOnce(ctx context.Context, argv []string, stdin string) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%w: %s", err, out.String())
	}
	if out.Len() > 0 && stdin != "" {
		return 0, fmt.Errorf("notify printed %q; with a daemon running it must print nothing", out.String())
	}
	return d, nil
}

// String renders the result as a table, with each median as a ratio to
// node's (when measured) and to true's.
func (r Result) String() string {
	var b strings.Builder
	base := map[string]time.Duration{}
	for _, c := range r.Columns {
		if c.Runs > 0 {
			base[c.Name] = c.Median
		}
	}
	fmt.Fprintf(&b, "%-28s %5s %10s %10s %10s %9s %9s\n", "command", "runs", "median", "p90", "min", "÷ node", "÷ true")
	for _, c := range r.Columns {
		if c.Runs == 0 {
			fmt.Fprintf(&b, "%-28s %s\n", c.Name, c.Skipped)
			continue
		}
		fmt.Fprintf(&b, "%-28s %5d %10s %10s %10s %9s %9s\n", c.Name, c.Runs, ms(c.Median), ms(c.P90), ms(c.Min),
			ratio(c.Median, base["node -e 0"]), ratio(c.Median, base["true"]))
	}
	return b.String()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

func ratio(d, base time.Duration) string {
	if base <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f×", float64(d)/float64(base))
}

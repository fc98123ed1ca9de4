package bench

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/recollect/recollect/scheduler/daemonproc"
	"github.com/recollect/recollect/scheduler/notifybench"
	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/sqlite"
)

// NotifyResult is the whole-process wall time of a hook's notify beside
// `node -e 0` (what a Node hook starts) and `true` (the spawn floor).
type NotifyResult struct {
	Runs int `json:"runs"`
	// Hook is `recollect-notify compaction`, the installed hook's command;
	// 0 with HookMissing set when recollect-notify is not beside recollect.
	Hook        time.Duration `json:"hook_median_ns,omitempty"`
	HookMissing string        `json:"hook_missing,omitempty"`
	// HookStart is `recollect-notify --help`: the hook binary's process
	// start alone, no socket.
	HookStart time.Duration `json:"hook_start_median_ns,omitempty"`
	// Notify is `recollect notify compaction`, the full binary.
	Notify time.Duration `json:"notify_median_ns"`
	True   time.Duration `json:"true_median_ns"`
	// Node is 0 with NodeMissing set when node is not installed.
	Node        time.Duration `json:"node_median_ns,omitempty"`
	NodeMissing string        `json:"node_missing,omitempty"`
}

// BenchNotify measures notify with the daemon helper's harness
// (scheduler/notifybench: its own daemon, interleaved rounds of notify,
// node -e 0 and true) and keeps the medians.
func BenchNotify(ctx context.Context, bin string, runs int) (NotifyResult, error) {
	res := NotifyResult{Runs: runs}
	m, err := notifybench.Measure(ctx, notifybench.Options{Binary: bin, Runs: runs})
	if err != nil {
		return res, fmt.Errorf("notify: %w", err)
	}
	for _, c := range m.Columns {
		switch {
		case c.Name == "node -e 0" && c.Skipped != "":
			res.NodeMissing = c.Skipped
		case c.Name == "node -e 0":
			res.Node = c.Median
		case c.Name == "true":
			res.True = c.Median
		case c.Name == notifybench.HookColumn && c.Skipped != "":
			res.HookMissing = c.Skipped
		case c.Name == notifybench.HookColumn:
			res.Hook = c.Median
		case c.Name == notifybench.StartColumn:
			res.HookStart = c.Median
		case c.Name == notifybench.FullColumn:
			res.Notify = c.Median
		}
	}
	if res.Notify == 0 || res.True == 0 {
		return res, fmt.Errorf("notify: the harness returned no notify or true column")
	}
	return res, nil
}

// FollowResult is the latency from appending a transcript line to the
// event being found by full-text search, with the daemon following.
type FollowResult struct {
	Appends int     `json:"appends"`
	Latency Latency `json:"latency"`
}

// followSetup writes a copy-mode config following a Claude Code home
// (record mode when copyMode is false) and returns the transcript file the
// bench appends to.
func followSetup(dir, home string, copyMode bool) (string, error) {
	proj := filepath.Join(home, "projects", sources.ClaudeFolder("/bench/follow"))
	if err := os.MkdirAll(proj, 0o700); err != nil {
		return "", fmt.Errorf("create follow folder: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create data directory: %w", err)
	}
	cfg := config.Default()
	if copyMode {
		cfg.Mode = "copy"
		cfg.Sources = []config.Source{{Kind: sources.ClaudeCode, Home: home}}
	}
	if err := config.Write(dir, cfg); err != nil {
		return "", err
	}
	path := filepath.Join(proj, "f011e7a0-bench-0000-0000-000000000000.jsonl")
	return path, appendLine(path, 0, "the follow benchmark starts here")
}

func appendLine(path string, i int, text string) error {
	rec := map[string]any{"type": "user", "sessionId": "f011e7a0-bench-0000-0000-000000000000", "cwd": "/bench/follow",
		"timestamp": time.Now().UTC().Format(time.RFC3339Nano), "uuid": fmt.Sprintf("follow-%d", i),
		"message": map[string]any{"role": "user", "content": text}}
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode line: %w", err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("append line: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("append line: %w", err)
	}
	return f.Close()
}

// BenchFollow appends n lines, one at a time, and times each until a
// full-text query finds it in the daemon's store.
func BenchFollow(ctx context.Context, dir, path string, n int) (FollowResult, error) {
	res := FollowResult{Appends: n}
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		return res, err
	}
	defer db.Close()
	var ds []time.Duration
	for i := 1; i <= n; i++ {
		token := fmt.Sprintf("followmark%dx%d", i, time.Now().UnixNano()%1e6)
		start := time.Now()
		if err := appendLine(path, i, "we appended "+token+" to the transcript"); err != nil {
			return res, err
		}
		err := daemonproc.Poll(ctx, 30*time.Second, func() (bool, error) {
			var one int
			eng := db.Engine()
			err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+eng.TextHits(store.EventText)+` k`, eng.TextQuery(store.TextQuery{token})).Scan(&one)
			if err != nil && err != sql.ErrNoRows {
				return false, fmt.Errorf("look for appended line: %w", err)
			}
			return one > 0, nil
		})
		if err != nil {
			return res, fmt.Errorf("append %d never became searchable: %w", i, err)
		}
		ds = append(ds, time.Since(start))
	}
	res.Latency = Percentiles(ds)
	return res, nil
}

// IdleResult is the daemon's footprint with no input.
type IdleResult struct {
	Window  time.Duration `json:"window_ns"`
	RSSKB   int64         `json:"rss_kb_max"`
	CPU     time.Duration `json:"cpu_ns"`
	Samples int           `json:"samples"`
}

// BenchIdle samples the daemon's RSS every second and its CPU time at the
// start and end of window.
func BenchIdle(ctx context.Context, pid int, window time.Duration) (IdleResult, error) {
	res := IdleResult{Window: window}
	cpu0, rss, err := procStat(pid)
	if err != nil {
		return res, err
	}
	res.RSSKB, res.Samples = rss, 1
	end := time.Now().Add(window)
	for time.Now().Before(end) {
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(min(time.Second, time.Until(end))):
		}
		_, rss, err := procStat(pid)
		if err != nil {
			return res, err
		}
		res.RSSKB = max(res.RSSKB, rss)
		res.Samples++
	}
	cpu1, _, err := procStat(pid)
	if err != nil {
		return res, err
	}
	res.CPU = cpu1 - cpu0
	return res, nil
}

// lastLine is the last line of s, the one a failed process ends with.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// procStat reads a process's CPU time (user+system) and resident memory.
func procStat(pid int) (cpu time.Duration, rssKB int64, err error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("read process stats: %w", err)
	}
	// Fields after the command name (which may hold spaces) start after ')'.
	rest := string(stat[bytes.LastIndexByte(stat, ')')+2:])
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("read process stats: short /proc/%d/stat", pid)
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	const ticks = 100 // USER_HZ on Linux
	cpu = time.Duration(utime+stime) * time.Second / ticks
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("read process status: %w", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			rssKB, _ = strconv.ParseInt(strings.Fields(v)[0], 10, 64)
		}
	}
	return cpu, rssKB, nil
}

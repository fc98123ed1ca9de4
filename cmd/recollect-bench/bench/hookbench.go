package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/recollect/recollect/scheduler/daemonproc"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/sqlite"
)

// HookResult times the context hooks as whole processes — what Claude
// Code waits for at a session's start and on each prompt — on a store of
// Facts facts, beside `node -e 0` and `true` timed in the same rounds.
type HookResult struct {
	Facts int `json:"facts"`
	Runs  int `json:"runs"`
	// Engine is the store's engine: sqlite or postgres.
	Engine string `json:"engine"`
	// SessionStart is `recollect hooks session-start` with a startup
	// payload; Prompt is `recollect hooks user-prompt` with a sentence of
	// the fixtures as the prompt, a different one each run.
	SessionStart Latency `json:"session_start"`
	Prompt       Latency `json:"user_prompt"`
	// PromptAdded counts the prompt runs that added context (the rest
	// found nothing above the relevance floor and printed nothing).
	PromptAdded int `json:"prompt_added"`
	// SessionBytes is the size of the session-start context.
	SessionBytes int     `json:"session_bytes"`
	Node         Latency `json:"node"`
	NodeMissing  string  `json:"node_missing,omitempty"`
	True         Latency `json:"true"`
	// Search is `recollect search` on the same store with no daemon, a
	// sentence of the fixtures as the query.
	Search Latency `json:"search"`

	// The daemon rounds, timed after the rounds above with a `recollect
	// daemon` serving the store: recollect-notify session-start and
	// user-prompt (DaemonSessionStart, DaemonPrompt), answered by it,
	// `recollect search` answered by it (DaemonSearch), `recollect-notify
	// search` with the same arguments (DaemonLeanSearch), `recollect-notify
	// --help` (DaemonFloor: the lean binary's own start, which every one of
	// these rounds pays before it asks the daemon), and node -e 0 and true
	// again (DaemonNode, DaemonTrue). DaemonRSSKB is the daemon's
	// resident memory after them, DaemonPeakKB its peak. Fallback is
	// recollect-notify user-prompt with no daemon, timed in the first
	// rounds: it runs recollect hooks user-prompt. DaemonMissing says why
	// these were not measured.
	DaemonSessionStart Latency `json:"daemon_session_start"`
	DaemonPrompt       Latency `json:"daemon_user_prompt"`
	DaemonSearch       Latency `json:"daemon_search"`
	DaemonLeanSearch   Latency `json:"daemon_lean_search"`
	DaemonFloor        Latency `json:"daemon_floor"`
	DaemonNode         Latency `json:"daemon_node"`
	DaemonTrue         Latency `json:"daemon_true"`
	DaemonRSSKB        int64   `json:"daemon_rss_kb"`
	DaemonPeakKB       int64   `json:"daemon_peak_kb"`
	Fallback           Latency `json:"fallback_user_prompt"`
	DaemonMissing      string  `json:"daemon_missing,omitempty"`
}

// BenchHooks builds a store of n facts (as the search benchmark does),
// turns the prompt hook on in its config, and times runs rounds of the
// two hook commands of bin, recollect search, recollect-notify user-prompt
// with no daemon, node -e 0 and true, interleaved so load falls on all
// alike; then starts bin's daemon on the store and times runs rounds of
// the hooks through recollect-notify, search, node -e 0 and true.
//
// On SQLite, with keep set, the store is copied from keep/hooks-N, built
// there first when absent (keptStore). On PostgreSQL (stores) the store is
// a schema of its own on the server, named in the directory's config.json
// as a user's is, and dropped afterwards; the processes read the server's
// URL from the bench's own environment.
func BenchHooks(ctx context.Context, bin, work, keep, fixtures string, n, runs int, stores Stores) (res HookResult, err error) {
	res = HookResult{Facts: n, Runs: runs, Engine: stores.Engine()}
	dir := filepath.Join(work, fmt.Sprintf("hooks-%d", n))
	cfg := config.Default()
	cfg.Context.Prompt = true
	var sentences []string
	if stores.Engine() == "postgres" {
		name := fmt.Sprintf("hooks-%d", n)
		if stores.run == "" {
			if stores, err = stores.named(); err != nil {
				return res, err
			}
		}
		if sentences, err = factSentences(fixtures); err != nil {
			return res, err
		}
		db, closeDB, err := stores.open(ctx, dir, name)
		if err != nil {
			return res, err
		}
		defer func() {
			if cerr := closeDB(); err == nil {
				err = cerr
			}
		}()
		if err := buildFacts(ctx, db, sentences, n); err != nil {
			return res, err
		}
		if err := settle(ctx, db); err != nil {
			return res, err
		}
		cfg.Storage = stores.Storage
		cfg.Storage.Postgres.Schema = stores.schema(name)
	} else if sentences, err = hooksStore(ctx, dir, keep, fixtures, n); err != nil {
		return res, err
	}
	if err := config.Write(dir, cfg); err != nil {
		return res, err
	}
	node, nodeErr := exec.LookPath("node")
	if nodeErr != nil {
		res.NodeMissing = "node not found on PATH; column skipped"
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		return res, fmt.Errorf("find true: %w", err)
	}
	lean := filepath.Join(filepath.Dir(bin), "recollect-notify")
	if _, err := os.Stat(lean); err != nil {
		res.DaemonMissing = "no recollect-notify beside " + bin + "; the daemon rows are not measured"
		lean = ""
	}
	start := `{"hook_event_name":"SessionStart","session_id":"bench","transcript_path":"/tmp/bench.jsonl","cwd":"/tmp","source":"startup"}`
	rng := rand.New(rand.NewPCG(11, 12))
	var ss, pr, nd, tr, se, fb []time.Duration
	var startOut []byte
	for range runs {
		d, out, err := timeProcess(ctx, []string{bin, "hooks", "session-start", "--data", dir}, start)
		if err != nil {
			return res, fmt.Errorf("session-start hook: %w", err)
		}
		if len(out) == 0 {
			return res, fmt.Errorf("session-start hook printed nothing on a store of %d facts", n)
		}
		res.SessionBytes, startOut = len(out), out
		ss = append(ss, d)
		payload, _ := json.Marshal(map[string]string{"hook_event_name": "UserPromptSubmit", "session_id": "bench",
			"cwd": "/tmp", "prompt": sentences[rng.IntN(len(sentences))]})
		d, out, err = timeProcess(ctx, []string{bin, "hooks", "user-prompt", "--data", dir}, string(payload))
		if err != nil {
			return res, fmt.Errorf("user-prompt hook: %w", err)
		}
		if len(out) > 0 {
			res.PromptAdded++
		}
		pr = append(pr, d)
		if d, _, err = timeProcess(ctx, []string{bin, "search", "--data", dir, "--", sentences[rng.IntN(len(sentences))]}, ""); err != nil {
			return res, fmt.Errorf("search: %w", err)
		}
		se = append(se, d)
		if lean != "" {
			if d, _, err = timeProcess(ctx, []string{lean, "user-prompt", "--data", dir}, string(payload)); err != nil {
				return res, fmt.Errorf("recollect-notify user-prompt with no daemon: %w", err)
			}
			fb = append(fb, d)
		}
		if nodeErr == nil {
			if d, _, err = timeProcess(ctx, []string{node, "-e", "0"}, ""); err != nil {
				return res, fmt.Errorf("node -e 0: %w", err)
			}
			nd = append(nd, d)
		}
		if d, _, err = timeProcess(ctx, []string{truePath}, ""); err != nil {
			return res, fmt.Errorf("true: %w", err)
		}
		tr = append(tr, d)
	}
	res.SessionStart, res.Prompt, res.Node, res.True = Percentiles(ss), Percentiles(pr), Percentiles(nd), Percentiles(tr)
	res.Search, res.Fallback = Percentiles(se), Percentiles(fb)
	if lean == "" {
		return res, nil
	}
	err = benchDaemonHooks(ctx, &res, bin, lean, dir, start, startOut, sentences, node, truePath, runs)
	return res, err
}

// hooksStore puts the hooks bench's SQLite store of n facts in dir: built
// there, or with keep set copied from keep/hooks-N (see keptStore). It
// returns the fixture sentences.
func hooksStore(ctx context.Context, dir, keep, fixtures string, n int) ([]string, error) {
	build := func(dir string) error {
		db, _, err := buildSearchStore(ctx, dir, fixtures, n)
		if err != nil {
			return err
		}
		return db.Close()
	}
	if keep == "" {
		if err := build(dir); err != nil {
			return nil, err
		}
	} else if err := keptStore(ctx, dir, filepath.Join(keep, fmt.Sprintf("hooks-%d", n)), build, migrateKept); err != nil {
		return nil, fmt.Errorf("keep the hooks store: %w", err)
	}
	return factSentences(fixtures)
}

// migrateKept brings a kept store built by an earlier binary to this
// one's schema, its log checkpointed, before it is copied.
func migrateKept(ctx context.Context, dir string) error {
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		return fmt.Errorf("open the kept store %s: %w", dir, err)
	}
	_, err = db.Checkpoint(ctx)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("checkpoint the kept store %s: %w", dir, err)
	}
	return nil
}

// benchDaemonHooks starts bin's daemon on dir and times runs rounds of
// the context hooks through lean, recollect search, node -e 0 (when node
// is not "") and true; the session-start context must be startOut, what
// recollect hooks printed on the same store.
func benchDaemonHooks(ctx context.Context, res *HookResult, bin, lean, dir, start string, startOut []byte, sentences []string, node, truePath string, runs int) error {
	d, err := daemonproc.Start(ctx, bin, dir)
	if err != nil {
		return err
	}
	defer d.Kill()
	if err := daemonproc.WaitIdle(ctx, dir, time.Minute); err != nil {
		return fmt.Errorf("the daemon did not settle: %w", err)
	}
	rng := rand.New(rand.NewPCG(13, 14))
	var ss, pr, se, ls, fl, nd, tr []time.Duration
	for range runs {
		dur, out, err := timeProcess(ctx, []string{lean, "session-start", "--data", dir}, start)
		if err != nil {
			return fmt.Errorf("recollect-notify session-start: %w", err)
		}
		if !bytes.Equal(out, startOut) {
			return fmt.Errorf("recollect-notify session-start printed %d bytes, recollect hooks session-start %d: not the same context", len(out), len(startOut))
		}
		ss = append(ss, dur)
		payload, _ := json.Marshal(map[string]string{"hook_event_name": "UserPromptSubmit", "session_id": "bench",
			"cwd": "/tmp", "prompt": sentences[rng.IntN(len(sentences))]})
		if dur, _, err = timeProcess(ctx, []string{lean, "user-prompt", "--data", dir}, string(payload)); err != nil {
			return fmt.Errorf("recollect-notify user-prompt: %w", err)
		}
		pr = append(pr, dur)
		if dur, _, err = timeProcess(ctx, []string{bin, "search", "--data", dir, "--", sentences[rng.IntN(len(sentences))]}, ""); err != nil {
			return fmt.Errorf("search with the daemon: %w", err)
		}
		se = append(se, dur)
		if dur, _, err = timeProcess(ctx, []string{lean, "search", "--data", dir, "--", sentences[rng.IntN(len(sentences))]}, ""); err != nil {
			return fmt.Errorf("recollect-notify search with the daemon: %w", err)
		}
		ls = append(ls, dur)
		if dur, _, err = timeProcess(ctx, []string{lean, "--help"}, ""); err != nil {
			return fmt.Errorf("recollect-notify --help: %w", err)
		}
		fl = append(fl, dur)
		if node != "" {
			if dur, _, err = timeProcess(ctx, []string{node, "-e", "0"}, ""); err != nil {
				return fmt.Errorf("node -e 0: %w", err)
			}
			nd = append(nd, dur)
		}
		if dur, _, err = timeProcess(ctx, []string{truePath}, ""); err != nil {
			return fmt.Errorf("true: %w", err)
		}
		tr = append(tr, dur)
	}
	st, err := daemonproc.Status(ctx, dir)
	if err != nil {
		return fmt.Errorf("daemon status: %w", err)
	}
	if want := 4 * runs; st.Answered != want {
		return fmt.Errorf("the daemon answered %d of the %d hook and search requests; the rest were read without it", st.Answered, want)
	}
	if res.DaemonRSSKB, res.DaemonPeakKB, err = procMemory(d.PID()); err != nil {
		return err
	}
	res.DaemonSessionStart, res.DaemonPrompt, res.DaemonSearch = Percentiles(ss), Percentiles(pr), Percentiles(se)
	res.DaemonLeanSearch, res.DaemonFloor = Percentiles(ls), Percentiles(fl)
	res.DaemonNode, res.DaemonTrue = Percentiles(nd), Percentiles(tr)
	return d.Stop()
}

// procMemory reads a process's resident memory and its peak, in KiB.
func procMemory(pid int) (rssKB, peakKB int64, err error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("read process status: %w", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok && len(strings.Fields(v)) > 0 {
			rssKB, _ = strconv.ParseInt(strings.Fields(v)[0], 10, 64)
		}
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok && len(strings.Fields(v)) > 0 {
			peakKB, _ = strconv.ParseInt(strings.Fields(v)[0], 10, 64)
		}
	}
	return rssKB, peakKB, nil
}

// timeProcess runs argv to completion with stdin and returns its wall time
// and stdout. A hook must never write to stderr on a healthy store.
func timeProcess(ctx context.Context, argv []string, stdin string) (time.Duration, []byte, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Stdin = strings.NewReader(stdin)
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %s", err, errOut.String())
	}
	if errOut.Len() > 0 {
		return 0, nil, fmt.Errorf("%s wrote to stderr: %s", argv[0], errOut.String())
	}
	return d, out.Bytes(), nil
}

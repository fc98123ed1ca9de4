package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/recollect/recollect/store/config"
)

// HookResult times the context hooks as whole processes — what Claude
// Code waits for at a session's start and on each prompt — on a store of
// Facts facts, beside `node -e 0` and `true` timed in the same rounds.
type HookResult struct {
	Facts int `json:"facts"`
	Runs  int `json:"runs"`
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
}

// BenchHooks builds a store of n facts (as the search benchmark does),
// turns the prompt hook on in its config, and times runs rounds of the
// two hook commands of bin, node -e 0 and true, interleaved so load falls
// on all alike.
func BenchHooks(ctx context.Context, bin, work, fixtures string, n, runs int) (HookResult, error) {
	res := HookResult{Facts: n, Runs: runs}
	dir := filepath.Join(work, fmt.Sprintf("hooks-%d", n))
	db, sentences, err := buildSearchStore(ctx, dir, fixtures, n)
	if err != nil {
		return res, err
	}
	db.Close()
	cfg := config.Default()
	cfg.Context.Prompt = true
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
	start := `{"hook_event_name":"SessionStart","session_id":"bench","transcript_path":"/tmp/bench.jsonl","cwd":"/tmp","source":"startup"}`
	rng := rand.New(rand.NewPCG(11, 12))
	var ss, pr, nd, tr []time.Duration
	for range runs {
		d, out, err := timeProcess(ctx, []string{bin, "hooks", "session-start", "--data", dir}, start)
		if err != nil {
			return res, fmt.Errorf("session-start hook: %w", err)
		}
		if len(out) == 0 {
			return res, fmt.Errorf("session-start hook printed nothing on a store of %d facts", n)
		}
		res.SessionBytes = len(out)
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
	return res, nil
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

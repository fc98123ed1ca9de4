package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/fixtures"
	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// fakeClaude puts testdata/fakeclaude first on PATH and scripts its replies:
// each is an answer text wrapped in the recorded envelope, or "hang" or
// "fail". It returns the directory where the fake logs each call.
func fakeClaude(t *testing.T, replies ...string) string {
	t.Helper()
	bin, err := filepath.Abs("testdata/fakeclaude")
	if err != nil {
		t.Fatal(err)
	}
	logDir, replyDir := t.TempDir(), t.TempDir()
	envelope, err := fixtures.Models.ReadFile("models/claude-result.json")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range replies {
		body := []byte(r)
		if r != "hang" && r != "fail" {
			var env map[string]any
			if err := json.Unmarshal(envelope, &env); err != nil {
				t.Fatal(err)
			}
			env["result"] = r
			if strings.HasPrefix(r, "ERROR:") {
				env["is_error"], env["subtype"], env["result"] = true, "error_during_execution", strings.TrimPrefix(r, "ERROR:")
			}
			body, _ = json.Marshal(env)
		}
		if err := os.WriteFile(filepath.Join(replyDir, fmt.Sprint(i+1)), body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKE_CLAUDE_LOG", logDir)
	t.Setenv("FAKE_CLAUDE_REPLIES", replyDir)
	return logDir
}

func readLog(t *testing.T, dir string, call int, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, fmt.Sprint(call), name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func cliConfig(timeoutMS int) config.Intelligence {
	cfg := config.Default().Intelligence
	cfg.Provider = "cli"
	cfg.CLI.TimeoutMS = timeoutMS
	return cfg
}

func TestCLIProviderRunsClaudeAsAGuardedChild(t *testing.T) {
	logDir := fakeClaude(t, `{"answer":"hi"}`)
	db := storetest.Open(t, "sqlite")
	r := newRun(t, cliConfig(10000), db, nil)
	req := testRequest("extract")
	resp, err := r.Call(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != `{"answer":"hi"}` || resp.Model != "haiku" || resp.Provider != "cli" {
		t.Fatalf("response = %+v", resp)
	}
	if got := readLog(t, logDir, 1, "args"); got != "-p\n--output-format\njson\n--model\nhaiku\n" {
		t.Fatalf("args = %q", got)
	}
	if env := readLog(t, logDir, 1, "env"); !strings.Contains("\n"+env, "\n"+notice.EnvChild+"=1\n") {
		t.Fatalf("the child's environment lacks %s=1:\n%s", notice.EnvChild, env)
	}
	cwd := strings.TrimSpace(readLog(t, logDir, 1, "cwd"))
	here, _ := os.Getwd()
	if cwd == here || !strings.Contains(filepath.Base(cwd), "recollect-cli-") {
		t.Fatalf("claude ran in %s, want a fresh temp dir", cwd)
	}
	if _, err := os.Stat(cwd); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temp dir %s left behind", cwd)
	}
	if stdin := readLog(t, logDir, 1, "stdin"); !strings.Contains(stdin, req.Prompt) || !strings.Contains(stdin, `"required":["answer"]`) {
		t.Fatalf("stdin = %q", stdin)
	}
	rows := spendRows(t, db)
	// input = input_tokens + cache writes + cache reads of the envelope.
	if len(rows) != 1 || rows[0].In == nil || *rows[0].In != 5+1204+11876 || *rows[0].Out != 61 {
		t.Fatalf("spend = %+v", rows)
	}
}

func TestCLIProviderFailures(t *testing.T) {
	cases := []struct {
		name    string
		replies []string
		wantErr string
		calls   int
	}{
		{"error envelope twice", []string{"ERROR:rate limited", "ERROR:rate limited"}, "claude answered with an error (error_during_execution): rate limited", 2},
		{"exit status", []string{"fail"}, "Error: API Error: 529 Overloaded", 2},
		{"timeout", []string{"hang"}, "claude timed out after 400ms (intelligence.cli.timeout_ms)", 2},
		{"junk then ok", []string{"Here are your facts", `{"answer":"ok"}`}, "", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			logDir := fakeClaude(t, tc.replies...)
			db := storetest.Open(t, "sqlite")
			timeout := 10000
			if tc.replies[0] == "hang" {
				timeout = 400
			}
			r := newRun(t, cliConfig(timeout), db, nil)
			_, err := r.Call(context.Background(), testRequest("extract"))
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (!errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if got := strings.TrimSpace(readLog(t, logDir, 0, "../count")); got != fmt.Sprint(tc.calls) {
				t.Fatalf("claude ran %s times, want %d", got, tc.calls)
			}
		})
	}
}

func TestCLIProviderMissingCommandIsNotBilled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	db := storetest.Open(t, "sqlite")
	r := newRun(t, cliConfig(1000), db, nil)
	_, err := r.Call(context.Background(), testRequest("extract"))
	if !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), `intelligence.cli.command "claude" is not on PATH; install Claude Code or choose another provider`) {
		t.Fatalf("err = %v", err)
	}
	if rows := spendRows(t, db); len(rows) != 0 {
		t.Fatalf("spend rows for a process never started: %+v", rows)
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/postgres/pgtest"
)

// TestContextHooksFromDaemon runs both context hooks the three ways a
// hook can be answered — `recollect hooks VERB` in its own process,
// `recollect-notify VERB` answered by a running `recollect daemon`, and
// recollect-notify with no daemon, which runs recollect — and pins that
// they print the same bytes, on SQLite and on PostgreSQL. `recollect
// search` prints the same answered by the daemon (counted in its status)
// as it does alone, and so does `recollect-notify search` with the same
// arguments, with a daemon and without.
func TestContextHooksFromDaemon(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			bin, lean := testbin.Binary(t), testbin.NotifyBinary(t)
			base, err := os.MkdirTemp("", "rch") // short: Unix socket paths are limited
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(base) })
			dir, home := filepath.Join(base, "d"), filepath.Join(base, "h")
			env := map[string]string{"HOME": home}
			if engine == "postgres" {
				url, schema := pgtest.Schema(t)
				env["TEAM_MEMORY_URL"] = url
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				cfg := config.Default()
				cfg.Storage = config.Storage{Provider: "postgres", Postgres: config.PostgresStorage{URLEnv: "TEAM_MEMORY_URL", Schema: schema}}
				if err := config.Write(dir, cfg); err != nil {
					t.Fatal(err)
				}
			} else if _, errs, code := runApp(t, env, "init", "--yes", dir); code != 0 {
				t.Fatalf("init: %s", errs)
			}
			for _, s := range []string{"We use Postgres 16 as the database for the Atlas project.", "The nightly backup of Atlas runs at three in the morning."} {
				if _, errs, code := runApp(t, env, "record", "--data", dir, "--role", "user", "--content", s); code != 0 {
					t.Fatalf("record: %s", errs)
				}
			}
			if _, errs, code := runApp(t, env, "consolidate", "--data", dir); code != 0 {
				t.Fatalf("consolidate: %s", errs)
			}
			setConfig(t, dir, `"context": {"prompt": true}`)
			environ := []string{"PATH=" + os.Getenv("PATH")}
			for k, v := range env {
				environ = append(environ, k+"="+v)
			}
			hook := func(want string, args []string, payload string, extra ...string) (string, string) {
				t.Helper()
				cmd := exec.Command(args[0], args[1:]...)
				cmd.Env = append(append([]string(nil), environ...), extra...)
				cmd.Stdin = strings.NewReader(payload)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				if err := cmd.Run(); err != nil {
					t.Fatalf("%v: %v\n%s", args, err, errb.String())
				}
				if !strings.Contains(out.String(), want) {
					t.Fatalf("%v: stdout %q lacks %q; stderr %q", args, out.String(), want, errb.String())
				}
				return out.String(), errb.String()
			}
			payloads := map[string]string{
				"session-start": `{"hook_event_name":"SessionStart","session_id":"s9","transcript_path":"/t/s9.jsonl","cwd":"/tmp","source":"startup"}`,
				"user-prompt":   `{"hook_event_name":"UserPromptSubmit","session_id":"s9","cwd":"/tmp","prompt":"which database does Atlas use?"}`,
			}
			same := func(how, verb, out, errs, wantOut, wantErrs string) {
				t.Helper()
				if out != wantOut || errs != wantErrs {
					t.Errorf("%s %s:\nstdout %q\nstderr %q\nrecollect hooks %s:\nstdout %q\nstderr %q", how, verb, out, errs, verb, wantOut, wantErrs)
				}
			}

			daemon := exec.Command(bin, "daemon", "--data", dir)
			daemon.Env = environ
			var dlog bytes.Buffer
			daemon.Stderr = &dlog
			if err := daemon.Start(); err != nil {
				t.Fatal(err)
			}
			stopped := false
			stop := func() {
				if !stopped {
					stopped = true
					daemon.Process.Signal(os.Interrupt)
					daemon.Wait()
				}
			}
			t.Cleanup(stop)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			for {
				resp, err := control.WaitIdle(ctx, notice.SocketPath(dir), 10*time.Second)
				if err == nil && resp.Status != nil && resp.Status.Runs["daemon-start"] > 0 && !resp.Status.Running && !resp.Status.Pending {
					break
				}
				if ctx.Err() != nil {
					t.Fatalf("daemon did not settle: %v\n%s", err, dlog.String())
				}
				time.Sleep(20 * time.Millisecond) // polling the socket, not waiting blind
			}
			for _, verb := range []string{"session-start", "user-prompt"} {
				wantOut, wantErrs := hook("Postgres 16", []string{bin, "hooks", verb, "--data", dir}, payloads[verb])
				// No recollect to fall back on: only the daemon can answer.
				out, errs := hook("", []string{lean, verb, "--data", dir}, payloads[verb], "RECOLLECT_BIN="+filepath.Join(base, "absent"))
				same("recollect-notify with a daemon", verb, out, errs, wantOut, wantErrs)
			}
			searches := [][]string{
				{bin, "search", "--data", dir, "which database does Atlas use"},
				{bin, "search", "--data", dir, "--json", "Atlas backup"},
				{bin, "search", "--data", dir, "--as-of", "2099-01-01", "--limit", "1", "Atlas"},
			}
			var byDaemon []string
			for _, args := range searches {
				out, _ := hook("Atlas", args, "")
				byDaemon = append(byDaemon, out)
			}
			// recollect-notify search with recollect's arguments: the first
			// two with no recollect to fall back on, so only the daemon can
			// answer; --as-of is left to recollect, which asks the daemon.
			leanSearches := [][]string{
				append([]string{lean}, searches[0][1:]...),
				{lean, "search", "--json", "Atlas backup", "--data", dir},
				append([]string{lean}, searches[2][1:]...),
			}
			leanBin := func(i int) string {
				if i < 2 {
					return "RECOLLECT_BIN=" + filepath.Join(base, "absent")
				}
				return "RECOLLECT_BIN=" + bin
			}
			var leanByDaemon []string
			for i, args := range leanSearches {
				out, _ := hook("Atlas", args, "", leanBin(i))
				leanByDaemon = append(leanByDaemon, out)
			}
			resp, err := control.Send(ctx, notice.SocketPath(dir), notice.Request{Op: notice.OpStatus})
			if want := 2 + len(searches) + len(leanSearches); err != nil || resp.Status.Answered != want {
				t.Fatalf("status %+v, %v; want %d requests answered by the daemon", resp.Status, err, want)
			}
			stop()
			for i, args := range searches {
				out, _ := hook("Atlas", args, "")
				if out != byDaemon[i] {
					t.Errorf("%v answered by the daemon:\n%s\nalone:\n%s", args[1:], byDaemon[i], out)
				}
				if leanByDaemon[i] != out {
					t.Errorf("%v answered by the daemon:\n%s\nrecollect search alone:\n%s", leanSearches[i], leanByDaemon[i], out)
				}
				if alone, _ := hook("Atlas", leanSearches[i], "", "RECOLLECT_BIN="+bin); alone != out {
					t.Errorf("%v with no daemon:\n%s\nrecollect search:\n%s", leanSearches[i], alone, out)
				}
			}
			for _, verb := range []string{"session-start", "user-prompt"} {
				wantOut, wantErrs := hook("Postgres 16", []string{bin, "hooks", verb, "--data", dir}, payloads[verb])
				out, errs := hook("", []string{lean, verb, "--data", dir}, payloads[verb])
				same("recollect-notify without a daemon", verb, out, errs, wantOut, wantErrs)
			}
		})
	}
}

// TestContextServer calls the daemon's context handler in process: a
// request naming no bound still gets the whole one and the bytes
// `recollect hooks` prints; the hook of another data directory, one named
// relative to the hook's own directory and an unknown hook are refused,
// so the hook binary runs recollect itself.
func TestContextServer(t *testing.T) {
	dir, p := atlasStore(t)
	serve := contextServer(p)
	payload := `{"hook_event_name":"SessionStart","session_id":"s2","cwd":"/tmp","source":"startup"}`
	_, wantOut, wantErrs := run(t, payload, "hooks", "session-start", "--data", dir)
	env := []string{"HOME=" + t.TempDir()}
	resp := serve(context.Background(), notice.Request{Op: notice.OpContext, Hook: "session-start", Payload: payload, Data: dir, Cwd: "/", Env: env})
	if !resp.OK || resp.Stdout != wantOut || resp.Stderr != wantErrs || !strings.Contains(wantOut, "Postgres 16") {
		t.Fatalf("no bound named: %+v; want stdout %q stderr %q", resp, wantOut, wantErrs)
	}
	other := t.TempDir()
	for _, c := range []struct {
		req  notice.Request
		says string
	}{
		{notice.Request{Hook: "session-start", Data: other}, "this daemon serves " + dir + ", not the hook's data directory; run recollect hooks session-start instead"},
		{notice.Request{Hook: "user-prompt", Data: "rel/data"}, "a relative data directory is resolved by the hook's own process; run recollect hooks user-prompt instead"},
		{notice.Request{Hook: "user-prompt", Env: []string{"RECOLLECT_DATA=rel/data"}}, "a relative data directory is resolved by the hook's own process; run recollect hooks user-prompt instead"},
		{notice.Request{Hook: "compaction", Data: dir}, "unknown context hook compaction; use session-start or user-prompt"},
	} {
		c.req.Op, c.req.Payload, c.req.Cwd = notice.OpContext, payload, "/"
		if c.req.Env == nil {
			c.req.Env = env
		}
		if resp := serve(context.Background(), c.req); resp.OK || resp.Message != c.says || resp.Stdout != "" {
			t.Errorf("%+v: %+v; want refused with %q", c.req, resp, c.says)
		}
	}
}

// TestSearchServerLean calls the daemon's search handler in process with
// requests as recollect-notify sends them (its directory, environment and
// --data flag, the directory resolved and checked here): the answer is
// `recollect search`'s bytes; a relative directory, another store's and
// one with no store are refused, so recollect-notify runs recollect
// search, which says what is wrong.
func TestSearchServerLean(t *testing.T) {
	dir, p := atlasStore(t)
	serve := searchServer(p)
	_, wantOut, _ := run(t, "", "search", "--data", dir, "--limit", "5", "Atlas database")
	env := []string{"HOME=" + t.TempDir()}
	resp := serve(context.Background(), notice.Request{Op: notice.OpSearch, Data: dir, Cwd: "/", Env: env, Query: `{"Text":"Atlas database","Limit":5}`})
	if !resp.OK || resp.Stdout != wantOut || !strings.Contains(wantOut, "Postgres 16") {
		t.Fatalf("%+v; want stdout %q", resp, wantOut)
	}
	empty, other := t.TempDir(), t.TempDir()
	if code, _, errs := run(t, "", "init", "--yes", other); code != 0 {
		t.Fatalf("init: %s", errs)
	}
	for _, c := range []struct {
		req  notice.Request
		says string
	}{
		{notice.Request{Data: "rel/data"}, "a relative data directory is resolved by the client's own process; run recollect search instead"},
		{notice.Request{Env: []string{"RECOLLECT_DATA=rel/data"}}, "a relative data directory is resolved by the client's own process; run recollect search instead"},
		{notice.Request{Data: empty}, "the recollect binary says what is wrong: no store in " + empty},
		{notice.Request{Data: other}, "this daemon serves " + dir + ", not " + other},
	} {
		c.req.Op, c.req.Query, c.req.Cwd = notice.OpSearch, `{"Text":"Atlas"}`, "/"
		if c.req.Env == nil {
			c.req.Env = env
		}
		if resp := serve(context.Background(), c.req); resp.OK || !strings.HasPrefix(resp.Message, c.says) || resp.Stdout != "" {
			t.Errorf("%+v: %+v; want refused with %q", c.req, resp, c.says)
		}
	}
}

// atlasStore is a consolidated store in a temporary directory holding one
// recorded sentence about the Atlas project, opened as the daemon opens
// it; the pipeline is closed when the test ends.
func atlasStore(t *testing.T) (string, *pipeline.Pipeline) {
	t.Helper()
	dir := t.TempDir()
	if code, _, errs := run(t, "", "init", "--yes", dir); code != 0 {
		t.Fatalf("init: %s", errs)
	}
	if code, _, errs := run(t, "We use Postgres 16 as the database for the Atlas project.", "record", "--data", dir, "--session-id", "s1"); code != 0 {
		t.Fatalf("record: %s", errs)
	}
	if code, _, errs := run(t, "", "consolidate", "--data", dir); code != 0 {
		t.Fatalf("consolidate: %s", errs)
	}
	p, err := pipeline.Open(context.Background(), dir, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return dir, p
}

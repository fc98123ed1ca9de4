//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/postgres"
	"github.com/recollect/recollect/store/postgres/pgtest"
)

// openPTY opens a pseudo-terminal pair: the test writes answers to the
// master; the binary reads them from the slave, a real terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlock pty: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("pty number: %v", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// TestInitWalkThroughOnATerminal drives the real binary's walk-through
// through a pseudo-terminal: bad answers are asked again, the data
// directory is asked for, copy is the default because this project (opened
// through a symlink) has transcripts, and the backfill copies, extracts
// and integrates them before the next steps.
func TestInitWalkThroughOnATerminal(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "src", "shop")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "shop-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	writeTranscript(t, filepath.Join(home, ".claude", "projects", "-src-shop", "s1.jsonl"), real)
	store := filepath.Join(root, "store")

	master, slave := openPTY(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, testbin.Binary(t), "init")
	cmd.Dir, cmd.Stdin = link, slave
	cmd.Env = []string{"HOME=" + home, "PWD=" + link, "PATH=" + os.Getenv("PATH"), "RECOLLECT_PROVIDER=heuristic"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	answers := strings.Join([]string{store, "cpy", "", "claude", "claude-code", "", ".", "", "n", "n", "y"}, "\n") + "\n"
	if _, err := master.WriteString(answers); err != nil {
		t.Fatal(err)
	}
	go func() { // drain the terminal's echo so it never blocks
		buf := make([]byte, 4096)
		for {
			if _, err := master.Read(buf); err != nil {
				return
			}
		}
	}()
	if err := cmd.Run(); err != nil {
		t.Fatalf("init: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	got := out.String()
	for _, want := range []string{
		"Data directory (the store)? [",
		"Found 1 claude-code transcript of this project (" + real + ").",
		`(record)? [copy]: ` + "  answer copy or record, not \"cpy\"",
		`answer one of claude-code, cursor, codex, gemini, not "claude"`,
		`give the project's absolute path (e.g. /home/you/src/app), or all; not "."`,
		"created store at " + store + " (copy mode, provider heuristic)",
		"backfill: 1 line (",
		"backfill: copied 1 event",
		"backfill: 1 event copied, 1 event examined, 1 fact extracted, 1 fact integrated in ",
		"Next steps:",
		"recollect daemon --data " + store,
		"recollect hooks install --local --project DIR --data " + store + " (DIR/.claude/settings.local.json, kept out of git; or --user)",
		`"recollect-store": {`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("walk-through output lacks %q:\n%s", want, got)
		}
	}
	cfg, err := config.Load(store)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Mode != "copy" || len(cfg.Sources) != 1 || cfg.Sources[0].Cwd != real || cfg.Sources[0].Kind != "claude-code" {
		t.Errorf("config: mode %s, sources %+v; want copy of claude-code in %s", cfg.Mode, cfg.Sources, real)
	}
	if n := count(t, store, `SELECT count(*) FROM facts WHERE status = 'active'`); n != 1 {
		t.Errorf("%d active facts after the backfill, want 1", n)
	}
}

// TestInitYesMakesACopyStore: init --yes takes the mode, source and cwd
// from flags, and a store's MCP snippet is named after it.
func TestInitYesMakesACopyStore(t *testing.T) {
	proj := t.TempDir()
	store := filepath.Join(t.TempDir(), "work")
	code, out, errs := run(t, "", "init", "--yes", "--mode", "copy", "--source", "cursor", "--cwd", proj, store)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	cfg, err := config.Load(store)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(proj)
	if cfg.Mode != "copy" || len(cfg.Sources) != 1 || cfg.Sources[0].Kind != "cursor" || cfg.Sources[0].Cwd != want {
		t.Errorf("config %+v", cfg.Sources)
	}
	if !strings.Contains(out, `"recollect-work": {`) || !strings.Contains(out, "backfill: no transcript of the configured source exists yet") {
		t.Errorf("init output:\n%s", out)
	}
	var snippet struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	i := strings.Index(out, "{\n  \"mcpServers\"")
	if i < 0 || json.NewDecoder(strings.NewReader(out[i:])).Decode(&snippet) != nil || len(snippet.MCPServers) != 1 {
		t.Errorf("no MCP snippet:\n%s", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"init", "--yes", "--mode", "cpy", store + "2"}, `init: --mode "cpy" is unknown; use record or copy`},
		{[]string{"init", "--yes", "--cwd", proj, store + "3"}, "init: --cwd goes with --mode copy"},
		{[]string{"init", "--yes", "--mode", "copy", "--source", "claude", store + "4"}, `sources[0].kind`},
	} {
		code, _, errs := run(t, "", c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestInitChoosesPostgres: with $RECOLLECT_POSTGRES_URL set the
// walk-through asks where the store lives, and init --storage postgres
// makes the store on the server from the start: no memory.db is left
// beside the config for stats to flag.
func TestInitChoosesPostgres(t *testing.T) {
	url, name := pgtest.Schema(t)
	root := t.TempDir()
	home := filepath.Join(root, "home")
	for i, yes := range []bool{true, false} {
		store := filepath.Join(root, fmt.Sprintf("%s_%d", name, i))
		schema := postgres.DefaultSchema(store)
		t.Cleanup(func() { pgtest.Drop(t, url, schema) })
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		args := []string{"init", store}
		if yes {
			args = []string{"init", "--yes", "--storage", "postgres", store}
		}
		cmd := exec.CommandContext(ctx, testbin.Binary(t), args...)
		cmd.Dir = root
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "RECOLLECT_PROVIDER=heuristic", "RECOLLECT_POSTGRES_URL=" + url}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if !yes {
			master, slave := openPTY(t)
			cmd.Stdin = slave
			// record mode (the default), no embeddings, no prompt hook,
			// then the engine.
			if _, err := master.WriteString("\nn\nn\npostgres\n"); err != nil {
				t.Fatal(err)
			}
			go func() {
				buf := make([]byte, 4096)
				for {
					if _, err := master.Read(buf); err != nil {
						return
					}
				}
			}()
		}
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\nstdout:\n%s\nstderr:\n%s", args, err, out.String(), errb.String())
		}
		wants := []string{"storage: schema " + schema + " on the PostgreSQL server in $RECOLLECT_POSTGRES_URL"}
		if !yes {
			wants = append(wants, "Keep the store in memory.db here (sqlite) or in schema "+schema+" on the PostgreSQL server in $RECOLLECT_POSTGRES_URL (postgres)? [sqlite]: ")
		}
		for _, want := range wants {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out.String())
			}
		}
		cfg, err := config.Load(store)
		if err != nil || cfg.Storage.Provider != "postgres" {
			t.Fatalf("%v: storage %+v (%v), want postgres", args, cfg.Storage, err)
		}
		if _, err := os.Stat(filepath.Join(store, "memory.db")); !os.IsNotExist(err) {
			t.Errorf("%v left a memory.db: %v", args, err)
		}
	}
	if code, _, errs := run(t, "", "init", "--yes", "--storage", "mysql", filepath.Join(root, "x")); code != 2 || !strings.Contains(errs, `init: --storage "mysql" is unknown; use sqlite or postgres`) {
		t.Errorf("--storage mysql: exit %d, %q", code, errs)
	}
}

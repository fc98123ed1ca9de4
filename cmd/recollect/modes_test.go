package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/store/postgres/pgtest"
	"github.com/recollect/recollect/store/storetest"
)

// umaskRun runs the real binary under umask 000, the loosest a user can
// have, so every mode the store ends up with is one recollect chose.
func umaskRun(t *testing.T, home string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("/bin/sh", append([]string{"-c", `umask 000; exec "$0" "$@"`, testbin.Binary(t)}, args...)...)
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "RECOLLECT_PROVIDER=heuristic"}
	cmd.Dir = home
	return cmd
}

func umaskMust(t *testing.T, home string, args ...string) {
	t.Helper()
	if out, err := umaskRun(t, home, args...).CombinedOutput(); err != nil {
		t.Fatalf("recollect %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// Every file of a store is its owner's alone (0600, the socket too) in a
// 0700 directory, whoever creates it: init, record, the daemon (lock, log,
// socket, database, -wal, -shm) and inspect (the page).
func TestStoreFilesArePrivateUnderLooseUmask(t *testing.T) {
	home, err := os.MkdirTemp("", "rclm") // short: Unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	dir := filepath.Join(home, "store")
	umaskMust(t, home, "init", "--yes", dir)
	umaskMust(t, home, "record", "--data", dir, "--content", "I keep my notes in Obsidian on every machine.")

	daemon := umaskRun(t, home, "daemon", "--data", dir)
	var derr bytes.Buffer
	daemon.Stderr = &derr
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "recollect.sock")
	t.Cleanup(func() {
		if t.Failed() {
			daemon.Process.Kill()
			daemon.Wait()
			t.Logf("daemon stderr:\n%s", derr.String())
		}
	})
	storetest.Eventually(t, "the daemon's 0600 socket", func() bool {
		fi, err := os.Lstat(sock)
		return err == nil && fi.Mode()&os.ModeSocket != 0 && fi.Mode().Perm() == 0o600
	})
	umaskMust(t, home, "record", "--data", dir, "--content", "I deploy the Atlas service on Fridays.")
	umaskMust(t, home, "inspect", "--data", dir)
	modes := map[string]os.FileMode{}
	walk := func() {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			fi, err := os.Lstat(filepath.Join(dir, e.Name()))
			if err != nil {
				continue // a file that went away between the listing and the stat
			}
			modes[e.Name()] = fi.Mode()
		}
	}
	walk() // while the daemon runs: socket, lock, -wal and -shm exist
	daemon.Process.Signal(syscall.SIGTERM)
	if err := daemon.Wait(); err != nil {
		t.Errorf("daemon: %v\n%s", err, derr.String())
	}
	walk()
	for _, want := range []string{"memory.db", "memory.db-wal", "memory.db-shm", "config.json", "daemon.lock", "daemon.log", "recollect.sock", "inspect.html"} {
		if _, ok := modes[want]; !ok {
			t.Errorf("%s was never seen in %s (saw %v)", want, dir, modes)
		}
	}
	for name, m := range modes {
		if m.Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", name, m.Perm())
		}
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("data directory mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
}

// A store an older binary left readable by others is tightened the next
// time any command opens it.
func TestLooseStoreIsTightenedOnOpen(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "store")
	umaskMust(t, home, "init", "--yes", dir)
	umaskMust(t, home, "record", "--data", dir, "--content", "I keep my notes in Obsidian on every machine.")
	os.Chmod(dir, 0o755)
	// config.json as a hand edit with a loose umask leaves it.
	for _, f := range []string{"memory.db", "memory.db-wal", "memory.db-shm", "config.json"} {
		os.Chmod(filepath.Join(dir, f), 0o644)
	}
	umaskMust(t, home, "stats", "--data", dir)
	for _, f := range []string{"memory.db", "memory.db-wal", "memory.db-shm", "config.json"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err == nil && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s still has mode %v after stats", f, fi.Mode().Perm())
		}
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("data directory still has mode %v", fi.Mode().Perm())
	}
}

// TestHandMadeStoreIsTightenedOnOpen: a config.json written by hand (0644)
// in a directory made by hand (0755) is the owner's alone once any command
// opens the store, on SQLite and on PostgreSQL, where no memory.db is
// there to be tightened with it.
func TestHandMadeStoreIsTightenedOnOpen(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			env := map[string]string{"HOME": t.TempDir()}
			storage := `{"provider": "sqlite"}`
			if engine == "postgres" {
				url, schema := pgtest.Schema(t)
				env["RECOLLECT_POSTGRES_URL"] = url
				storage = `{"provider": "postgres", "postgres": {"schema": "` + schema + `"}}`
			}
			dir := filepath.Join(t.TempDir(), "store")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			os.Chmod(dir, 0o755) // whatever the umask
			cfg := filepath.Join(dir, "config.json")
			if err := os.WriteFile(cfg, []byte(`{"storage": `+storage+`}`), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chmod(cfg, 0o644)
			if _, errOut, code := runApp(t, env, "record", "--content", "We ship on Mondays.", "--data", dir); code != 0 {
				t.Fatalf("record: exit %d: %s", code, errOut)
			}
			for path, want := range map[string]os.FileMode{dir: 0o700, cfg: 0o600} {
				if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
					t.Errorf("%s: mode %v (%v), want %o", path, fi.Mode().Perm(), err, want)
				}
			}
		})
	}
}

package install_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/hooks/install"
)

// TestMergeCodexNotify pins the config.toml edit: only the top-level
// notify line is added or replaced, every other byte stays.
func TestMergeCodexNotify(t *testing.T) {
	argv := install.CodexNotifyArgv("/opt/bin/recollect-notify", "/home/a/.recollect")
	line := `notify = ["/opt/bin/recollect-notify", "threshold", "--data", "/home/a/.recollect"]`
	if got := install.CodexNotifyLine(argv); got != line {
		t.Fatalf("notify line %s, want %s", got, line)
	}
	for _, tc := range []struct {
		name, old, want, action string
		force                   bool
		err                     error
		errHas                  string
	}{
		{name: "no file", old: "", want: line + "\n", action: "installed"},
		{name: "keys then tables: after the last top-level key",
			old:    "model = \"gpt-5\"  # default\n\n# my servers\n[mcp_servers.x]\ncommand = \"y\"\nnotify = \"a table key, not ours\"\n",
			want:   "model = \"gpt-5\"  # default\n" + line + "\n\n# my servers\n[mcp_servers.x]\ncommand = \"y\"\nnotify = \"a table key, not ours\"\n",
			action: "installed"},
		{name: "tables only: at the top", old: "# Codex\n[tui]\nnotifications = true\n",
			want: line + "\n\n# Codex\n[tui]\nnotifications = true\n", action: "installed"},
		{name: "no trailing newline", old: `model = "o3"`, want: "model = \"o3\"\n" + line + "\n", action: "installed"},
		{name: "multi-line string that holds a bracket line",
			old:    "instructions = \"\"\"\n[not a table]\n\"\"\"\n[profiles.x]\nmodel = \"o3\"\n",
			want:   "instructions = \"\"\"\n[not a table]\n\"\"\"\n" + line + "\n[profiles.x]\nmodel = \"o3\"\n",
			action: "installed"},
		{name: "already there", old: "model = \"o3\"\n" + line + "\n[tui]\n", want: "model = \"o3\"\n" + line + "\n[tui]\n", action: "unchanged"},
		{name: "older recollect notify replaced in place",
			old:  "notify = [\n  \"/usr/local/bin/recollect\",  # old install\n  \"notify\", \"threshold\",\n]\nmodel = \"o3\"\n",
			want: line + "\nmodel = \"o3\"\n", action: "updated"},
		{name: "another program refused", old: "notify = [\"python3\", \"/home/a/notify.py\"]\n", err: install.ErrOtherNotify, errHas: "--force"},
		{name: "another program replaced with force", old: "model = \"o3\"\nnotify = ['python3', '/home/a/notify.py']\n[tui]\n",
			want: "model = \"o3\"\n" + line + "\n[tui]\n", action: "updated", force: true},
		{name: "unclosed array", old: "notify = [\"a\",\n", errHas: "never closed"},
		{name: "unclosed string", old: "model = \"o3\n", errHas: "past its line"},
		{name: "notify twice", old: "notify = [\"a\"]\nnotify = [\"b\"]\n", errHas: "set twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, action, err := install.MergeCodexNotify([]byte(tc.old), argv, tc.force)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) || (tc.err != nil && !errors.Is(err, tc.err)) {
					t.Fatalf("err = %v, want one saying %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if action != tc.action || string(got) != tc.want {
				t.Errorf("action %s, file:\n%s\nwant %s:\n%s", action, got, tc.action, tc.want)
			}
		})
	}
}

// TestInstallCodex writes the real file: a backup of the original, its
// mode kept, and a second run changes nothing.
func TestInstallCodex(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	orig := "model = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n"
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 3, 5, 0, 0, 0, time.UTC)
	res, err := install.Codex(path, "/opt/bin/recollect", "/d", false, now)
	if err != nil || res.Action != "installed" || res.Backup != path+".bak-20261203T050000Z" {
		t.Fatalf("install: %+v, %v", res, err)
	}
	got, _ := os.ReadFile(path)
	want := "model = \"o3\"\n" + `notify = ["/opt/bin/recollect", "notify", "threshold", "--data", "/d"]` + "\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n"
	if string(got) != want {
		t.Fatalf("config.toml:\n%s\nwant:\n%s", got, want)
	}
	if b, _ := os.ReadFile(res.Backup); string(b) != orig {
		t.Errorf("backup holds %q, want the original", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the original 0600", fi.Mode().Perm())
	}
	if res, err := install.Codex(path, "/opt/bin/recollect", "/d", false, now); err != nil || res.Action != "unchanged" || res.Backup != "" {
		t.Errorf("second install: %+v, %v", res, err)
	}
}

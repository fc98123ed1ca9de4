package install_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/hooks/install"
	"github.com/recollect/recollect/store/storetest"
)

const (
	bin  = "/opt/bin/recollect"
	data = "/home/a/.recollect"
)

// TestMergeSettings: each testdata/settings/<case>.json is merged and
// compared with <case>.golden (the merged file, or the error line).
func TestMergeSettings(t *testing.T) {
	cases := []struct{ name, action string }{
		{"empty", "installed"},
		{"others", "installed"},
		{"escapes", "installed"},
		{"installed", "unchanged"},
		{"older", "updated"},
		{"shared-group", "updated"},
		{"invalid", ""},
		{"precompact-object", ""},
		{"array", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", "settings", c.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			out, action, mergeErr := install.MergeSettings(in, bin, data)
			got := string(out)
			if mergeErr != nil {
				got = "error: " + mergeErr.Error() + "\n"
			}
			if action != c.action {
				t.Errorf("action %q, want %q", action, c.action)
			}
			storetest.Golden(t, "settings/"+c.name+".golden", got)
			if c.action == "unchanged" && got != string(in) {
				t.Error("an unchanged file must come back byte for byte")
			}
			if c.action == "installed" && len(bytes.TrimSpace(in)) > 2 {
				// One insertion: the original is the output's prefix and
				// suffix around it, every other byte kept.
				p, q := commonPrefix(in, out), commonSuffix(in, out)
				if p+q < len(in) {
					t.Errorf("bytes of the original changed: common prefix %d + suffix %d < %d", p, q, len(in))
				}
			}
			if mergeErr == nil {
				again, action, err := install.MergeSettings(out, bin, data)
				if err != nil || action != "unchanged" || string(again) != got {
					t.Errorf("second merge: action %q, err %v; want unchanged and the same bytes", action, err)
				}
			}
		})
	}
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// TestInstall: a backup of the original is written before the change, a
// second install changes nothing and writes no second backup.
func TestInstall(t *testing.T) {
	dir := t.TempDir()
	path := install.ProjectSettings(dir)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	orig := []byte(`{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}`)
	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	res, err := install.Claude(path, bin, data, now)
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != "installed" || res.Backup != path+".bak-20260304T050607Z" {
		t.Fatalf("result %+v", res)
	}
	if b, _ := os.ReadFile(res.Backup); string(b) != string(orig) {
		t.Errorf("backup holds %q", b)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %o, want the original 600", fi.Mode().Perm())
	}
	merged, _ := os.ReadFile(path)
	for _, want := range []string{`"model": "opus"`, `"command": "say done"`, `"command": "/opt/bin/recollect notify compaction --data /home/a/.recollect"`, `"timeout": 5`} {
		if !strings.Contains(string(merged), want) {
			t.Errorf("merged file lacks %s:\n%s", want, merged)
		}
	}
	res, err = install.Claude(path, bin, data, now.Add(time.Hour))
	if err != nil || res.Action != "unchanged" || res.Backup != "" {
		t.Fatalf("second install: %+v, %v", res, err)
	}
	baks, _ := filepath.Glob(path + ".bak-*")
	if len(baks) != 1 {
		t.Errorf("backups %q, want one", baks)
	}
	t.Run("new file", func(t *testing.T) {
		path := install.ProjectSettings(t.TempDir())
		res, err := install.Claude(path, bin, data, now)
		if err != nil || res.Action != "installed" || res.Backup != "" {
			t.Fatalf("%+v, %v", res, err)
		}
	})
	t.Run("invalid file is left alone", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "settings.json")
		os.WriteFile(path, []byte("{nope"), 0o644)
		_, err := install.Claude(path, bin, data, now)
		if err == nil || !strings.Contains(err.Error(), "paste the entry from `recollect hooks print` by hand") {
			t.Fatalf("err %v", err)
		}
		if b, _ := os.ReadFile(path); string(b) != "{nope" {
			t.Error("the file was touched")
		}
	})
}

func TestUserSettings(t *testing.T) {
	env := map[string]string{"HOME": "/home/a"}
	got, err := install.UserSettings(func(k string) string { return env[k] })
	if err != nil || got != "/home/a/.claude/settings.json" {
		t.Errorf("%q, %v", got, err)
	}
	env["CLAUDE_CONFIG_DIR"] = "/cfg"
	if got, _ := install.UserSettings(func(k string) string { return env[k] }); got != "/cfg/settings.json" {
		t.Errorf("with CLAUDE_CONFIG_DIR: %q", got)
	}
}

// TestHookBinaryForms: the hook runs recollect-notify when it sits beside
// recollect, and an install switches an entry between the two forms
// instead of adding a second one.
func TestHookBinaryForms(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "recollect")
	if got, ok := install.HookBinary(main); ok || got != main {
		t.Fatalf("no sibling: %s, %v; want %s, false", got, ok, main)
	}
	sibling := filepath.Join(dir, install.NotifyBinaryName)
	if err := os.WriteFile(sibling, []byte("not executable"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := install.HookBinary(main); ok {
		t.Fatal("a sibling without the execute bit must not be used")
	}
	os.Chmod(sibling, 0o755)
	if got, ok := install.HookBinary(main); !ok || got != sibling {
		t.Fatalf("sibling: %s, %v; want %s, true", got, ok, sibling)
	}
	if got, want := install.NotifyCommand(sibling, "/d"), sibling+" compaction --data /d"; got != want {
		t.Errorf("NotifyCommand = %q, want %q", got, want)
	}
	if got, want := install.NotifyCommand(main, "/d"), main+" notify compaction --data /d"; got != want {
		t.Errorf("NotifyCommand = %q, want %q", got, want)
	}

	full, _, err := install.MergeSettings(nil, "/opt/bin/recollect", data)
	if err != nil {
		t.Fatal(err)
	}
	lean, action, err := install.MergeSettings(full, "/opt/bin/recollect-notify", data)
	if err != nil || action != "updated" {
		t.Fatalf("full → lean: %q, %v; want updated", action, err)
	}
	if n := strings.Count(string(lean), "compaction --data"); n != 1 || !strings.Contains(string(lean), `"/opt/bin/recollect-notify compaction --data /home/a/.recollect"`) {
		t.Fatalf("full → lean gave %d entries:\n%s", n, lean)
	}
	back, action, err := install.MergeSettings(lean, "/opt/bin/recollect", data)
	if err != nil || action != "updated" || string(back) != string(full) {
		t.Fatalf("lean → full: %q, %v:\n%s", action, err, back)
	}
}

// TestBackupsNeverOverwrite: installs in the same second, into Claude
// Code's settings and Codex's config.toml, each keep their own backup, so
// the original is never lost.
func TestBackupsNeverOverwrite(t *testing.T) {
	now := time.Date(2026, 12, 5, 0, 29, 59, 0, time.UTC)
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	orig := "{\n  \"model\": \"opus\"\n}\n"
	if err := os.WriteFile(settings, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	codex := filepath.Join(dir, "config.toml")
	codexOrig := "model = \"o4\"\n"
	if err := os.WriteFile(codex, []byte(codexOrig), 0o600); err != nil {
		t.Fatal(err)
	}
	var backups []string
	for i, data := range []string{"/d/one", "/d/two", "/d/three"} {
		res, err := install.Entries(settings, install.SettingsEntries("/bin/recollect", "/bin/recollect-notify", data, false), now)
		if err != nil {
			t.Fatal(err)
		}
		want := settings + ".bak-20261205T002959Z"
		if i > 0 {
			want += fmt.Sprintf("-%d", i+1)
		}
		if res.Backup != want {
			t.Fatalf("install %d: backup %q, want %q", i+1, res.Backup, want)
		}
		backups = append(backups, res.Backup)
		cres, err := install.Codex(codex, "/bin/recollect-notify", data, false, now)
		if err != nil {
			t.Fatal(err)
		}
		backups = append(backups, cres.Backup)
	}
	for i, b := range backups {
		if i > 1 {
			continue // the later backups hold the earlier installs
		}
		got, _ := os.ReadFile(b)
		if want := []string{orig, codexOrig}[i]; string(got) != want {
			t.Errorf("backup %s holds %q, want the original %q", b, got, want)
		}
	}
	seen := map[string]bool{}
	for _, b := range backups {
		if seen[b] {
			t.Fatalf("backup %s written twice", b)
		}
		seen[b] = true
	}
}

package install_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/recollect/recollect/hooks/install"
	"github.com/recollect/recollect/store/storetest"
)

// TestMergeCursorHooks: each testdata/cursor/<case>.json is merged and
// compared with <case>.golden (the merged file, or the error line).
func TestMergeCursorHooks(t *testing.T) {
	const notify = "/opt/bin/recollect-notify"
	cases := []struct{ name, action string }{
		{"empty", "installed"},
		{"others", "installed"},
		{"noversion", "installed"},
		{"installed", "unchanged"},
		{"older", "updated"},
		{"version2", ""},
		{"stop-object", ""},
		{"invalid", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", "cursor", c.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			out, action, mergeErr := install.MergeCursorHooks(in, notify, data)
			got := string(out)
			if mergeErr != nil {
				got = "error: " + mergeErr.Error() + "\n"
			}
			if action != c.action {
				t.Errorf("action %q, want %q", action, c.action)
			}
			storetest.Golden(t, "cursor/"+c.name+".golden", got)
			if c.action == "unchanged" && got != string(in) {
				t.Error("an unchanged file must come back byte for byte")
			}
			if mergeErr == nil {
				again, action, err := install.MergeCursorHooks(out, notify, data)
				if err != nil || action != "unchanged" || string(again) != got {
					t.Errorf("second merge: action %q, err %v; want unchanged and the same bytes", action, err)
				}
			}
		})
	}
}

// TestInstallCursor: the backup comes first, a second install changes
// nothing, and a file that cannot be merged is left as it was.
func TestInstallCursor(t *testing.T) {
	dir := t.TempDir()
	path := install.CursorProjectHooks(dir)
	now := time.Date(2026, 12, 3, 4, 0, 0, 0, time.UTC)
	res, err := install.Cursor(path, "/opt/bin/recollect", data, now)
	if err != nil || res.Action != "installed" || res.Backup != "" {
		t.Fatalf("new file: %+v, %v", res, err)
	}
	first, _ := os.ReadFile(path)
	res, err = install.Cursor(path, "/opt/bin/recollect", data, now)
	if err != nil || res.Action != "unchanged" || res.Backup != "" {
		t.Fatalf("second install: %+v, %v", res, err)
	}
	res, err = install.Cursor(path, "/opt/bin/recollect-notify", data, now)
	if err != nil || res.Action != "updated" || res.Backup == "" {
		t.Fatalf("switch to recollect-notify: %+v, %v", res, err)
	}
	if backup, _ := os.ReadFile(res.Backup); string(backup) != string(first) {
		t.Fatalf("backup holds %q, want the file before the change", backup)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"version": 2}`), 0o600)
	if _, err := install.Cursor(bad, "/opt/bin/recollect", data, now); err == nil {
		t.Fatal("version 2 accepted")
	}
	if b, _ := os.ReadFile(bad); string(b) != `{"version": 2}` {
		t.Fatalf("a refused file was changed: %q", b)
	}
}

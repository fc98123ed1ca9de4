package install_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/recollect/recollect/hooks/install"
	"github.com/recollect/recollect/store/storetest"
)

// TestMergeContextEntries: every entry hooks install writes, merged into
// settings that hold other hooks and an older recollect SessionStart
// entry, which is replaced in place; a second merge changes nothing.
func TestMergeContextEntries(t *testing.T) {
	entries := install.SettingsEntries(bin, "/opt/bin/recollect-notify", data, true)
	for _, c := range []struct {
		name string
		want []string
	}{
		{"empty", []string{"installed", "installed", "installed"}},
		{"others", []string{"installed", "installed", "installed"}},
		{"context-older", []string{"installed", "updated", "installed"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", "settings", c.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			out, actions, err := install.MergeEntries(in, entries)
			if err != nil {
				t.Fatal(err)
			}
			if len(actions) != len(c.want) {
				t.Fatalf("actions %q, want %q", actions, c.want)
			}
			for i := range actions {
				if actions[i] != c.want[i] {
					t.Fatalf("actions %q, want %q", actions, c.want)
				}
			}
			storetest.Golden(t, "settings/"+c.name+".context.golden", out)
			again, actions, err := install.MergeEntries(out, entries)
			if err != nil || string(again) != string(out) || actions[0] != "unchanged" || actions[1] != "unchanged" || actions[2] != "unchanged" {
				t.Errorf("second merge: %q, %v", actions, err)
			}
		})
	}
}

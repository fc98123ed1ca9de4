package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The OS machine id is used hashed, never raw; without it an id is made
// once, kept 0600 in the config dir and read back the same afterwards.
func TestMachineID(t *testing.T) {
	dir := t.TempDir()
	osFile := filepath.Join(dir, "machine-id")
	if err := os.WriteFile(osFile, []byte("0123456789abcdef0123456789abcdef\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	a, err := machineID(osFile, env(nil))
	if err != nil || len(a) != 16 || strings.Contains("0123456789abcdef0123456789abcdef", a) {
		t.Fatalf("id from the OS's = %q, %v; want 16 hex characters not taken from the raw id", a, err)
	}

	cfg := t.TempDir()
	missing := filepath.Join(dir, "none")
	b, err := machineID(missing, env(map[string]string{"XDG_CONFIG_HOME": cfg}))
	if err != nil || b == "" || b == a {
		t.Fatalf("generated id = %q, %v", b, err)
	}
	kept := filepath.Join(cfg, "recollect", "machine-id")
	fi, err := os.Stat(kept)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("kept id file %s: %v (mode %v), want mode 0600", kept, err, fi)
	}
	if again, err := machineID(missing, env(map[string]string{"XDG_CONFIG_HOME": cfg})); err != nil || again != b {
		t.Errorf("second read = %q, %v; want the kept %q", again, err, b)
	}
	home := t.TempDir()
	if c, err := machineID(missing, env(map[string]string{"HOME": home})); err != nil || c == b {
		t.Errorf("id under HOME/.config = %q, %v; want one of its own", c, err)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "recollect", "machine-id")); err != nil {
		t.Errorf("no id kept under HOME/.config: %v", err)
	}
	if err := os.WriteFile(kept, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := machineID(missing, env(map[string]string{"XDG_CONFIG_HOME": cfg})); err == nil || !strings.Contains(err.Error(), "delete the file") {
		t.Errorf("empty kept id read without the fix named: %v", err)
	}
}

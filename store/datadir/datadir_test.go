package datadir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestResolveOrder(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	repo := filepath.Join(root, "repo")
	deep := filepath.Join(repo, "a", "b")
	for _, d := range []string{home, deep, filepath.Join(repo, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	noRecollect := env(map[string]string{"HOME": home})
	withEnv := env(map[string]string{"HOME": home, EnvData: filepath.Join(root, "envdir")})

	cases := []struct {
		name     string
		flag     string
		cwd      string
		getenv   func(string) string
		setup    func()
		want     string
		wantFrom Source
	}{
		{"flag wins over env", filepath.Join(root, "flagdir"), deep, withEnv, nil, filepath.Join(root, "flagdir"), FromFlag},
		{"env wins over project", "", deep, withEnv, nil, filepath.Join(root, "envdir"), FromEnv},
		{"home when nothing else", "", deep, noRecollect, nil, filepath.Join(home, DirName), FromHome},
		{"project store in a parent", "", deep, noRecollect, func() { os.MkdirAll(filepath.Join(repo, "a", DirName), 0o700) }, filepath.Join(repo, "a", DirName), FromProject},
		{"flag with ~", "~/custom", deep, noRecollect, nil, filepath.Join(home, "custom"), FromFlag},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.setup != nil {
				c.setup()
			}
			got, from, err := Resolve(c.flag, c.cwd, c.getenv)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want || from != c.wantFrom {
				t.Fatalf("Resolve = %s (%s), want %s (%s)", got, from, c.want, c.wantFrom)
			}
		})
	}
}

func TestResolveStopsAtRepositoryRoot(t *testing.T) {
	root := t.TempDir()
	outer := filepath.Join(root, DirName) // above the repository: must not be used
	repo := filepath.Join(root, "repo")
	for _, d := range []string{outer, filepath.Join(repo, ".git"), filepath.Join(repo, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(root, "home")
	got, from, err := Resolve("", filepath.Join(repo, "src"), func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if from != FromHome || got != filepath.Join(home, DirName) {
		t.Fatalf("got %s (%s); a store above the repository root must not be picked", got, from)
	}
}

// TestConfigDir: XDG_CONFIG_HOME when absolute (a relative one is ignored,
// as the XDG spec says), else ~/.config; nothing when neither is set.
func TestConfigDir(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_CONFIG_HOME": "/x/cfg", "HOME": "/h"}, "/x/cfg/recollect"},
		{map[string]string{"XDG_CONFIG_HOME": "rel/cfg", "HOME": "/h"}, "/h/.config/recollect"},
		{map[string]string{"HOME": "/h"}, "/h/.config/recollect"},
		{map[string]string{}, ""},
	} {
		if got := ConfigDir(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("ConfigDir(%v) = %q, want %q", tc.env, got, tc.want)
		}
	}
}

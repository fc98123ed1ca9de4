package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/store/config"
)

// TestInitOffersEachInstalledAgent: the walk-through names the agents
// whose home exists, defaults to the first, and offers each other one as
// a further source for the same project.
func TestInitOffersEachInstalledAgent(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".claude", ".codex", ".gemini"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	proj := t.TempDir()
	// copy, default kind, default home, this project, codex yes, gemini no,
	// no embeddings, no prompt hook.
	answers := "copy\n\n\n" + proj + "\ny\nn\nn\nn\n"
	var out bytes.Buffer
	env := Env{Stdin: strings.NewReader(answers), Stdout: &out, Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }}
	cfg, err := walkThrough(env, config.Default())
	if err != nil {
		t.Fatalf("walk-through: %v\n%s", err, out.String())
	}
	want := "Agents installed here: claude-code (" + filepath.Join(home, ".claude") + "), codex (" + filepath.Join(home, ".codex") + "), gemini (" + filepath.Join(home, ".gemini") + ")."
	if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "Also copy codex transcripts (") {
		t.Fatalf("walk-through output lacks the agents found:\n%s", out.String())
	}
	var kinds []string
	for _, s := range cfg.Sources {
		kinds = append(kinds, s.Kind+"@"+s.Cwd)
	}
	if got := strings.Join(kinds, " "); got != "claude-code@"+proj+" codex@"+proj {
		t.Errorf("sources %q, want claude-code and codex for %s (gemini declined)", got, proj)
	}
	// Neither agent holds a transcript of this project: each says so, and
	// the question's default is no.
	for _, want := range []string{"Also copy codex transcripts (" + filepath.Join(home, ".codex") + ", which holds none of this project's yet) (y/n)? [n]",
		"Also copy gemini transcripts (" + filepath.Join(home, ".gemini") + ", which holds none of this project's yet) (y/n)? [n]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("walk-through lacks %q:\n%s", want, out.String())
		}
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("config from the walk-through is invalid: %v", err)
	}
}

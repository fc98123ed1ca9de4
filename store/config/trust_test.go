package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHarmless(t *testing.T) {
	for _, tc := range []struct {
		name string
		json string
		want bool
	}{
		{"defaults", `{}`, true},
		{"record heuristic", `{"mode":"record","intelligence":{"provider":"heuristic"}}`, true},
		{"copy mode", `{"mode":"copy","sources":[{"kind":"claude-code"}]}`, false},
		{"sources in record mode", `{"mode":"record","sources":[{"kind":"cursor"}]}`, false},
		{"http provider", `{"intelligence":{"provider":"http"}}`, false},
		{"one stage on ollama", `{"intelligence":{"stages":{"summarise":{"provider":"ollama"}}}}`, false},
		{"cli as fallback", `{"intelligence":{"stages":{"extract":{"on_fail":"cli"}}}}`, false},
		{"hold on failure", `{"intelligence":{"stages":{"extract":{"on_fail":"none"}}}}`, true},
		{"embedding host", `{"embedding":{"provider":"ollama","model":"m"}}`, false},
		{"redaction off", `{"redaction":{"enabled":false}}`, false},
		{"sqlite named", `{"storage":{"provider":"sqlite"}}`, true},
		{"postgres store", `{"storage":{"provider":"postgres","postgres":{"url_env":"DATABASE_URL"}}}`, false},
		{"agents may forget", `{"retention":{"agent_forget":true}}`, false},
		{"retention window", `{"retention":{"window":"1d"}}`, false},
	} {
		cfg, err := Parse(strings.NewReader(tc.json))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := Harmless(cfg); got != tc.want {
			t.Errorf("%s: Harmless = %v, want %v (%v)", tc.name, got, tc.want, Describe(cfg))
		}
	}
}

// TestDescribeNamesWhatDeletes: a config that deletes memory by itself
// says so, in the words trust shows.
func TestDescribeNamesWhatDeletes(t *testing.T) {
	cfg, err := Parse(strings.NewReader(`{"retention":{"window":"1d","agent_forget":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(Describe(cfg), "\n")
	for _, want := range []string{
		"lets: your agents delete memory for good through the MCP forget tool (retention.agent_forget)",
		`deletes: for good, what happened more than "1d" ago, and hides it from every read until then (retention.window)`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Describe lacks %q:\n%s", want, got)
		}
	}
}

func TestDescribeNamesWhatIsReadAndSent(t *testing.T) {
	for _, tc := range []struct {
		json string
		want []string
	}{
		{`{"mode":"copy","sources":[{"kind":"codex"}],"intelligence":{"provider":"http","http":{"base_url":"http://h/v1"}}}`, []string{
			"reads: copies transcripts from:",
			"  codex transcripts in the default home ($CODEX_HOME or ~/.codex), of EVERY project (no cwd)",
			`sends: conversation text to scheme "http", host "h", port "80", path "/v1" (http provider, model "", no API key)`,
		}},
		{`{"mode":"copy","sources":[{"kind":"gemini","cwd":"/p"}],"intelligence":{"provider":"http","http":{"base_url":"http://h/v1","model":"m","api_key_env":"K"}}}`, []string{
			"reads: copies transcripts from:",
			`  gemini transcripts in the default home ($GEMINI_CLI_HOME/.gemini or ~/.gemini), of the project "/p"`,
			`sends: conversation text to scheme "http", host "h", port "80", path "/v1" (http provider, model "m")`,
			`sends: the value of $K, as its API key, to scheme "http", host "h", port "80", path "/v1"`,
		}},
	} {
		cfg, err := Parse(strings.NewReader(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		if got := Describe(cfg); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("Describe(%s) =\n%s\nwant\n%s", tc.json, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

func TestCheckProjectApprovesExactBytes(t *testing.T) {
	home, dir := t.TempDir(), filepath.Join(t.TempDir(), ".recollect")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, FileName), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"intelligence":{"provider":"ollama"}}`)
	var ue *UntrustedError
	if err := CheckProject(dir, getenv); !errors.As(err, &ue) || ue.Changed {
		t.Fatalf("unapproved: %v", err)
	}
	if err := ApproveDir(dir, getenv); err != nil {
		t.Fatal(err)
	}
	if err := CheckProject(dir, getenv); err != nil {
		t.Fatalf("approved: %v", err)
	}
	write(`{"intelligence":{"provider":"ollama"} }`)
	if err := CheckProject(dir, getenv); !errors.As(err, &ue) || !ue.Changed {
		t.Fatalf("changed by one byte: %v", err)
	}
	// XDG_CONFIG_HOME wins over HOME: the approval above is not found there.
	xdg := t.TempDir()
	if err := CheckProject(dir, func(k string) string { return map[string]string{"HOME": home, "XDG_CONFIG_HOME": xdg}[k] }); !errors.As(err, &ue) {
		t.Fatalf("approval read from the wrong place: %v", err)
	}
}

// TestDescribeNamesThePostgresServer: a project config that keeps the
// store on a server says whose URL variable it reads, so the person
// approving it sees where everything goes.
func TestDescribeNamesThePostgresServer(t *testing.T) {
	cfg, err := Parse(strings.NewReader(`{"storage":{"provider":"postgres","postgres":{"url_env":"DATABASE_URL","schema":"atlas"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(Describe(cfg), "\n")
	if !strings.Contains(lines, "stores: everything on the PostgreSQL server whose URL $DATABASE_URL holds (schema \"atlas\")") {
		t.Errorf("Describe = %s; want the server's URL variable and schema named", lines)
	}
}

// A project's memory.db is refused until approved, whatever its config
// says, unless a command of the user's created it (ApproveStore) or its
// config was approved (a store made before stores were approved); a file
// put in its place later is refused again.
func TestCheckProjectStore(t *testing.T) {
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	ensure := func(t *testing.T, dir string) string {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	project := func(t *testing.T, config string) string {
		dir := ensure(t, filepath.Join(t.TempDir(), ".recollect"))
		if config != "" {
			if err := os.WriteFile(filepath.Join(dir, FileName), []byte(config), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	plant := func(t *testing.T, dir, content string) {
		// Written beside it and renamed in, as a checkout or a copy does.
		tmp := filepath.Join(dir, "planted.tmp")
		if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, "memory.db")); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(t *testing.T, dir string, replaced bool) {
		t.Helper()
		var us *UntrustedError
		err := CheckProject(dir, getenv)
		if !errors.As(err, &us) || !us.Store || us.Changed != replaced {
			t.Fatalf("CheckProject = %v; want a store refusal (replaced %v)", err, replaced)
		}
		want := filepath.Join(dir, "memory.db") + " is a project's memory you have not approved"
		if replaced {
			want = filepath.Join(dir, "memory.db") + " was replaced since you approved it"
		}
		if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "review and approve it with: recollect trust") {
			t.Fatalf("refusal reads %q", err)
		}
	}

	t.Run("no config", func(t *testing.T) {
		dir := project(t, "")
		if err := CheckProject(dir, getenv); err != nil {
			t.Fatalf("no database yet: %v", err)
		}
		plant(t, dir, "planted")
		refused(t, dir, false)
		if err := ApproveStore(dir, getenv); err != nil {
			t.Fatal(err)
		}
		if err := CheckProject(dir, getenv); err != nil {
			t.Fatalf("approved: %v", err)
		}
		plant(t, dir, "planted again")
		refused(t, dir, true)
	})
	t.Run("harmless config does not vouch for the database", func(t *testing.T) {
		dir := project(t, `{"mode":"record"}`)
		plant(t, dir, "planted")
		refused(t, dir, false)
	})
	t.Run("approved config vouches for a database made before", func(t *testing.T) {
		dir := project(t, `{"intelligence":{"provider":"ollama"}}`)
		plant(t, dir, "made by an older recollect")
		if err := ApproveDir(dir, getenv); err != nil {
			t.Fatal(err)
		}
		if err := CheckProject(dir, getenv); err != nil {
			t.Fatalf("approved config: %v", err)
		}
	})
	t.Run("the user's own ~/.recollect is never a project's", func(t *testing.T) {
		own := filepath.Join(home, ".recollect")
		plant(t, ensure(t, own), "made by an older recollect")
		if err := CheckProject(own, getenv); err != nil {
			t.Fatalf("~/.recollect reached by a walk up: %v", err)
		}
	})
	t.Run("only .recollect directories are recorded", func(t *testing.T) {
		other := t.TempDir()
		os.WriteFile(filepath.Join(other, "memory.db"), []byte("x"), 0o600)
		os.WriteFile(filepath.Join(other, FileName), []byte(`{"intelligence":{"provider":"ollama"}}`), 0o600)
		xdg := t.TempDir()
		env := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": xdg}[k] }
		if err := ApproveStore(other, env); err != nil {
			t.Fatal(err)
		}
		if err := ApproveDir(other, env); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(xdg, "recollect", ApprovalsFile)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("approvals written for a store a walk up never finds: %v", err)
		}
	})
	t.Run("approvals of files that are gone are dropped", func(t *testing.T) {
		xdg := t.TempDir()
		env := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": xdg}[k] }
		gone, kept := project(t, ""), project(t, "")
		plant(t, gone, "a")
		plant(t, kept, "b")
		for _, dir := range []string{gone, kept} {
			if err := ApproveStore(dir, env); err != nil {
				t.Fatal(err)
			}
		}
		os.RemoveAll(gone)
		if err := ApproveStore(kept, env); err != nil {
			t.Fatal(err)
		}
		approvals, err := readApprovals(env)
		if err != nil || len(approvals) != 1 || approvals[0].Path != filepath.Join(kept, "memory.db") {
			t.Fatalf("approvals = %+v (%v); want only %s", approvals, err, kept)
		}
	})
}

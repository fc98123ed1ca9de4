package scheduler_test

import (
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/scheduler"
	"github.com/recollect/recollect/store/storetest"
)

// TestServiceFiles pins the unit and the plist (testdata/service.golden,
// rewritten with -update) and checks the plist is well-formed XML; for a
// PostgreSQL store both read the URL from an environment file, and the
// note above them says how to write it.
func TestServiceFiles(t *testing.T) {
	cases := []struct{ bin, data, env string }{
		{"/usr/local/bin/recollect", "/home/a/.recollect", ""},
		{"/opt/my tools/recollect", "/home/a/data & 100%", ""},
		// A PostgreSQL store: its URL comes from a file of the user's.
		{"/usr/local/bin/recollect", "/home/a/team's memory", "/home/a/.config/recollect/postgres.env"},
	}
	var got strings.Builder
	for _, c := range cases {
		if c.env != "" {
			got.WriteString(scheduler.EnvFileNote("RECOLLECT_POSTGRES_URL", c.env))
		}
		name := scheduler.ServiceName(c.data, "/home/a")
		got.WriteString(scheduler.SystemdUnit(c.bin, c.data, c.env, name))
		got.WriteString("----\n")
		plist := scheduler.LaunchdPlist(c.bin, c.data, c.env, name)
		got.WriteString(plist)
		got.WriteString("====\n")
		dec := xml.NewDecoder(strings.NewReader(plist))
		dec.Strict = true
		for {
			_, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("plist for %q is not well-formed: %v", c.data, err)
			}
		}
	}
	storetest.Golden(t, "service.golden", got.String())
}

// TestLaunchdAgentReadsTheEnvFile runs the plist's program as launchd
// would — its arguments, no inherited environment — with a stand-in for
// the binary: the URL written as EnvFileNote says reaches the daemon
// whole (a URL holds & and ?), and the data directory arrives as one
// argument, a quote in its name included.
func TestLaunchdAgentReadsTheEnvFile(t *testing.T) {
	dir := t.TempDir()
	envFile := filepath.Join(dir, "config dir", "recollect", "postgres.env")
	url := "postgres://team@db.example:5432/memory?sslmode=require&application_name=recollect"
	note := strings.Split(strings.TrimSpace(scheduler.EnvFileNote("RECOLLECT_POSTGRES_URL", envFile)), "\n")
	write := exec.Command("/bin/sh", "-c", strings.TrimPrefix(note[len(note)-1], "#   "))
	write.Env = []string{"PATH=/usr/bin:/bin", "RECOLLECT_POSTGRES_URL=" + url}
	if out, err := write.CombinedOutput(); err != nil {
		t.Fatalf("write the env file: %v: %s", err, out)
	}
	out := filepath.Join(dir, "out")
	bin := filepath.Join(dir, "fake recollect")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nprintf '%s\\n' \"$RECOLLECT_POSTGRES_URL\" \"$@\" > "+out+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "team's memory")
	var plist struct {
		Args []string `xml:"dict>array>string"`
	}
	if err := xml.Unmarshal([]byte(scheduler.LaunchdPlist(bin, data, envFile, scheduler.ServiceName(data, ""))), &plist); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(plist.Args[0], plist.Args[1:]...)
	run.Env = []string{"PATH=/usr/bin:/bin"}
	if b, err := run.CombinedOutput(); err != nil {
		t.Fatalf("the agent's program %q: %v: %s", plist.Args, err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := url + "\ndaemon\n--data\n" + data + "\n"; string(got) != want {
		t.Errorf("the daemon got:\n%s\nwant:\n%s", got, want)
	}
	if fi, err := os.Stat(envFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("env file mode: %v, %v; want 0600", fi.Mode(), err)
	}
}

// TestServiceNamesNeverCollide: the user's own store keeps the plain
// names; two other stores, even of one name, get their own.
func TestServiceNamesNeverCollide(t *testing.T) {
	if got := scheduler.ServiceName("/home/a/.recollect", "/home/a"); got != "recollect" {
		t.Errorf("own store: %q", got)
	}
	a := scheduler.ServiceName("/work/atlas/.recollect", "/home/a")
	b := scheduler.ServiceName("/srv/atlas/.recollect", "/home/a")
	c := scheduler.ServiceName("/data/Team Memory", "/home/a")
	if !strings.HasPrefix(a, "recollect-atlas-") || a == b || !strings.HasPrefix(c, "recollect-team-memory-") {
		t.Errorf("names %q, %q, %q", a, b, c)
	}
}

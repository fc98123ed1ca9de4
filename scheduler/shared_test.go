package scheduler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/scheduler/daemonproc"
	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/postgres/pgtest"
)

// sharedURLEnv names the variable both test daemons read the shared
// store's URL from, as two machines' daemons would each read their own.
const sharedURLEnv = "RECOLLECT_TEST_SHARED_PG_URL"

// faultCwd is the project folder the fault tests' transcripts record.
const faultCwd = "/home/dev/app"

// machine is one data directory following its own transcript into the
// shared store, as a daemon on its own machine does.
type machine struct {
	name, dir, transcript, session string
	appended                       atomic.Int64
}

// appendTo writes line i of m's transcript, with a session id and record
// uuids of m's own, as two machines' Claude Code writes them.
func (m *machine) appendTo(i int64, text string) error {
	rec := map[string]any{"type": "user", "sessionId": m.session, "cwd": faultCwd,
		"timestamp": time.Now().UTC().Format(time.RFC3339Nano), "uuid": fmt.Sprintf("%s-%d", m.session, i),
		"message": map[string]any{"role": "user", "content": text}}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(m.transcript, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// followed writes a copy store in dir that follows a Claude Code home, and
// returns the one machine whose transcript it follows, its first line
// written.
func followed(t *testing.T, dir, home string) *machine {
	t.Helper()
	m := &machine{name: "one", dir: dir, session: "f011e7a0-fault-0000-0000-000000000000"}
	m.transcript = filepath.Join(copyStore(t, dir, home, faultCwd), m.session+".jsonl")
	if err := m.appendTo(0, "the daemon starts following here"); err != nil {
		t.Fatal(err)
	}
	m.appended.Store(1)
	return m
}

// TestTwoDaemonsShareOnePostgresStore runs, at once and for 20 s (60 s
// with RECOLLECT_FAULT_LONG=1): two daemons on two data directories whose
// config.json name one PostgreSQL schema, each following a transcript of
// its own that keeps growing; four CLI processes searching in a loop
// (two on each directory); and an MCP client capturing facts into one of
// them. No client may see an error, every line of each transcript is
// stored once, every capture is stored, and after a consolidate each
// directory finds what the other one copied.
func TestTwoDaemonsShareOnePostgresStore(t *testing.T) {
	url, schema := pgtest.Schema(t)
	t.Setenv(sharedURLEnv, url)
	span := 20 * time.Second
	if os.Getenv(envFaultLong) != "" {
		span = 60 * time.Second
	}
	bin := testbin.Binary(t)
	work := t.TempDir()
	var ms []*machine
	for _, name := range []string{"laptop", "remote"} {
		m := &machine{name: name, dir: filepath.Join(work, name, "data"), session: "5e55" + name}
		home := filepath.Join(work, name, "claude")
		proj := filepath.Join(home, "projects", sources.ClaudeFolder(faultCwd))
		for _, d := range []string{proj, m.dir} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		cfg := config.Default()
		cfg.Mode = "copy"
		cfg.Sources = []config.Source{{Kind: sources.ClaudeCode, Home: home}}
		cfg.Storage = config.Storage{Provider: "postgres", Postgres: config.PostgresStorage{URLEnv: sharedURLEnv, Schema: schema}}
		if err := config.Write(m.dir, cfg); err != nil {
			t.Fatal(err)
		}
		m.transcript = filepath.Join(proj, m.session+".jsonl")
		if err := m.appendTo(0, "the "+name+" starts following here"); err != nil {
			t.Fatal(err)
		}
		m.appended.Store(1)
		ms = append(ms, m)
	}
	ctx := context.Background()
	for _, m := range ms {
		d, err := daemonproc.Start(ctx, bin, m.dir)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Kill()
		defer func() {
			if err := d.Stop(); err != nil {
				t.Errorf("stop daemon: %v\n%s", err, d.Stderr())
			}
		}()
	}
	cs := mcpSession(t, bin, ms[0].dir)
	stop := time.Now().Add(span)
	var wg sync.WaitGroup
	var searches, captures atomic.Int64
	errs := make(chan error, 64)
	for _, m := range ms {
		wg.Add(1)
		go func() { // each machine's growing transcript
			defer wg.Done()
			for time.Now().Before(stop) {
				for range 5 {
					n := m.appended.Load()
					if err := m.appendTo(n, fmt.Sprintf("%s line %d: the %s keeps its build cache under /var/cache/%s", m.name, n, m.name, m.name)); err != nil {
						errs <- err
						return
					}
					m.appended.Add(1)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	for w := range 4 {
		wg.Add(1)
		go func() { // a CLI search loop, two on each directory
			defer wg.Done()
			searchUntil(stop, bin, ms[w%2].dir, "build cache", &searches, errs)
		}()
	}
	wg.Add(1)
	go func() { // the MCP client
		defer wg.Done()
		captureUntil(ctx, stop, cs, "The shared store test", 50*time.Millisecond, &captures, errs)
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	db, err := pipeline.OpenStore(ctx, ms[0].dir, config.Storage{Provider: "postgres", Postgres: config.PostgresStorage{URLEnv: sharedURLEnv, Schema: schema}}, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, m := range ms {
		want := m.appended.Load()
		var got, distinct int64
		err = daemonproc.Poll(ctx, 60*time.Second, func() (bool, error) {
			err := db.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT content) FROM session_events WHERE source_file = ?`, m.transcript).Scan(&got, &distinct)
			return err == nil && got >= want, err
		})
		if err != nil || got != want || distinct != want {
			t.Fatalf("%s: %d events stored (%d distinct) of %d appended lines: %v", m.name, got, distinct, want, err)
		}
	}
	var stored int64
	if err := db.QueryRowContext(ctx, `SELECT count(DISTINCT content) FROM session_facts WHERE content LIKE 'The shared store test captured fact number %'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != captures.Load() {
		t.Fatalf("%d captures acknowledged, %d stored", captures.Load(), stored)
	}
	if searches.Load() < 4 || captures.Load() < 10 {
		t.Fatalf("too little happened to prove anything: %d searches, %d captures", searches.Load(), captures.Load())
	}
	// Each sees the other's knowledge after its next consolidate.
	for i, m := range ms {
		other := ms[1-i]
		for _, args := range [][]string{{"consolidate", "--all", "--data", m.dir}, {"search", "--data", m.dir, "--json", other.name}} {
			out, err := exec.Command(bin, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %v\n%s", args, err, out)
			}
			if args[0] == "search" && !bytes.Contains(out, []byte("/var/cache/"+other.name)) {
				t.Errorf("%s does not find what %s copied:\n%.600s", m.name, other.name, out)
			}
		}
	}
	t.Logf("%s: %d + %d lines copied by two daemons into one schema, %d searches, %d captures, no error",
		span, ms[0].appended.Load(), ms[1].appended.Load(), searches.Load(), captures.Load())
}

package scheduler_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/postgres/pgtest"
	"github.com/recollect/recollect/store/sqlite"
	"github.com/recollect/recollect/store/storetest"
)

// crashLines is the size of the crash test's transcript.
const crashLines = 20000

// crashMaxLine leaves the fixture's largest lines (big tool results) out
// of the crash transcript, so it has many lines without many megabytes.
const crashMaxLine = 2048

// storedEvents lists every stored event of file as comparable rows, in
// file order.
func storedEvents(tb testing.TB, db *store.DB, file string) []string {
	tb.Helper()
	rows, err := db.QueryContext(context.Background(), `SELECT source_offset, event_type, role, content, coalesce(metadata, '') FROM session_events WHERE source_file = ? ORDER BY source_offset, seq`, file)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var off int64
		var typ, role, content, meta string
		if err := rows.Scan(&off, &typ, &role, &content, &meta); err != nil {
			tb.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d|%s|%s|%s|%s", off, typ, role, content, meta))
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestCrashRestart kills the daemon with SIGKILL at random points while it
// copies a large transcript, 20 times, restarting it each time; afterwards
// the store holds every line's events exactly once — the same rows an
// uninterrupted copy of the file stores — and every dropped record is
// counted once.
func TestCrashRestart(t *testing.T) {
	for _, engine := range storetest.Engines {
		t.Run(engine, func(t *testing.T) { crashRestart(t, engine) })
	}
}

// engineStore puts the copy store in data on engine: for postgres, in a
// schema of its own on the test server, its URL in a variable that the
// returned environment entry sets for the daemon. It opens the store as
// the daemon does, for the test to read.
func engineStore(t *testing.T, engine, data string) (*store.DB, []string) {
	t.Helper()
	cfg, err := config.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	var daemonEnv []string
	if engine == "postgres" {
		url, schema := pgtest.Schema(t)
		const urlEnv = "RECOLLECT_TEST_DAEMON_PG_URL"
		cfg.Storage = config.Storage{Provider: "postgres", Postgres: config.PostgresStorage{URLEnv: urlEnv, Schema: schema}}
		env[urlEnv] = url
		daemonEnv = []string{urlEnv + "=" + url}
		if err := config.Write(data, cfg); err != nil {
			t.Fatal(err)
		}
	}
	db, err := pipeline.OpenStore(context.Background(), data, cfg.Storage, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, daemonEnv
}

func crashRestart(t *testing.T, engine string) {
	bin := testbin.Binary(t)
	root := t.TempDir()
	data, home, cwd := filepath.Join(root, "data"), filepath.Join(root, "claude"), "/home/a/app"
	folder := copyStore(t, data, home, cwd)
	db, daemonEnv := engineStore(t, engine, data)
	transcript := filepath.Join(folder, "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
	var fixture [][]byte
	for _, l := range fixtureLines(t) {
		if len(l) <= crashMaxLine {
			fixture = append(fixture, l)
		}
	}
	var buf bytes.Buffer
	for i := range crashLines {
		buf.Write(uniqueLine(t, fixture[i%len(fixture)], i))
	}
	if err := os.WriteFile(transcript, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	// The reference: one uninterrupted copy into a store of its own.
	refDir := filepath.Join(root, "ref")
	ref, err := sqlite.Open(context.Background(), refDir)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	began := time.Now()
	cp := &sources.Copier{DB: ref, Sources: []config.Source{{Kind: "claude-code", Home: home}}, Redaction: config.Default().Redaction}
	if _, err := cp.CopyAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	copyTime := time.Since(began)
	want := storedEvents(t, ref, transcript)
	t.Logf("%d lines, %d MB, %d events; uninterrupted copy took %s", crashLines, buf.Len()>>20, len(want), copyTime.Round(time.Millisecond))

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	var partial []int
	for i := range 20 {
		d := startDaemon(t, bin, data, daemonEnv...)
		// The daemon copies from the moment its socket answers. Kill it
		// after a random slice of a tenth of a whole copy on average, so
		// the kills land all through the file.
		time.Sleep(time.Duration(rng.Int64N(int64(copyTime) / 5)))
		d.Kill()
		n := len(storedEvents(t, db, transcript))
		partial = append(partial, n)
		if n > len(want) {
			t.Fatalf("kill %d: %d events stored, more than the file's %d (seed %d)", i, n, len(want), seed)
		}
	}
	t.Logf("events stored after each kill: %v (seed %d)", partial, seed)

	d := startDaemon(t, bin, data, daemonEnv...)
	storetest.Eventually(t, "the whole file", func() bool { return len(storedEvents(t, db, transcript)) >= len(want) })
	stopDaemon(t, d)
	if got := storedEvents(t, db, transcript); !reflect.DeepEqual(got, want) {
		t.Fatalf("after 20 kills the store holds %d events, the uninterrupted copy %d; first difference at %d (seed %d)",
			len(got), len(want), firstDiff(got, want), seed)
	}
	if got, want := storetest.Skipped(t, db, ""), storetest.Skipped(t, ref, ""); !reflect.DeepEqual(got, want) {
		t.Errorf("dropped records counted %v, the uninterrupted copy %v (seed %d)", got, want, seed)
	}
	if partial[0] == len(want) {
		t.Logf("note: the first daemon finished the whole copy before its kill; later kills hit a finished file")
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

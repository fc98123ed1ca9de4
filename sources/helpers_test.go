package sources

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/recollect/recollect/fixtures/testlog"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

func newCopier(t testing.TB, db *store.DB, srcs ...config.Source) (*Copier, *testlog.Buffer) {
	t.Helper()
	logs := &testlog.Buffer{}
	home := t.TempDir()
	return &Copier{
		DB: db, Sources: srcs, Redaction: config.Default().Redaction,
		Log:    slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Getenv: func(k string) string { return map[string]string{"HOME": home}[k] },
	}, logs
}

// copyFixture copies a fixture transcript to dst, creating folders.
func copyFixture(t testing.TB, rel, dst string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dst, data)
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t testing.TB, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func copyAll(t testing.TB, c *Copier) Report {
	t.Helper()
	rep, err := c.CopyAll(context.Background())
	if err != nil {
		t.Fatalf("CopyAll: %v", err)
	}
	return rep
}

// eventCount counts stored events, optionally for one source file.
func eventCount(t testing.TB, db *store.DB, file string) int {
	t.Helper()
	q, args := `SELECT count(*) FROM session_events`, []any{}
	if file != "" {
		q, args = q+` WHERE source_file = ?`, []any{file}
	}
	return storetest.Count(t, db, q, args...)
}

// contents lists stored event contents of a file in seq order, on either
// engine.
func contents(t testing.TB, db *store.DB, file string) []string {
	t.Helper()
	return storetest.Column[string](t, db, `SELECT content FROM session_events WHERE source_file = ? ORDER BY seq`, file)
}

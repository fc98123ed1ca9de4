package sources

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// openDB opens a fresh store in a temporary directory.
func openDB(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// logBuffer collects log output for assertions; safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// newCopier builds a copier over db with HOME pointed at a temp dir.
func newCopier(t testing.TB, db *store.DB, srcs ...config.Source) (*Copier, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
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
	var n int
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// contents lists stored event contents of a file in seq order, on either
// engine.
func contents(t testing.TB, db *store.DB, file string) []string {
	t.Helper()
	return storetest.Column[string](t, db, `SELECT content FROM session_events WHERE source_file = ? ORDER BY seq`, file)
}

// skippedCounts reads the skipped_records table for a source kind.
func skippedCounts(t testing.TB, db *store.DB, kind string) map[string]int64 {
	t.Helper()
	rows, err := db.Query(`SELECT record_type, count FROM skipped_records WHERE source = ?`, kind)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var k string
		var n int64
		if err := rows.Scan(&k, &n); err != nil {
			t.Fatal(err)
		}
		out[k] = n
	}
	return out
}

var _ io.Writer = (*logBuffer)(nil)

package sources

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// follow runs a Watcher that feeds every change to c.CopyFile, as the
// daemon does. Rescans are an hour apart, so what arrives comes through
// fsnotify.
func follow(t *testing.T, c *Copier, srcs ...config.Source) *Watcher {
	t.Helper()
	w, err := NewWatcher(srcs, c.Getenv, c.Log)
	if err != nil {
		t.Fatal(err)
	}
	w.Rescan = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	started := make(chan struct{})
	var once sync.Once
	go func() {
		done <- w.Run(ctx, func(paths []string) {
			for _, p := range paths {
				if _, err := c.CopyFile(ctx, p); err != nil && ctx.Err() == nil {
					t.Errorf("CopyFile %s: %v", p, err)
				}
			}
			once.Do(func() { close(started) })
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("watcher Run: %v", err)
		}
	})
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("watcher never reported its first scan")
	}
	return w
}

func TestWatcherFollowsAppendsAndNewFolders(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	src, dir := claudeHome(t, "/w/app")
	path := filepath.Join(dir, "s.jsonl")
	writeFile(t, path, userLine("s", "/w/app", "first"))
	cursorHome := t.TempDir()
	csrc := config.Source{Kind: Cursor, Home: cursorHome}
	c, _ := newCopier(t, db, src, csrc)
	w := follow(t, c, src, csrc)
	if n := eventCount(t, db, path); n != 1 {
		t.Fatalf("first scan copied %d events, want 1", n)
	}

	appendFile(t, path, userLine("s", "/w/app", "appended"))
	took := storetest.Eventually(t, "the appended line", func() bool { return eventCount(t, db, path) == 2 })
	t.Logf("append → event in %v", took)

	// A project folder created after the watcher started.
	newDir := filepath.Join(filepath.Dir(dir), ClaudeFolder("/w/new"))
	if err := os.Mkdir(newDir, 0o755); err != nil {
		t.Fatal(err)
	}
	np := filepath.Join(newDir, "n.jsonl")
	writeFile(t, np, userLine("n", "/w/new", "in a new folder"))
	storetest.Eventually(t, "a file in a new project folder", func() bool { return eventCount(t, db, np) == 1 })

	// Cursor: a projects folder and a conversation folder that appear later.
	cp := filepath.Join(cursorHome, "projects/w-app/agent-transcripts/u1/u1.jsonl")
	writeFile(t, cp, []byte(`{"role":"user","message":{"content":[{"type":"text","text":"<user_query>hi</user_query>"}]}}`+"\n"))
	storetest.Eventually(t, "a cursor conversation in new folders", func() bool { return eventCount(t, db, cp) == 1 })

	// A half line waits; its newline brings it in.
	appendFile(t, cp, []byte(`{"role":"assistant","message":{"content":[{"type":"text","text":"hello"}]}}`))
	appendFile(t, path, userLine("s", "/w/app", "marker"))
	storetest.Eventually(t, "a later line elsewhere", func() bool { return eventCount(t, db, path) == 3 })
	if n := eventCount(t, db, cp); n != 1 {
		t.Fatalf("half line copied: %d events", n)
	}
	appendFile(t, cp, []byte("\n"))
	storetest.Eventually(t, "the completed line", func() bool { return eventCount(t, db, cp) == 2 })

	// Deleted: forgotten by the watcher, kept in the store.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	storetest.Eventually(t, "the deleted file to be forgotten", func() bool { return !slices.Contains(w.Files(), path) })
	if n := eventCount(t, db, path); n != 3 {
		t.Errorf("%d events of the deleted file, want its 3 kept", n)
	}
}

func TestWatcherWaitsForAHomeThatDoesNotExistYet(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	home := filepath.Join(t.TempDir(), "later", ".claude")
	src := config.Source{Kind: ClaudeCode, Home: home}
	c, _ := newCopier(t, db, src)
	w, err := NewWatcher([]config.Source{src}, c.Getenv, c.Log)
	if err != nil {
		t.Fatal(err)
	}
	w.Rescan = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan []string, 16)
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, func(p []string) { got <- p }) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	if first := <-got; len(first) != 0 {
		t.Fatalf("first call %v, want no files yet", first)
	}
	path := filepath.Join(home, "projects", "-w", "s.jsonl")
	writeFile(t, path, userLine("s", "/w", "hi"))
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ps := <-got:
			if slices.Contains(ps, path) {
				return
			}
		case <-deadline:
			t.Fatal("a home created after start was never followed")
		}
	}
}

// The periodic scan is the truth: it reports a change whatever fsnotify
// delivered.
func TestRescanFindsChangesWithoutEvents(t *testing.T) {
	src, dir := claudeHome(t, "/w/app")
	path := filepath.Join(dir, "s.jsonl")
	writeFile(t, path, userLine("s", "/w/app", "one"))
	w, err := NewWatcher([]config.Source{src}, func(string) string { return "" }, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	l := &watchLoop{fw: fw, watched: map[string]bool{}, pending: map[string]bool{}}
	var got [][]string
	rec := func(p []string) { got = append(got, p) }
	w.scan(l)
	w.flush(l, rec)
	w.scan(l)
	w.flush(l, rec)
	appendFile(t, path, userLine("s", "/w/app", "two"))
	w.scan(l)
	w.flush(l, rec)
	if len(got) != 2 || got[0][0] != path || got[1][0] != path {
		t.Fatalf("scans reported %v; want the file at first sight and after it grew, not in between", got)
	}
	if !l.watched[dir] || !l.watched[filepath.Dir(dir)] {
		t.Errorf("watched %v; want the projects folder and the project", l.watched)
	}
}

// BenchmarkAppendToEvent measures how long a line appended to a followed
// transcript takes to become an event through Watcher → CopyFile (real
// fsnotify, default debounce).
//
//	go test -tags sqlite_fts5 ./sources -run '^$' -bench AppendToEvent -benchtime 50x
func BenchmarkAppendToEvent(b *testing.B) {
	db := storetest.Open(b, "sqlite")
	src, dir := claudeHome(b, "/w/app")
	path := filepath.Join(dir, "s.jsonl")
	writeFile(b, path, userLine("s", "/w/app", "start"))
	c, _ := newCopier(b, db, src)
	w, err := NewWatcher([]config.Source{src}, c.Getenv, c.Log)
	if err != nil {
		b.Fatal(err)
	}
	w.Rescan = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ready := make(chan struct{})
	var once sync.Once
	go func() {
		done <- w.Run(ctx, func(paths []string) {
			for _, p := range paths {
				_, _ = c.CopyFile(ctx, p)
			}
			once.Do(func() { close(ready) })
		})
	}()
	<-ready
	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		appendFile(b, path, userLine("s", "/w/app", time.Now().String()))
		for eventCount(b, db, path) < i+2 {
			time.Sleep(time.Millisecond)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	cancel()
	<-done
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Milliseconds()), "p95-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Milliseconds()), "max-ms")
}

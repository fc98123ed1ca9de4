package sources

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/recollect/recollect/store/config"
)

// Default timings of a Watcher.
const (
	// DefaultDebounce is how long changes gather before one onChange call.
	DefaultDebounce = 50 * time.Millisecond
	// DefaultRescan is the period of the full scan that reconciles
	// watches and files whatever fsnotify said.
	DefaultRescan = 10 * time.Second
)

// Watcher tells its caller which selected transcripts changed. fsnotify on
// the source folders is the fast hint (watches are added for folders
// created later: a new project, a new agent-transcripts/<uuid>/); a
// periodic scan is the truth, catching anything the hint missed.
type Watcher struct {
	sel *selector
	log *slog.Logger
	// Debounce and Rescan override the defaults when positive; set them
	// before Run.
	Debounce, Rescan time.Duration

	mu    sync.Mutex
	known map[string]fileStat // selected files and what the last look saw
	// unreadable is the folders the last scan could not list.
	unreadable []FileError
	// retry holds files whose copy failed, with when to try them again.
	retry map[string]time.Time
}

type fileStat struct {
	size int64
	mod  time.Time
}

// NewWatcher builds a watcher over the configured sources. getenv reads
// HOME and CLAUDE_CONFIG_DIR (os.Getenv when nil).
func NewWatcher(sources []config.Source, getenv func(string) string, log *slog.Logger) (*Watcher, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if log == nil {
		log = slog.Default()
	}
	sel, err := newSelector(sources, getenv)
	if err != nil {
		return nil, err
	}
	return &Watcher{sel: sel, log: log, known: map[string]fileStat{}, retry: map[string]time.Time{}}, nil
}

// Files lists the transcripts the watcher follows now. A deleted file
// drops out at the next event or scan; its events stay in the store.
func (w *Watcher) Files() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.known))
	for p := range w.known {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Unreadable lists the source folders the last scan could not list (their
// transcripts are not followed), for the daemon's status.
func (w *Watcher) Unreadable() []FileError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.unreadable)
}

// RetryAt asks for path to be handed to onChange again at the first scan
// after at, even if it has not changed: its copy failed (a full disk), and
// a file that does not change would otherwise wait for its next write.
func (w *Watcher) RetryAt(path string, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.retry[path] = at
}

// watchLoop is Run's state, owned by Run's goroutine.
type watchLoop struct {
	fw       *fsnotify.Watcher
	watched  map[string]bool
	pending  map[string]bool
	lastWarn time.Time
}

// Run watches until ctx ends, calling onChange (from Run's own goroutine,
// so calls never overlap) with the selected files that changed. The first
// call comes at once and lists every selected file (possibly none), so
// nothing written before Run began is missed. It returns nil when ctx
// ends, or an error if fsnotify fails.
func (w *Watcher) Run(ctx context.Context, onChange func(paths []string)) error {
	debounce, rescan := w.Debounce, w.Rescan
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	if rescan <= 0 {
		rescan = DefaultRescan
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("start file watcher: %w", err)
	}
	defer fw.Close()
	l := &watchLoop{fw: fw, watched: map[string]bool{}, pending: map[string]bool{}}
	w.scan(l)
	first := w.take(l)
	onChange(first)
	tick := time.NewTicker(rescan)
	defer tick.Stop()
	var timer <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return errors.New("file watcher closed")
			}
			if w.event(l, ev) {
				w.scan(l)
			}
		case err, ok := <-fw.Errors:
			if !ok {
				return errors.New("file watcher closed")
			}
			w.warn(l, err)
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.scan(l)
			}
		case <-tick.C:
			w.scan(l)
		case <-timer:
			timer = nil
			w.flush(l, onChange)
		}
		if timer == nil && len(l.pending) > 0 {
			timer = time.After(debounce)
		}
	}
}

// event handles one fsnotify event; it reports whether a scan is needed
// (a folder appeared or vanished).
func (w *Watcher) event(l *watchLoop, ev fsnotify.Event) bool {
	if !isTranscriptName(ev.Name) {
		if ev.Has(fsnotify.Create) && isDir(ev.Name) {
			return true
		}
		return (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && l.watched[ev.Name]
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if _, err := os.Lstat(ev.Name); errors.Is(err, os.ErrNotExist) {
			delete(l.pending, ev.Name)
			w.mu.Lock()
			delete(w.known, ev.Name)
			w.mu.Unlock()
			return false
		}
	}
	if _, err := w.sel.match(ev.Name); err == nil {
		l.pending[ev.Name] = true
	}
	return false
}

// scan reconciles the watches with the folders that exist now, then marks
// every selected file that is new or changed since the last look. Watches
// are added before files are listed, so a file written in between is seen
// by one or the other.
func (w *Watcher) scan(l *watchLoop) {
	// A folder created between listing and watching its parent would send
	// no event, so list again until a listing finds nothing new.
	for range 100 {
		if w.watchDirs(l) == 0 {
			break
		}
	}
	files, unreadable := w.sel.files()
	next := make(map[string]fileStat, len(files))
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.noteUnreadable(unreadable)
	for _, f := range files {
		fi, err := os.Stat(f.path)
		if err != nil {
			continue
		}
		st := fileStat{size: fi.Size(), mod: fi.ModTime()}
		if old, ok := w.known[f.path]; !ok || old != st {
			l.pending[f.path] = true
		}
		if at, ok := w.retry[f.path]; ok && !now.Before(at) {
			l.pending[f.path] = true
			delete(w.retry, f.path)
		}
		next[f.path] = st
	}
	for p := range w.retry {
		if _, ok := next[p]; !ok {
			delete(w.retry, p)
		}
	}
	w.known = next
}

// noteUnreadable keeps the folders a scan could not list and logs each
// one when it first fails and when it is readable again. w.mu is held.
func (w *Watcher) noteUnreadable(now []FileError) {
	was := map[string]bool{}
	for _, fe := range w.unreadable {
		was[fe.Path] = true
	}
	is := map[string]bool{}
	for _, fe := range now {
		is[fe.Path] = true
		if !was[fe.Path] {
			w.log.Warn("source folder not readable; the transcripts in it are not followed", "folder", fe.Path, "err", fe.Err)
		}
	}
	for p := range was {
		if !is[p] {
			w.log.Info("source folder readable again", "folder", p)
		}
	}
	w.unreadable = now
}

// watchDirs reconciles the watches with the folders that exist now and
// returns how many watches it added.
func (w *Watcher) watchDirs(l *watchLoop) int {
	want := map[string]bool{}
	for _, src := range w.sel.srcs {
		var ls listing // unreadable folders are noted by scan's listing of files
		for _, d := range src.dirs(&ls) {
			want[d] = true
		}
		if !isDir(src.projects) {
			if d := src.waitDir(); d != "" {
				want[d] = true
			}
		}
	}
	for d := range l.watched {
		if !want[d] {
			_ = l.fw.Remove(d) // fails when the folder is already gone
			delete(l.watched, d)
		}
	}
	added := 0
	for d := range want {
		if l.watched[d] {
			continue
		}
		if err := l.fw.Add(d); err != nil {
			w.warn(l, fmt.Errorf("watch %s: %w", d, err))
			continue
		}
		l.watched[d] = true
		added++
	}
	return added
}

// flush hands the pending paths to onChange and records what they look
// like now, so the next scan does not report them again.
func (w *Watcher) flush(l *watchLoop, onChange func([]string)) {
	if len(l.pending) == 0 {
		return
	}
	onChange(w.take(l))
}

// take empties the pending set, recording each file's current look.
func (w *Watcher) take(l *watchLoop) []string {
	paths := make([]string, 0, len(l.pending))
	w.mu.Lock()
	for p := range l.pending {
		paths = append(paths, p)
		if fi, err := os.Stat(p); err == nil {
			w.known[p] = fileStat{size: fi.Size(), mod: fi.ModTime()}
		}
	}
	w.mu.Unlock()
	clear(l.pending)
	sort.Strings(paths)
	return paths
}

// warn logs watcher trouble at most once a second.
func (w *Watcher) warn(l *watchLoop, err error) {
	if time.Since(l.lastWarn) < time.Second {
		return
	}
	l.lastWarn = time.Now()
	w.log.Warn("file watcher", "err", err)
}

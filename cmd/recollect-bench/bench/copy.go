package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// FixturesDefaultPath holds the repository's copies of real transcripts
// (fixtures/transcripts, permissively licensed; see its SOURCES.md),
// relative to the repository root.
const FixturesDefaultPath = "fixtures/transcripts"

// maxFixtureLine leaves the few giant lines (a pasted image, a 0.5 MB tool
// dump) out of the built transcript, so 200k lines stay a few hundred MB.
const maxFixtureLine = 16 << 10

// CopyResult compares the copier with a raw batched insert of the same
// rows.
type CopyResult struct {
	Lines     int           `json:"lines"`
	Bytes     int64         `json:"bytes"`
	Events    int64         `json:"events"`
	Fixtures  int           `json:"fixture_files"`
	Copy      time.Duration `json:"copy_ns"`
	Raw       time.Duration `json:"raw_ns"`
	CopyRate  float64       `json:"copy_lines_per_s"`
	RawRate   float64       `json:"raw_lines_per_s"`
	CopyToRaw float64       `json:"copy_over_raw"`
}

// fixtureLines reads every Claude Code transcript line under root (at most
// maxFixtureLine bytes), in a stable order.
func fixtureLines(root string) ([][]byte, int, error) {
	var files []string
	err := filepath.WalkDir(filepath.Join(root, "claude-code"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("read fixtures: %w; pass --fixtures DIR (the real transcripts, expected at %s)", err, FixturesDefaultPath)
	}
	sort.Strings(files)
	var lines [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, 0, fmt.Errorf("read fixture: %w", err)
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 && len(l) <= maxFixtureLine {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) == 0 {
		return nil, 0, fmt.Errorf("no transcript line under %s; pass --fixtures DIR with claude-code/*.jsonl", root)
	}
	return lines, len(files), nil
}

// buildTranscript writes n lines cycling through the fixture lines into
// one session file of a Claude Code home, and returns the home.
func buildTranscript(work string, lines [][]byte, n int) (home, path string, size int64, err error) {
	home = filepath.Join(work, "claude")
	dir := filepath.Join(home, "projects", "-bench-project")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", 0, fmt.Errorf("create transcript folder: %w", err)
	}
	path = filepath.Join(dir, "0b5e7c1e-bench-0000-0000-000000000000.jsonl")
	f, err := os.Create(path)
	if err != nil {
		return "", "", 0, fmt.Errorf("create transcript: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := 0; i < n; i++ {
		w.Write(lines[i%len(lines)])
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", "", 0, fmt.Errorf("write transcript: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", "", 0, fmt.Errorf("write transcript: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", "", 0, fmt.Errorf("stat transcript: %w", err)
	}
	return home, path, fi.Size(), nil
}

// BenchCopy copies a transcript of n lines built from the fixtures with
// the real copier, then inserts the same rows (mapped outside the clock)
// with one prepared statement in transactions of 1000 into a fresh store
// with the same schema and triggers, both stores in the engine stores
// opens.
func BenchCopy(ctx context.Context, work, fixtures string, n int, stores Stores) (CopyResult, error) {
	var res CopyResult
	lines, files, err := fixtureLines(fixtures)
	if err != nil {
		return res, err
	}
	home, path, size, err := buildTranscript(work, lines, n)
	if err != nil {
		return res, err
	}
	res.Lines, res.Bytes, res.Fixtures = n, size, files
	db, closeDB, err := stores.open(ctx, filepath.Join(work, "copy-store"), "copy")
	if err != nil {
		return res, err
	}
	defer closeDB()
	c := &sources.Copier{DB: db, Sources: []config.Source{{Kind: sources.ClaudeCode, Home: home}},
		Redaction: config.Default().Redaction, Getenv: func(k string) string { return map[string]string{"HOME": work}[k] }}
	start := time.Now()
	rep, err := c.CopyAll(ctx)
	res.Copy = time.Since(start)
	if err != nil {
		return res, fmt.Errorf("copy: %w", err)
	}
	if len(rep.Errors) > 0 {
		return res, fmt.Errorf("copy: %s", rep.Errors[0].Error())
	}
	if rep.Lines != int64(n) {
		return res, fmt.Errorf("copy read %d lines of %d", rep.Lines, n)
	}
	res.Events = rep.Events
	raw, events, err := rawInsert(ctx, stores, filepath.Join(work, "raw-store"), path)
	if err != nil {
		return res, err
	}
	if events != rep.Events {
		return res, fmt.Errorf("raw insert wrote %d events, the copier %d: not the same rows", events, rep.Events)
	}
	res.Raw = raw
	res.CopyRate = float64(n) / res.Copy.Seconds()
	res.RawRate = float64(n) / raw.Seconds()
	res.CopyToRaw = res.CopyRate / res.RawRate
	return res, nil
}

const rawInsertSQL = `INSERT INTO session_events(session_id, source, source_file, source_offset, role, speaker, event_type,
	content_type, content, content_ref, metadata, occurred_at, recorded_at, dedupe_key) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`

// rawInsert maps the file's lines outside the clock, then times inserting
// the events in batches of sources.DefaultBatchLines.
func rawInsert(ctx context.Context, stores Stores, dir, path string) (time.Duration, int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, fmt.Errorf("read transcript: %w", err)
	}
	var evs []store.Event
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		if m, err := sources.Map(sources.ClaudeCode, path, l); err == nil {
			evs = append(evs, m.Events...)
		}
	}
	db, closeDB, err := stores.open(ctx, dir, "raw")
	if err != nil {
		return 0, 0, err
	}
	defer closeDB()
	now := store.Now()
	start := time.Now()
	for i := 0; i < len(evs); i += sources.DefaultBatchLines {
		batch := evs[i:min(i+sources.DefaultBatchLines, len(evs))]
		err := db.Tx(ctx, func(tx *store.Tx) error {
			touched := map[string]bool{}
			for _, ev := range batch {
				if !touched[ev.SessionID] {
					touched[ev.SessionID] = true
					if err := store.TouchSession(ctx, tx, ev.SessionID, sources.ClaudeCode, "", path, time.Now()); err != nil {
						return err
					}
				}
			}
			st, err := tx.PrepareContext(ctx, rawInsertSQL)
			if err != nil {
				return err
			}
			defer st.Close()
			for j, ev := range batch {
				var meta any
				if len(ev.Metadata) > 0 {
					meta = string(ev.Metadata)
				}
				if _, err := st.ExecContext(ctx, ev.SessionID, ev.Source, path, i+j, ev.Role, nil, ev.EventType,
					ev.ContentType, ev.Content, nil, meta, nil, now, fmt.Sprint(i+j)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return 0, 0, fmt.Errorf("raw insert: %w", err)
		}
	}
	return time.Since(start), int64(len(evs)), nil
}

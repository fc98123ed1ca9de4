package bench

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/scheduler/daemonproc"
	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/sqlite"
)

// ImportResult is how long an imported history takes to become
// searchable: a daemon started on it (the user's path) beside
// `consolidate --all` on a copy of the same history (the same work with no
// scheduling in between).
type ImportResult struct {
	Bytes      int64         `json:"history_bytes"`
	Files      int           `json:"files"`
	Events     int           `json:"events"`
	Facts      int           `json:"active_facts"`
	Searchable time.Duration `json:"daemon_searchable_ns"`
	Baseline   time.Duration `json:"consolidate_all_ns"`
}

var (
	sessionIDField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"sessionId":"[^"]*"`) })
	uuidField      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"(uuid|parentUuid)":"([^"]*)"`) })
)

// buildHistory writes about size bytes of Claude Code history under
// home/projects: the fixture transcripts again and again, each copy a new
// session (its sessionId and line uuids rewritten), spread over 12
// project folders.
func buildHistory(home, fixtures string, size int64) (files int, written int64, err error) {
	var paths []string
	err = filepath.WalkDir(filepath.Join(fixtures, "claude-code"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("read fixtures: %w; pass --fixtures DIR (the real transcripts, expected at %s)", err, FixturesDefaultPath)
	}
	sort.Strings(paths)
	var bodies [][][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return 0, 0, fmt.Errorf("read fixture: %w", err)
		}
		var lines [][]byte
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 && len(l) <= maxFixtureLine {
				lines = append(lines, l)
			}
		}
		if len(lines) > 0 {
			bodies = append(bodies, lines)
		}
	}
	if len(bodies) == 0 {
		return 0, 0, fmt.Errorf("no transcript line under %s; pass --fixtures DIR with claude-code/*.jsonl", fixtures)
	}
	for i := 0; written < size; i++ {
		sid := fmt.Sprintf("0b5e7c1e-%04x-4000-8000-%012x", i%0x10000, i)
		dir := filepath.Join(home, "projects", sources.ClaudeFolder(fmt.Sprintf("/bench/import/project%d", i%12)))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return files, written, fmt.Errorf("create history folder: %w", err)
		}
		var buf bytes.Buffer
		for _, l := range bodies[i%len(bodies)] {
			l = sessionIDField().ReplaceAll(l, []byte(`"sessionId":"`+sid+`"`))
			l = uuidField().ReplaceAll(l, []byte(fmt.Sprintf(`"$1":"$2-%d"`, i)))
			buf.Write(l)
			buf.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), buf.Bytes(), 0o600); err != nil {
			return files, written, fmt.Errorf("write history: %w", err)
		}
		files++
		written += int64(buf.Len())
	}
	return files, written, nil
}

// importStore writes a copy-mode config over home, heuristic provider.
func importStore(dir, home string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	cfg := config.Default()
	cfg.Mode = "copy"
	cfg.Sources = []config.Source{{Kind: sources.ClaudeCode, Home: home, IncludeSubagents: true}}
	return config.Write(dir, cfg)
}

// BenchImport builds about mb megabytes of history from the fixtures,
// starts bin's daemon on it and times until every event is copied and
// examined and every extracted fact integrated (searchable); then runs
// `consolidate --all` on a fresh store of the same history as the
// baseline.
func BenchImport(ctx context.Context, bin, work, fixtures string, mb int) (ImportResult, error) {
	var res ImportResult
	home := filepath.Join(work, "claude")
	var err error
	if res.Files, res.Bytes, err = buildHistory(home, fixtures, int64(mb)<<20); err != nil {
		return res, err
	}
	dir := filepath.Join(work, "daemon")
	if err := importStore(dir, home); err != nil {
		return res, err
	}
	start := time.Now()
	d, err := daemonproc.Start(ctx, bin, dir)
	if err != nil {
		return res, err
	}
	defer d.Kill()
	p, err := pipeline.Open(ctx, dir, pipeline.Options{})
	if err != nil {
		return res, err
	}
	defer p.Close()
	db := p.Store()
	stage, err := p.ExtractStage(ctx)
	if err != nil {
		return res, err
	}
	err = daemonproc.Poll(ctx, 30*time.Minute, func() (bool, error) {
		time.Sleep(200 * time.Millisecond)
		done, err := searchable(ctx, stage, res.Files)
		if err != nil || !done {
			return false, err
		}
		st, err := daemonproc.Status(ctx, dir)
		return err == nil && !st.Running && !st.Pending, nil
	})
	if err != nil {
		return res, fmt.Errorf("wait until the history is searchable: %w\n%s", err, d.LastLine())
	}
	res.Searchable = time.Since(start)
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM session_events), (SELECT count(*) FROM facts WHERE status = 'active')`).Scan(&res.Events, &res.Facts); err != nil {
		return res, fmt.Errorf("count the imported store: %w", err)
	}
	if err := d.Stop(); err != nil {
		return res, err
	}

	base := filepath.Join(work, "consolidate")
	if err := importStore(base, home); err != nil {
		return res, err
	}
	bdb, err := sqlite.Open(ctx, base) // consolidate runs on an existing store only
	if err != nil {
		return res, err
	}
	bdb.Close()
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, bin, "consolidate", "--all", "--data", base)
	if out, err := cmd.CombinedOutput(); err != nil {
		return res, fmt.Errorf("consolidate --all: %w: %s", err, lastLine(string(out)))
	}
	res.Baseline = time.Since(t0)
	return res, nil
}

// searchable reports whether every history file is copied to its end, no
// event waits for extraction (the stage's own count) and no extracted
// fact waits for integration.
func searchable(ctx context.Context, stage *extract.Stage, files int) (bool, error) {
	var copied, behind, pending int
	err := stage.DB.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM source_files),
		(SELECT count(*) FROM source_files WHERE "offset" < size),
		(SELECT count(*) FROM session_facts WHERE status = 'pending')`).Scan(&copied, &behind, &pending)
	if err != nil {
		return false, fmt.Errorf("read import progress: %w", err)
	}
	if copied < files || behind > 0 || pending > 0 {
		return false, nil
	}
	waiting, err := stage.Remaining(ctx)
	return err == nil && waiting == 0, err
}

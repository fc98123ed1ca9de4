package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store"
)

// CLIFacts is the store size the CLI part searches: small, so what is
// timed is the process around the search rather than the search.
const CLIFacts = 1000

// CLIResult times `recollect search` as a whole process, what a person
// at a shell waits for, on a store of Facts facts. In the same rounds it
// times the sqlite3 shell answering the same words from the same file
// (FTS5's best 20 with their text: the least any tool over this store
// could do), the binary's start alone (`recollect version`, no store) and a
// small Go program's start (`recollect-notify --help`).
type CLIResult struct {
	Facts  int     `json:"facts"`
	Runs   int     `json:"runs"`
	Search Latency `json:"search"`
	// SQLite is 0 runs with SQLiteMissing set when there is no sqlite3
	// on PATH.
	SQLite        Latency `json:"sqlite3_shell"`
	SQLiteMissing string  `json:"sqlite3_missing,omitempty"`
	Start         Latency `json:"version"`
	// GoStart is 0 runs with GoStartMissing set when recollect-notify is
	// not beside recollect.
	GoStart        Latency `json:"notify_help"`
	GoStartMissing string  `json:"notify_missing,omitempty"`
}

// BenchCLI builds a store of n facts as the search bench does and times
// runs interleaved rounds of `recollect search QUERY` (a different query
// each round), the sqlite3 shell on the same query, `recollect version`
// and `recollect-notify --help`, so load falls on all alike.
func BenchCLI(ctx context.Context, bin, work, fixtures string, n, runs int) (CLIResult, error) {
	res := CLIResult{Facts: n, Runs: runs}
	dir := filepath.Join(work, fmt.Sprintf("cli-%d", n))
	db, sentences, err := buildSearchStore(ctx, dir, fixtures, n)
	if err != nil {
		return res, err
	}
	eng := db.Engine()
	if err := db.Close(); err != nil {
		return res, fmt.Errorf("close the cli store: %w", err)
	}
	shell, err := exec.LookPath("sqlite3")
	if err != nil {
		res.SQLiteMissing = "sqlite3 not found on PATH; column skipped"
	}
	notify := filepath.Join(filepath.Dir(bin), "recollect-notify")
	if _, err := os.Stat(notify); err != nil {
		res.GoStartMissing = "recollect-notify not beside " + bin + "; column skipped"
	}
	var search, sh, start, gostart []time.Duration
	for i, q := range benchQueries(sentences, runs) {
		d, out, err := timeProcess(ctx, []string{bin, "search", "--data", dir, q}, "")
		if err != nil {
			return res, fmt.Errorf("recollect search %q: %w", q, err)
		}
		if i == 0 && !strings.Contains(string(out), "[fact ") {
			return res, fmt.Errorf("recollect search %q found no fact on a store of %d facts:\n%s", q, n, out)
		}
		search = append(search, d)
		if shell != "" {
			stmt := `SELECT k.id, f.content FROM ` + eng.TextMatches(store.FactText) + ` k JOIN facts f ON f.id = k.id ORDER BY k.score DESC LIMIT 20;`
			stmt = strings.Replace(stmt, "?", quoteSQL(eng.TextQuery(text.Analyze(q).Query())), 1)
			if d, _, err = timeProcess(ctx, []string{shell, filepath.Join(dir, store.DBFile), stmt}, ""); err != nil {
				return res, fmt.Errorf("sqlite3 shell: %w", err)
			}
			sh = append(sh, d)
		}
		if d, _, err = timeProcess(ctx, []string{bin, "version"}, ""); err != nil {
			return res, fmt.Errorf("recollect version: %w", err)
		}
		start = append(start, d)
		if res.GoStartMissing == "" {
			if d, _, err = timeProcess(ctx, []string{notify, "--help"}, ""); err != nil {
				return res, fmt.Errorf("recollect-notify --help: %w", err)
			}
			gostart = append(gostart, d)
		}
	}
	res.Search, res.SQLite, res.Start, res.GoStart = Percentiles(search), Percentiles(sh), Percentiles(start), Percentiles(gostart)
	return res, nil
}

// quoteSQL is s as an SQL string literal.
func quoteSQL(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

package sources

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/regfile"
)

// Problems the copier records in source_problems, one row per machine and
// path, so stats shows what was not read and why long after the log line
// scrolled away. A row goes when its path is read (or listed) fine again
// on its machine: on a store several machines copy into, a path one cannot
// read may be fine on another. A row recorded before machines were told
// apart, with an empty machine, is taken as the machine's own by any copier.
const (
	// ProblemNotRegular is a FIFO, socket or device named like a
	// transcript: skipped without being opened for a blocking read.
	ProblemNotRegular = "not_regular_file"
	// ProblemCopyFailed is a transcript whose last copy failed (disk full,
	// permission denied, an I/O error); it is retried with backoff.
	ProblemCopyFailed = "copy_failed"
	// ProblemUnreadableFolder is a source folder that could not be listed:
	// the transcripts in it are not followed.
	ProblemUnreadableFolder = "unreadable_folder"
)

// Retry backoff of a file whose copy failed: the first retry after
// RetryMin, doubling per failure in a row up to RetryMax.
const (
	RetryMin = 10 * time.Second
	RetryMax = 10 * time.Minute
)

// RetryAfter is how long to wait before copying again a file that failed
// failures times in a row.
func RetryAfter(failures int) time.Duration {
	d := RetryMin
	for i := 1; i < failures && d < RetryMax; i++ {
		d *= 2
	}
	return min(d, RetryMax)
}

// problemOf names the problem of a file that could not be copied.
func problemOf(err error) string {
	if errors.Is(err, regfile.ErrNotRegular) {
		return ProblemNotRegular
	}
	return ProblemCopyFailed
}

// noteProblem records that path could not be read and returns how many
// times in a row it failed. Recording is best effort: the store may be
// the very thing failing (a full disk), and the copy error is reported
// either way.
func (c *Copier) noteProblem(ctx context.Context, path, kind, problem, detail string) int {
	now := store.Now()
	var failures int
	err := c.DB.QueryRowContext(ctx, `INSERT INTO source_problems(machine, path, kind, problem, detail, failures, first_at, last_at)
		VALUES (?,?,?,?,?,1,?,?)
		ON CONFLICT(machine, path) DO UPDATE SET kind = excluded.kind, detail = excluded.detail, last_at = excluded.last_at,
			failures = CASE WHEN source_problems.problem = excluded.problem THEN source_problems.failures + 1 ELSE 1 END,
			first_at = CASE WHEN source_problems.problem = excluded.problem THEN source_problems.first_at ELSE excluded.first_at END,
			problem = excluded.problem
		RETURNING failures`, c.Machine, path, kind, problem, detail, now, now).Scan(&failures)
	if err != nil {
		c.Log.Warn("could not record a copy problem", "path", path, "problem", problem, "err", err)
		return 1
	}
	return failures
}

// clearProblems forgets the recorded problems of paths that were read
// fine, and of folder problems (for the folders in listed) that are gone.
// It reads before it writes, so a healthy pass costs no write.
func (c *Copier) clearProblem(ctx context.Context, path string) error {
	var n int
	if err := c.DB.QueryRowContext(ctx, `SELECT count(*) FROM source_problems WHERE machine IN (?, '') AND path = ?`, c.Machine, path).Scan(&n); err != nil {
		return fmt.Errorf("read copy problems: %w", err)
	}
	if n == 0 {
		return nil
	}
	if _, err := c.DB.ExecContext(ctx, `DELETE FROM source_problems WHERE machine IN (?, '') AND path = ?`, c.Machine, path); err != nil {
		return fmt.Errorf("clear copy problem of %s: %w", path, err)
	}
	return nil
}

// RecordFolders replaces the recorded unreadable folders with the ones a
// walk over the sources just met: a folder readable again drops out.
func (c *Copier) RecordFolders(ctx context.Context, unreadable []FileError) error {
	if err := c.init(); err != nil {
		return err
	}
	now := store.Now()
	return c.DB.Tx(ctx, func(tx *store.Tx) error {
		keep := map[string]bool{}
		for _, fe := range unreadable {
			keep[fe.Path] = true
			if _, err := tx.ExecContext(ctx, `INSERT INTO source_problems(machine, path, kind, problem, detail, failures, first_at, last_at)
				VALUES (?,?,'',?,?,1,?,?)
				ON CONFLICT(machine, path) DO UPDATE SET detail = excluded.detail, last_at = excluded.last_at,
					failures = source_problems.failures + 1`, c.Machine, fe.Path, ProblemUnreadableFolder, fe.Err, now, now); err != nil {
				return fmt.Errorf("record unreadable folder %s: %w", fe.Path, err)
			}
		}
		rows, err := tx.QueryContext(ctx, `SELECT path FROM source_problems WHERE problem = ? AND machine IN (?, '')`, ProblemUnreadableFolder, c.Machine)
		if err != nil {
			return fmt.Errorf("read unreadable folders: %w", err)
		}
		var gone []string
		for rows.Next() {
			var p string
			if err := rows.Scan(&p); err != nil {
				rows.Close()
				return fmt.Errorf("read unreadable folders: %w", err)
			}
			if !keep[p] {
				gone = append(gone, p)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read unreadable folders: %w", err)
		}
		for _, p := range gone {
			if _, err := tx.ExecContext(ctx, `DELETE FROM source_problems WHERE machine IN (?, '') AND path = ?`, c.Machine, p); err != nil {
				return fmt.Errorf("clear unreadable folder %s: %w", p, err)
			}
		}
		return nil
	})
}

// clearGone forgets the problems of files that no longer exist (a FIFO
// removed, a transcript deleted after its copy failed): nothing is left
// to read there.
func (c *Copier) clearGone(ctx context.Context) error {
	rows, err := c.DB.QueryContext(ctx, `SELECT path FROM source_problems WHERE problem <> ? AND machine IN (?, '')`, ProblemUnreadableFolder, c.Machine)
	if err != nil {
		return fmt.Errorf("list copy problems: %w", err)
	}
	var gone []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return fmt.Errorf("list copy problems: %w", err)
		}
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			gone = append(gone, p)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list copy problems: %w", err)
	}
	for _, p := range gone {
		if _, err := c.DB.ExecContext(ctx, `DELETE FROM source_problems WHERE machine IN (?, '') AND path = ?`, c.Machine, p); err != nil {
			return fmt.Errorf("clear copy problem of %s: %w", p, err)
		}
	}
	return nil
}

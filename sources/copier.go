// Package sources copies coding agents' JSONL transcripts into the D layer:
// it finds the files each configured source follows (Claude Code, Cursor,
// Codex CLI, Gemini CLI),
// maps every line to events with one shared function, scrubs secrets,
// and commits the events together with the file's read position so a
// crash can neither lose nor double a line. It also watches the source
// folders (fsnotify as a hint, a periodic scan as the truth).
//
// It does not schedule anything, own a socket or run extraction: the
// daemon and pipeline call Copier and Watcher.
package sources

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

// DefaultBatchLines bounds the lines committed in one transaction, so a
// huge file is copied in steps rather than one giant transaction.
const DefaultBatchLines = 1000

// MaxLineBytes is the longest line copied. Longer lines (a pasted 20 MB
// blob) are skipped, logged and counted as oversized_line.
const MaxLineBytes = 16 << 20

// Copier copies new complete transcript lines into the events table. It is
// safe for concurrent use; copies are serialised.
type Copier struct {
	DB        *store.DB
	Sources   []config.Source
	Redaction config.Redaction
	Log       *slog.Logger
	// Getenv reads the environment (HOME, CLAUDE_CONFIG_DIR); os.Getenv
	// when nil.
	Getenv func(string) string
	// BatchLines overrides DefaultBatchLines when positive.
	BatchLines int
	// Machine names the machine this copier runs on (store.MachineID).
	// Copy progress is keyed by machine and path, so copiers on two
	// machines following the same path into one store never share a
	// file's progress, and a new file's lines are stored under an identity
	// that names the machine. A row recorded before machines were told
	// apart (machine '') is taken over by the first copier that follows
	// its path. "" is the machine of a copier that was told none.
	Machine string

	once    sync.Once
	initErr error
	sel     *selector
	red     *Redactor
	mu      sync.Mutex

	// events and restarts add up what every call did (Stats).
	events, restarts atomic.Int64
}

// Stats is what one Copier did since it was built. A process copies
// through one Copier (the pipeline's), so Restarts counts only the passes
// another process's copier made it abandon.
type Stats struct {
	// Events is the number of events this Copier stored.
	Events int64 `json:"events"`
	// Restarts counts passes over a file abandoned and started again
	// because another copier stored part of the file meanwhile (the
	// compare-and-swap on its stored progress failed).
	Restarts int64 `json:"restarts"`
}

// Stats returns what the Copier stored and how often it had to start a
// file again, since it was built.
func (c *Copier) Stats() Stats {
	return Stats{Events: c.events.Load(), Restarts: c.restarts.Load()}
}

// Report says what a copy did. Every count is what happened in this call.
type Report struct {
	// Files is the number of transcript files examined.
	Files int `json:"files"`
	// Lines is the number of complete lines read.
	Lines int64 `json:"lines"`
	// Events is the number of events written.
	Events int64 `json:"events"`
	// Duplicates counts events already stored (or stored and pruned
	// since), met again when a shrunk or rewritten file was read from the
	// start.
	Duplicates int64 `json:"duplicates"`
	// Reread counts files read again from 0 because they shrank or their
	// start changed.
	Reread int `json:"reread"`
	// BadLines counts lines that could not be read (malformed JSON,
	// invalid UTF-8, oversized); they are also in Skipped by reason.
	BadLines int64 `json:"bad_lines"`
	// Skipped counts record and block types read but not stored.
	Skipped map[string]int64 `json:"skipped"`
	// Redacted counts secrets replaced, per kind.
	Redacted map[string]int64 `json:"redacted"`
	// Errors lists files that could not be copied; others still were.
	Errors []FileError `json:"errors"`
	// NotRegular counts files named like transcripts that are not regular
	// files (a FIFO, a socket, a device): skipped unopened. They are in
	// Errors too.
	NotRegular int `json:"not_regular"`
	// UnreadableFolders lists source folders that could not be listed:
	// transcripts in them are not followed until they can be.
	UnreadableFolders []FileError `json:"unreadable_folders"`
}

// FileError is a transcript file (or a source folder) that could not be
// read.
type FileError struct {
	Path string `json:"path"`
	Err  string `json:"error"`
	// Problem is what source_problems records it as (ProblemCopyFailed,
	// ProblemNotRegular, ProblemUnreadableFolder); Failures how many
	// copies of it failed in a row, which sets when it is tried again.
	Problem  string `json:"problem,omitempty"`
	Failures int    `json:"failures,omitempty"`
	err      error
}

// Error says which file and why.
func (e *FileError) Error() string { return "copy " + e.Path + ": " + e.Err }

// Unwrap returns the underlying error (os.ErrPermission, …).
func (e *FileError) Unwrap() error { return e.err }

func fileError(path string, err error) *FileError {
	return &FileError{Path: path, Err: err.Error(), err: err}
}

func newReport() Report {
	return Report{Skipped: map[string]int64{}, Redacted: map[string]int64{}, Errors: []FileError{}, UnreadableFolders: []FileError{}}
}

func (c *Copier) init() error {
	c.once.Do(func() {
		getenv := c.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		if c.Log == nil {
			c.Log = slog.Default()
		}
		if c.sel, c.initErr = newSelector(c.Sources, getenv); c.initErr != nil {
			return
		}
		c.red, c.initErr = NewRedactor(c.Redaction)
	})
	return c.initErr
}

// Files lists the transcript files the sources currently select.
func (c *Copier) Files(ctx context.Context) ([]string, error) {
	if err := c.init(); err != nil {
		return nil, err
	}
	sel, _ := c.sel.files()
	out := make([]string, len(sel))
	for i, s := range sel {
		out[i] = s.path
	}
	return out, ctx.Err()
}

// CopyAll copies the new complete lines of every selected file. A file
// that cannot be read is reported in Report.Errors and the rest are still
// copied, a folder that cannot be listed in Report.UnreadableFolders; both
// are recorded for stats. The error return is for the store failing or ctx
// ending.
func (c *Copier) CopyAll(ctx context.Context) (Report, error) {
	rep := newReport()
	if err := c.init(); err != nil {
		return rep, err
	}
	files, unreadable := c.sel.files()
	rep.UnreadableFolders = append(rep.UnreadableFolders, unreadable...)
	for _, fe := range unreadable {
		c.Log.Warn("source folder not readable; the transcripts in it are not followed", "folder", fe.Path, "err", fe.Err)
	}
	if err := c.RecordFolders(ctx, unreadable); err != nil {
		return rep, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if err := c.copyFile(ctx, f, &rep); err != nil {
			var fe *FileError
			if !errors.As(err, &fe) {
				return rep, err
			}
		}
	}
	if err := c.markMissing(ctx); err != nil {
		return rep, err
	}
	if err := c.clearGone(ctx); err != nil {
		return rep, err
	}
	return rep, nil
}

// CopyFile copies the new complete lines of one file, such as the
// transcript_path a hook names. A path outside every configured source is
// refused with an error wrapping ErrNotSelected.
func (c *Copier) CopyFile(ctx context.Context, path string) (Report, error) {
	rep := newReport()
	if err := c.init(); err != nil {
		return rep, err
	}
	sel, err := c.sel.match(path)
	if err != nil {
		return rep, fmt.Errorf("copy %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return rep, c.copyFile(ctx, sel, &rep)
}

// copyFile runs passes over one file until one completes without another
// writer moving its progress underneath.
func (c *Copier) copyFile(ctx context.Context, f selected, rep *Report) error {
	rep.Files++
	before := rep.Events
	defer func() { c.events.Add(rep.Events - before) }()
	var err error
	// errMoved means another copier stored part of this file meanwhile;
	// each retry starts from what it stored, so this ends.
	for attempt := 0; ; attempt++ {
		err = c.pass(ctx, f, rep)
		if !errors.Is(err, errMoved) {
			break
		}
		c.restarts.Add(1)
		if attempt == 100 {
			c.Log.Info("transcript is being copied by another process; leaving it to that one", "file", f.path)
			return nil
		}
	}
	var fe *FileError
	switch {
	case errors.As(err, &fe):
		fe.Problem = problemOf(err)
		fe.Failures = c.noteProblem(ctx, f.path, f.kind, fe.Problem, fe.Err)
		if fe.Problem == ProblemNotRegular {
			rep.NotRegular++
		}
		rep.Errors = append(rep.Errors, *fe)
		c.Log.Warn("transcript not copied", "file", f.path, "err", fe.Err, "failures", fe.Failures)
	case err == nil:
		return c.clearProblem(ctx, f.path)
	case ctx.Err() == nil:
		// The store failed (a full disk): the file is retried like one
		// that could not be read.
		c.noteProblem(ctx, f.path, f.kind, ProblemCopyFailed, err.Error())
	}
	return err
}

// markMissing flags progress rows whose file is gone. Their events stay;
// the file just drops out of what is followed.
func (c *Copier) markMissing(ctx context.Context) error {
	rows, err := c.DB.QueryContext(ctx, `SELECT path FROM source_files WHERE missing = 0 AND machine = ?`, c.Machine)
	if err != nil {
		return fmt.Errorf("list copied files: %w", err)
	}
	var gone []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return fmt.Errorf("list copied files: %w", err)
		}
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			gone = append(gone, p)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list copied files: %w", err)
	}
	sort.Strings(gone)
	for _, p := range gone {
		if _, err := c.DB.ExecContext(ctx, `UPDATE source_files SET missing = 1, updated_at = ? WHERE machine = ? AND path = ?`, store.Now(), c.Machine, p); err != nil {
			return fmt.Errorf("mark %s missing: %w", p, err)
		}
	}
	return nil
}

// progress is a file's row in source_files.
type progress struct {
	exists                     bool
	offset, lines, rereadUntil int64
	fingerprint                string
	// identity is what the file's dedupe keys were made from ("" in a row
	// written before identities were stored: the path's own); dev and ino
	// where it was read from (hasID false when unknown).
	identity string
	dev, ino int64
	hasID    bool
	// machine is the row's machine: the copier's own, or '' for a row
	// recorded before machines were told apart, which the copier takes
	// over when it next commits.
	machine string
}

// progressColumns is what readProgress scans, in order.
const progressColumns = `"offset", lines, fingerprint, reread_until, COALESCE(identity, ''), dev, ino, machine`

func (p *progress) scan(row interface{ Scan(...any) error }) error {
	var dev, ino sql.NullInt64
	if err := row.Scan(&p.offset, &p.lines, &p.fingerprint, &p.rereadUntil, &p.identity, &dev, &ino, &p.machine); err != nil {
		return err
	}
	p.exists = true
	p.dev, p.ino, p.hasID = dev.Int64, ino.Int64, dev.Valid && ino.Valid
	return nil
}

// readProgress reads the progress row of path on machine, or the row
// recorded there before machines were told apart when machine has none.
func readProgress(ctx context.Context, q store.Execer, machine, path string) (progress, error) {
	var p progress
	err := p.scan(q.QueryRowContext(ctx, `SELECT `+progressColumns+` FROM source_files
		WHERE path = ? AND machine IN (?, '') ORDER BY machine = '' LIMIT 1`, path, machine))
	if errors.Is(err, sql.ErrNoRows) {
		return progress{}, nil
	}
	if err != nil {
		return progress{}, fmt.Errorf("read progress of %s: %w", path, err)
	}
	return p, nil
}

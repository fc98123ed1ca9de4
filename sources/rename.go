package sources

import (
	"context"
	"fmt"
	"os"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/regfile"
)

// A transcript keeps its identity when it is renamed or rotated: a path
// with no progress row whose device and inode match the row of a path that
// is gone (or now names another file), and whose content matches that
// row's fingerprint, takes that row over. It continues at the stored
// offset, and its lines keep the dedupe identity they were stored under,
// so `mv r.jsonl r-rotated.jsonl` copies nothing twice.

// identify reads f's progress row, following the file across a rename,
// and sets f.identity to the identity its lines are stored under.
func (c *Copier) identify(ctx context.Context, f *selected, file *os.File, fi os.FileInfo) (progress, error) {
	pr, err := readProgress(ctx, c.DB, c.Machine, f.path)
	if err != nil {
		return pr, err
	}
	dev, ino, hasID := fileID(fi)
	if pr.exists && hasID && pr.hasID && (pr.dev != dev || pr.ino != ino) {
		// Another file now has this name: the one read before was rotated
		// away (or the file was rewritten by renaming a new one over it).
		// This name keeps its row (and is read again from the start if its
		// content changed); a copy of the row stays under a name no file
		// has, for the old file to continue from if it turns up elsewhere.
		if err := c.keepAside(ctx, f.path, pr); err != nil {
			return pr, err
		}
	}
	if !pr.exists && hasID {
		if pr, err = c.adopt(ctx, *f, file, dev, ino); err != nil {
			return pr, err
		}
	}
	if !pr.exists {
		// A new file: its lines are stored under its path's identity,
		// also when a file renamed away carries the same one (a rotated
		// log's successor): dedupe keys count identical lines, so the two
		// files' lines never take each other's place. The identity names
		// the machine, so another machine's file at the same path keeps
		// lines of its own even where the two are identical.
		if c.Machine != "" {
			f.identity = c.Machine + "/" + f.identity
		}
		return pr, nil
	}
	if pr.identity != "" {
		f.identity = pr.identity
	}
	if hasID && !pr.hasID {
		// A row from before inodes were kept: note this file's, so a later
		// rename is followed.
		if _, err := c.DB.ExecContext(ctx, `UPDATE source_files SET dev = ?, ino = ?, identity = COALESCE(identity, ?) WHERE machine = ? AND path = ? AND dev IS NULL`,
			dev, ino, f.identity, pr.machine, f.path); err != nil {
			return pr, fmt.Errorf("note identity of %s: %w", f.path, err)
		}
		return readProgress(ctx, c.DB, c.Machine, f.path)
	}
	return pr, nil
}

// keepAside copies the row of the file that had path before to a name no
// file has, marked missing, with its inode, identity and offset.
func (c *Copier) keepAside(ctx context.Context, path string, pr progress) error {
	identity := pr.identity
	if identity == "" {
		identity = c.identityOf(path)
	}
	aside := fmt.Sprintf("%s (renamed away; inode %d:%d)", path, pr.dev, pr.ino)
	_, err := c.DB.ExecContext(ctx, `INSERT INTO source_files(machine, path, kind, session_id, fingerprint, size, "offset", lines, missing, updated_at, reread_until, identity, dev, ino)
		SELECT ?, ?, kind, session_id, fingerprint, size, "offset", lines, 1, updated_at, reread_until, ?, dev, ino FROM source_files WHERE machine = ? AND path = ?
		ON CONFLICT(machine, path) DO UPDATE SET kind = excluded.kind, session_id = excluded.session_id, fingerprint = excluded.fingerprint,
			size = excluded.size, "offset" = excluded."offset", lines = excluded.lines, missing = excluded.missing, updated_at = excluded.updated_at,
			reread_until = excluded.reread_until, identity = excluded.identity, dev = excluded.dev, ino = excluded.ino`,
		c.Machine, aside, identity, pr.machine, path)
	if err != nil {
		return fmt.Errorf("keep progress of the file %s was before: %w", path, err)
	}
	return nil
}

// adopt looks for the row of the file f was before a rename and moves it
// to f.path. It returns the row as now stored, or exists false when f is
// a new file.
func (c *Copier) adopt(ctx context.Context, f selected, file *os.File, dev, ino int64) (progress, error) {
	var pr progress
	err := c.DB.Tx(ctx, func(tx *store.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT path FROM source_files WHERE dev = ? AND ino = ? AND path <> ? AND machine IN (?, '')
			GROUP BY path ORDER BY max(updated_at) DESC`, dev, ino, f.path, c.Machine)
		if err != nil {
			return fmt.Errorf("find %s under an earlier name: %w", f.path, err)
		}
		var olds []string
		for rows.Next() {
			var p string
			if err := rows.Scan(&p); err != nil {
				rows.Close()
				return fmt.Errorf("find %s under an earlier name: %w", f.path, err)
			}
			olds = append(olds, p)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("find %s under an earlier name: %w", f.path, err)
		}
		for _, old := range olds {
			if sameFileAt(old, dev, ino) {
				continue // a hard link: both names are the one file, each followed as it is
			}
			cand, err := readProgress(ctx, tx, c.Machine, old)
			if err != nil {
				return err
			}
			if !c.continues(file, cand) {
				continue // the inode was reused by another file
			}
			if cand.identity == "" {
				cand.identity = c.identityOf(old)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE source_files SET machine = ?, path = ?, identity = ?, missing = 0 WHERE machine = ? AND path = ?`,
				c.Machine, f.path, cand.identity, cand.machine, old); err != nil {
				return fmt.Errorf("follow %s renamed to %s: %w", old, f.path, err)
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM source_problems WHERE machine IN (?, '') AND path = ?`, c.Machine, old); err != nil {
				return fmt.Errorf("follow %s renamed to %s: %w", old, f.path, err)
			}
			c.Log.Info("transcript renamed; continuing where it was", "from", old, "to", f.path, "offset", cand.offset)
			cand.machine = c.Machine
			pr = cand
			return nil
		}
		return nil
	})
	return pr, err
}

// continues reports whether file holds what row pr read: at least its
// offset, with the same fingerprint there.
func (c *Copier) continues(file *os.File, pr progress) bool {
	fi, err := file.Stat()
	if err != nil || fi.Size() < pr.offset {
		return false
	}
	fp, err := fingerprint(file, pr.offset)
	return err == nil && fp == pr.fingerprint
}

// sameFileAt reports whether path exists and is the file (dev, ino).
func sameFileAt(path string, dev, ino int64) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	d, i, ok := fileID(fi)
	return ok && d == dev && i == ino
}

// identityOf is the dedupe identity a path had before identities were
// stored: the one its source gives it.
func (c *Copier) identityOf(path string) string {
	for _, src := range c.sel.srcs {
		if src.structural(path) {
			return src.selected(path).identity
		}
	}
	return "path:" + path
}

// fileID is the device and inode fi was read from, as the progress table
// stores them; ok is false where the platform has none.
func fileID(fi os.FileInfo) (dev, ino int64, ok bool) {
	d, i, ok := regfile.FileID(fi)
	return int64(d), int64(i), ok
}

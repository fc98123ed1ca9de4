package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/recollect/recollect/store/datadir"
)

// WALSuffix names SQLite's write-ahead log beside memory.db. Its frames
// are part of the database: whatever a WAL holds, every reader sees.
const WALSuffix = "-wal"

// A project store's WAL is vouched for by this machine's recollect alone.
// SQLite keeps one WAL file (one inode) from the first connection of a
// store to the last, which deletes it; a WAL left by a killed recollect is
// that same file. So each open and close of a project store records the
// file id of its WAL (RecordWAL) in the user's config directory, beside
// the approvals, and a later open refuses a WAL with frames whose file id
// is not the one recorded (CheckWAL): one that came with a git pull or a
// copy, built on the approved database, never gets replayed into it.

// walRecordPath is where the WAL file id of the store in dir is recorded:
// wal/<sha256 of memory.db's absolute path>, beside the approvals file.
func walRecordPath(dir string, getenv func(string) string) (db, record string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", fmt.Errorf("resolve %s: %w", dir, err)
	}
	approvals, err := ApprovalsPath(getenv)
	if err != nil {
		return "", "", err
	}
	db = filepath.Join(abs, datadir.StoreFile)
	sum := sha256.Sum256([]byte(db))
	return db, filepath.Join(filepath.Dir(approvals), "wal", hex.EncodeToString(sum[:16])), nil
}

// walFileID is the file id of db's WAL and whether the WAL holds frames
// (a WAL of its 32-byte header or less changes nothing); "" when there is
// none.
func walFileID(db string) (id string, frames bool, err error) {
	fi, err := os.Lstat(db + WALSuffix)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("check %s: %w", db+WALSuffix, err)
	}
	if !fi.Mode().IsRegular() {
		return "not a regular file", fi.Size() > 0, nil
	}
	id = fileID(fi)
	if id == "" {
		return "", false, errNoFileID
	}
	return id, fi.Size() > 32, nil
}

// errNoFileID is a platform without file ids (Windows builds of recollect
// read none yet): there the WAL is neither recorded nor checked.
var errNoFileID = errors.New("no file id on this platform")

// ForeignWALError refuses a project store's WAL this machine's recollect
// did not write.
type ForeignWALError struct{ Path string }

func (e *ForeignWALError) Error() string {
	return fmt.Sprintf("%s was not written by recollect on this machine (a WAL that came with a git pull or a copy would change what the store holds when it is opened); review and approve it with: recollect trust, or delete the file to drop what it holds", e.Path)
}

// CheckWAL refuses, with a *ForeignWALError, a WAL with frames beside the
// project store in dir whose file id is not the one recorded when
// recollect last opened or closed it. It is called before the store is
// opened: opening it would read the WAL. A store that is no trust
// subject (see Subject) is not checked.
func CheckWAL(dir string, getenv func(string) string) error {
	if !Subject(dir, getenv) {
		return nil
	}
	db, rec, err := walRecordPath(dir, getenv)
	if err != nil {
		return err
	}
	id, frames, err := walFileID(db)
	if errors.Is(err, errNoFileID) {
		return nil
	}
	if err != nil || !frames {
		return err
	}
	data, err := os.ReadFile(rec)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read %s: %w", rec, err)
	}
	if id == "" || strings.TrimSpace(string(data)) != id {
		return &ForeignWALError{Path: db + WALSuffix}
	}
	return nil
}

// RecordWAL records the file id of the WAL beside the project store in
// dir as recollect's own, or clears the record when there is no WAL (the
// last connection removed it): called after recollect opens the store,
// and after it closes it. A record cleared while another process made a
// new WAL is written again for that one.
func RecordWAL(dir string, getenv func(string) string) error {
	if !Subject(dir, getenv) {
		return nil
	}
	db, rec, err := walRecordPath(dir, getenv)
	if err != nil {
		return err
	}
	for range 2 {
		id, _, err := walFileID(db)
		if errors.Is(err, errNoFileID) {
			return nil
		}
		if err != nil {
			return err
		}
		if id != "" {
			return writeWALRecord(rec, id)
		}
		if err := os.Remove(rec); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("clear %s: %w", rec, err)
		}
		// Look again: a process that opened the store meanwhile made a
		// WAL and may have recorded it before the removal.
	}
	return nil
}

// writeWALRecord replaces the record at path with id, atomically.
func writeWALRecord(path, id string) error {
	if data, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(data)) == id {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("record WAL: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".wal-*")
	if err != nil {
		return fmt.Errorf("record WAL: %w", err)
	}
	_, err = tmp.WriteString(id + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("record WAL %s: %w", path, err)
	}
	return nil
}

//go:build cgo

package sqlite

/*
// What recollect asks of the SQLite library itself, beside the driver:
// github.com/mattn/go-sqlite3 compiles SQLite into the binary, and these
// are its functions, declared here as sqlite3.h does.
#include <stdlib.h>

typedef struct sqlite3 sqlite3;
int sqlite3_config(int, ...);
int sqlite3_status(int, int*, int*, int);
int sqlite3_open_v2(const char*, sqlite3**, int, const char*);
int sqlite3_close_v2(sqlite3*);
int sqlite3_busy_timeout(sqlite3*, int);
int sqlite3_exec(sqlite3*, const char*, int (*)(void*, int, char**, char**), void*, char**);
const char *sqlite3_errmsg(sqlite3*);
typedef struct sqlite3_stmt sqlite3_stmt;
int sqlite3_prepare_v2(sqlite3*, const char*, int, sqlite3_stmt**, const char**);
int sqlite3_step(sqlite3_stmt*);
long long sqlite3_column_int64(sqlite3_stmt*, int);
int sqlite3_finalize(sqlite3_stmt*);

// recollect_data_version runs PRAGMA data_version on db into *out; it
// returns SQLite's result code (0 on success).
static int recollect_data_version(sqlite3 *db, long long *out) {
	sqlite3_stmt *stmt = 0;
	int rc = sqlite3_prepare_v2(db, "PRAGMA data_version", -1, &stmt, 0);
	if (rc != 0) {
		return rc;
	}
	rc = sqlite3_step(stmt);
	if (rc == 100) { // SQLITE_ROW
		*out = sqlite3_column_int64(stmt, 0);
		rc = 0;
	}
	sqlite3_finalize(stmt);
	return rc;
}

// sqlite3_config is variadic, which cgo cannot call: the one option
// (SQLITE_CONFIG_MEMSTATUS is 9) goes through this wrapper.
static int recollect_memstatus_off(void) { return sqlite3_config(9, 0); }

// recollect_memory_counted is the bytes SQLite counts as allocated now
// (SQLITE_STATUS_MEMORY_USED is 0): always 0 while statistics are off.
static int recollect_memory_counted(void) {
	int now = 0, high = 0;
	sqlite3_status(0, &now, &high, 0);
	return now;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/mattn/go-sqlite3" // SQLite itself
)

// init turns off SQLite's allocation statistics before the library
// starts. With them on (the driver's default build), every allocation of
// every connection takes one process-wide mutex to keep the counters; a
// search's arms run side by side on connections of their own, each
// parsing the schema when it opens and building its statements, so a new
// handle's first search would spend much of its time waiting on that
// mutex. Nothing in recollect
// reads the statistics. SQLite refuses the call once it has started
// (SQLITE_MISUSE), which can only mean a database was opened before this
// package's init: the setting then stays as it was, which changes speed,
// never behaviour.
func init() { C.recollect_memstatus_off() }

// allocationsCounted reports whether SQLite keeps allocation statistics:
// with a database open, it counts the memory the connection holds.
func allocationsCounted() bool { return C.recollect_memory_counted() != 0 }

// sqliteOpenReadWrite is SQLITE_OPEN_READWRITE.
const sqliteOpenReadWrite = 0x2

// pin is a connection of SQLite's own, outside database/sql's pool, kept
// open for a handle's life so that SQLite never deletes the WAL while this
// process runs (see fileWatch). It runs one statement, PRAGMA
// user_version, which reads the file's header but not its schema: a
// connection of the driver's parses the whole schema when it opens (the
// driver sets PRAGMA synchronous, which needs it), and a pooled
// connection held as the pin would be one the first search has to open
// again.
type pin struct{ db *C.sqlite3 }

// openPin opens path (a plain file name, not a URI) read-write and reads
// the header, which opens the WAL and its index on the connection. busyMS
// is how long the read waits on a writer's recovery lock.
func openPin(path string, busyMS int) (*pin, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	p := &pin{}
	if rc := C.sqlite3_open_v2(cpath, &p.db, sqliteOpenReadWrite, nil); rc != 0 {
		err := p.err(rc)
		p.close()
		return nil, err
	}
	C.sqlite3_busy_timeout(p.db, C.int(busyMS))
	csql := C.CString("PRAGMA user_version")
	defer C.free(unsafe.Pointer(csql))
	if rc := C.sqlite3_exec(p.db, csql, nil, nil, nil); rc != 0 {
		err := p.err(rc)
		p.close()
		return nil, err
	}
	return p, nil
}

// err is SQLite's message for a failed call on the pin.
func (p *pin) err(rc C.int) error {
	if p.db == nil {
		return fmt.Errorf("sqlite error %d", int(rc))
	}
	return errors.New(C.GoString(C.sqlite3_errmsg(p.db)))
}

// dataVersion is PRAGMA data_version on the pin: a number that changes
// whenever another connection — of this process's pool or of another
// process — commits to the database. The pin itself never writes.
func (p *pin) dataVersion() (int64, error) {
	var v C.longlong
	if rc := C.recollect_data_version(p.db, &v); rc != 0 {
		return 0, p.err(rc)
	}
	return int64(v), nil
}

// close closes the connection; the last connection of the store to close
// checkpoints the WAL and removes it, as a pooled one would.
func (p *pin) close() error {
	if p == nil || p.db == nil {
		return nil
	}
	rc := C.sqlite3_close_v2(p.db)
	if rc != 0 {
		return fmt.Errorf("sqlite error %d", int(rc))
	}
	p.db = nil
	return nil
}

// busy reports whether err is SQLite's "database is busy" or "locked".
func busy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

//go:build cgo

package store

/*
// What recollect asks of the SQLite library itself, beside the driver:
// github.com/mattn/go-sqlite3 compiles SQLite into the binary, and these
// are its functions, declared here as sqlite3.h does.
int sqlite3_config(int, ...);
int sqlite3_status(int, int*, int*, int);

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

import _ "github.com/mattn/go-sqlite3" // SQLite itself

// init turns off SQLite's allocation statistics before the library
// starts. With them on (the driver's default build), every allocation of
// every connection takes one process-wide mutex to keep the counters; a
// search's arms run side by side on connections of their own, each
// parsing the schema when it opens and building its statements, and a
// new handle's first search spent about a third of its time on that
// mutex (1k facts: 4.4 ms against 2.7 ms without). Nothing in recollect
// reads the statistics. SQLite refuses the call once it has started
// (SQLITE_MISUSE), which can only mean a database was opened before this
// package's init: the setting then stays as it was, which changes speed,
// never behaviour.
func init() { C.recollect_memstatus_off() }

// allocationsCounted reports whether SQLite keeps allocation statistics:
// with a database open, it counts the memory the connection holds.
func allocationsCounted() bool { return C.recollect_memory_counted() != 0 }

//go:build unix

package integrate

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// pidGone reports whether no process has pid.
func pidGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// processStart is pid's start time in clock ticks since boot, from
// /proc/<pid>/stat ("" where there is no /proc).
func processStart(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces;
	// fields after it are plain. starttime is field 22.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

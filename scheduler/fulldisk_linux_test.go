//go:build linux

package scheduler_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/fixtures/testdisk"
	"github.com/recollect/recollect/store/storetest"
)

// A copy that failed on a full disk is tried again once space is back,
// although the transcript did not change meanwhile (the rescan skipped
// files whose size and time were unchanged).
func TestDaemonRetriesCopyAfterFullDisk(t *testing.T) {
	bin := testbin.Binary(t)
	disk := testdisk.Mount(t, "8m")
	root := t.TempDir()
	data, home, cwd := filepath.Join(disk, "data"), filepath.Join(root, "claude"), "/home/a/app"
	folder := copyStore(t, data, home, cwd)
	transcript := filepath.Join(folder, "s1.jsonl")
	appendTo(t, transcript, userLine("s1", cwd, "u0", "written before the disk filled"))
	d := startDaemon(t, bin, data)
	db := storetest.OpenDir(t, data)
	storetest.Eventually(t, "the first line", func() bool { return countContent(t, db, "written before the disk filled") == 1 })
	filler := testdisk.Fill(t, disk)
	big := strings.Repeat("a long line about the deploy window ", 4000)
	appendTo(t, transcript, userLine("s1", cwd, "u1", "written on a full disk "+big))
	storetest.Eventually(t, "a copy error", func() bool { st, err := status(data); return err == nil && st.CopyErrors > 0 })
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	stored := func() int {
		return storetest.Count(t, db, `SELECT count(*) FROM session_events WHERE content LIKE 'written on a full disk %'`)
	}
	storetest.Eventually(t, "the line that failed on a full disk to be copied once space is free", func() bool { return stored() > 0 })
	stopDaemon(t, d)
}

//go:build unix

package integrate_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// envClaimAndDie makes the test binary claim the pending facts of the
// store in that directory and SIGKILL itself, like a daemon killed during
// integrate.
const envClaimAndDie = "RECOLLECT_TEST_CLAIM_AND_DIE"

func TestClaimAndDie(t *testing.T) {
	dir := os.Getenv(envClaimAndDie)
	if dir == "" {
		t.Skip("helper process of TestClaimOfDeadProcessIsTakenOver")
	}
	db := storetest.OpenDir(t, dir)
	if _, _, err := newIntegrator(db, time.Now()).Claim(context.Background()); err != nil {
		t.Fatal(err)
	}
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
}

// A claim held by a process that is gone (kill -9 during integrate) is
// taken over by the next run, not left pending for the hour-long lease;
// a claim whose holder still runs is left alone. SQLite only: the helper
// process finds the store by the data directory alone, and a PostgreSQL
// store would need its server URL and schema handed over too. The claim
// token and its takeover are the same Go code on both engines.
func TestClaimOfDeadProcessIsTakenOver(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db := storetest.OpenDir(t, dir)
	for _, s := range []string{"I work at Initech", "My sister lives in Lisbon", "We deploy on Fridays"} {
		say(t, db, statement{text: s, day: 1})
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestClaimAndDie$", "-test.count=1")
	cmd.Env = append(os.Environ(), envClaimAndDie+"="+dir)
	out, err := cmd.CombinedOutput()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("helper did not die by SIGKILL: %v\n%s", err, out)
	}
	var token string
	if err := db.QueryRowContext(context.Background(), `SELECT claim_token FROM session_facts WHERE status = 'claimed' LIMIT 1`).Scan(&token); err != nil {
		t.Fatalf("the killed process left no claim: %v", err)
	}
	c, err := integrate.ParseClaim(token)
	if err != nil || c.PID != cmd.Process.Pid || c.Alive() || !strings.Contains(c.String(), "pid ") {
		t.Fatalf("claim %q reads as %+v (%v), alive %v; want the dead helper's pid %d", token, c, err, c.Alive(), cmd.Process.Pid)
	}
	// A live holder (this process) keeps its claim.
	live := say(t, db, statement{text: "The office moved to Porto", day: 2})
	liveToken := store.FormatTime(time.Now()) + "/live/" + mustHost(t) + "/" + itoa(os.Getpid()) + "/" + selfStart(t)
	if _, err := db.ExecContext(context.Background(), `UPDATE session_facts SET status = 'claimed', claim_token = ? WHERE id = ?`, liveToken, live); err != nil {
		t.Fatal(err)
	}
	rep := run(t, newIntegrator(db, time.Now()))
	if rep.Claimed != 3 {
		t.Fatalf("the next run claimed %d facts, want the dead process's 3", rep.Claimed)
	}
	if n := storetest.Count(t, db, `SELECT count(*) FROM session_facts WHERE status = 'claimed'`); n != 1 {
		t.Fatalf("%d facts still claimed, want only the live holder's one", n)
	}
}

func mustHost(t *testing.T) string {
	t.Helper()
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func itoa(n int) string { return strconv.Itoa(n) }

// selfStart is this process's start time as /proc has it.
func selfStart(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return f[19]
}

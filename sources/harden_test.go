package sources

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/recollect/recollect/store/storetest"
)

// copyWithin runs CopyAll, failing the test if it has not returned within
// a minute (a hang, not a speed check).
func copyWithin(t *testing.T, c *Copier) Report {
	t.Helper()
	type result struct {
		rep Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := c.CopyAll(context.Background())
		done <- result{rep, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("CopyAll: %v", r.err)
		}
		return r.rep
	case <-time.After(time.Minute):
		t.Fatal("CopyAll hung")
		return Report{}
	}
}

// numbered writes n distinct user lines.
func numbered(session, cwd, prefix string, from, n int) []byte {
	var b bytes.Buffer
	for i := from; i < from+n; i++ {
		b.Write(userLine(session, cwd, fmt.Sprintf("%s line %d", prefix, i)))
	}
	return b.Bytes()
}

func TestRenamedTranscriptContinuesWhereItWas(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	src, dir := claudeHome(t, "/w/p")
	r := filepath.Join(dir, "r.jsonl")
	writeFile(t, r, numbered("s1", "/w/p", "r", 0, 300))
	c, _ := newCopier(t, db, src)
	if rep := copyWithin(t, c); rep.Events != 300 {
		t.Fatalf("first copy: %d events, want 300", rep.Events)
	}
	moved := filepath.Join(dir, "r-rotated.jsonl")
	if err := os.Rename(r, moved); err != nil {
		t.Fatal(err)
	}
	if rep := copyWithin(t, c); rep.Events != 0 {
		t.Fatalf("after mv: copied %d more events, want 0", rep.Events)
	}
	appendFile(t, moved, numbered("s1", "/w/p", "r", 300, 10))
	copyWithin(t, c)
	if n := eventCount(t, db, ""); n != 310 {
		t.Fatalf("after mv and 10 more lines: %d events stored, want 310", n)
	}
}

func TestRotatedTranscriptAndItsSuccessor(t *testing.T) {
	for _, successorFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("successor_first=%v", successorFirst), func(t *testing.T) {
			db := storetest.Open(t, "sqlite")
			src, dir := claudeHome(t, "/w/p")
			r := filepath.Join(dir, "r.jsonl")
			writeFile(t, r, numbered("s1", "/w/p", "old", 0, 300))
			c, _ := newCopier(t, db, src)
			copyWithin(t, c)
			rotated := filepath.Join(dir, "r-rotated.jsonl")
			if err := os.Rename(r, rotated); err != nil {
				t.Fatal(err)
			}
			writeFile(t, r, numbered("s1", "/w/p", "new", 0, 5))
			appendFile(t, rotated, numbered("s1", "/w/p", "old", 300, 3))
			if successorFirst {
				// The hook names the new file before any scan sees the rotation.
				if _, err := c.CopyFile(context.Background(), r); err != nil {
					t.Fatal(err)
				}
			}
			copyWithin(t, c)
			copyWithin(t, c)
			if n := eventCount(t, db, ""); n != 308 {
				t.Fatalf("after rotation: %d events stored, want 300 + 3 + 5 = 308", n)
			}
		})
	}
}

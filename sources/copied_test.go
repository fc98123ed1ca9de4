package sources

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// A transcript copied beside itself (cp a.jsonl b.jsonl), or a resumed
// session's file that restates the old one's lines, adds only the lines
// that are new: a line already stored for its session, by its own id, is
// not stored again from another file. Lines the copy adds are stored.
func TestCopiedTranscriptDoesNotDouble(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		src, dir := claudeHome(t, "/w/app")
		var body []byte
		for _, s := range []string{"We deploy with make ship.", "The staging port is 4001.", "yes", "Tests run with make check."} {
			body = append(body, userLine("s1", "/w/app", s)...)
		}
		a := filepath.Join(dir, "a.jsonl")
		writeFile(t, a, body)
		c, _ := newCopier(t, db, src)
		copyAll(t, c)
		var n int
		if err := db.QueryRowContext(context.Background(), `SELECT count(*) FROM session_events`).Scan(&n); err != nil || n != 4 {
			t.Fatalf("%d events from 4 lines (%v)", n, err)
		}
		data, err := os.ReadFile(a)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "b.jsonl"), append(data, userLine("s1", "/w/app", "The copy has one new line.")...))
		rep := copyAll(t, c)
		if err := db.QueryRowContext(context.Background(), `SELECT count(*) FROM session_events`).Scan(&n); err != nil || n != 5 {
			t.Fatalf("%d events after copying the file beside itself, want 5 (the 4 once and the new line); report %+v (%v)", n, rep, err)
		}
	})
}

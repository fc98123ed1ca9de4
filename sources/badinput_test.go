package sources

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// Every kind of bad line is logged with file and line, skipped, counted,
// and the good lines after it are still copied.
func TestBadLinesAreSkippedCountedAndLogged(t *testing.T) {
	huge := append([]byte(`{"type":"user","message":{"content":"`), bytes.Repeat([]byte("x"), 20<<20)...)
	huge = append(huge, []byte(`"}}`)...)
	garbage := []byte{0x00, 0xff, 0x13, 0x37, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01}
	for _, tc := range []struct {
		name   string
		bad    []byte
		reason string
	}{
		{"malformed JSON", []byte(`{"type":"user","message":{"content":"cut off`), "malformed_json"},
		{"invalid UTF-8", []byte("{\"type\":\"user\",\"message\":{\"content\":\"caf\xe9\"}}"), "invalid_utf8"},
		{"20 MB line", huge, "oversized_line"},
		{"binary garbage", garbage, "invalid_utf8"},
		{"JSON that is not an object", []byte(`[1,2,3]`), "malformed_json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := storetest.Open(t, "sqlite")
			src, dir := claudeHome(t, "/w/app")
			path := filepath.Join(dir, "s.jsonl")
			var body []byte
			body = append(body, userLine("s", "/w/app", "before")...)
			body = append(body, tc.bad...)
			body = append(body, '\n')
			body = append(body, userLine("s", "/w/app", "after")...)
			writeFile(t, path, body)
			c, logs := newCopier(t, db, src)
			rep := copyAll(t, c)
			if got := strings.Join(contents(t, db, path), ","); got != "before,after" {
				t.Errorf("stored %q, want before,after", got)
			}
			if rep.BadLines != 1 || rep.Skipped[tc.reason] != 1 {
				t.Errorf("report bad %d skipped %v; want 1 %s", rep.BadLines, rep.Skipped, tc.reason)
			}
			if got := storetest.Skipped(t, db, ClaudeCode)[tc.reason]; got != 1 {
				t.Errorf("skipped_records[%s] = %d, want 1", tc.reason, got)
			}
			l := logs.String()
			if !strings.Contains(l, "skipped a bad transcript line") || !strings.Contains(l, "file="+path) ||
				!strings.Contains(l, "line=2") || !strings.Contains(l, "reason="+tc.reason) {
				t.Errorf("log does not name file, line and reason:\n%s", l)
			}
		})
	}
}

func TestUnreadableFileDoesNotStopOthers(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	src, dir := claudeHome(t, "/w/app")
	bad := filepath.Join(dir, "a-unreadable.jsonl")
	if os.Geteuid() == 0 {
		// root reads any mode; a dangling link is unreadable for everyone.
		if err := os.Symlink(filepath.Join(dir, "nowhere"), bad); err != nil {
			t.Fatal(err)
		}
	} else {
		writeFile(t, bad, userLine("a", "/w/app", "secret"))
		if err := os.Chmod(bad, 0); err != nil {
			t.Fatal(err)
		}
	}
	good := filepath.Join(dir, "b-good.jsonl")
	writeFile(t, good, userLine("b", "/w/app", "fine"))
	c, logs := newCopier(t, db, src)
	rep := copyAll(t, c)
	if rep.Events != 1 || eventCount(t, db, good) != 1 {
		t.Errorf("good file not copied: %+v", rep)
	}
	if len(rep.Errors) != 1 || rep.Errors[0].Path != bad {
		t.Fatalf("errors %+v, want one naming %s", rep.Errors, bad)
	}
	if !strings.Contains(logs.String(), "transcript not copied") || !strings.Contains(logs.String(), bad) {
		t.Errorf("log does not name the unreadable file:\n%s", logs)
	}
	if _, err := c.CopyFile(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "copy "+bad) {
		t.Errorf("CopyFile on unreadable file: %v", err)
	}
}

func TestSourceFolderThatDoesNotExistYet(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	home := filepath.Join(t.TempDir(), "not", "yet")
	c, _ := newCopier(t, db, config.Source{Kind: ClaudeCode, Home: home}, config.Source{Kind: Cursor, Home: home})
	rep := copyAll(t, c)
	if rep.Files != 0 || len(rep.Errors) != 0 {
		t.Fatalf("missing home: %+v; want nothing to do and no error", rep)
	}
	path := filepath.Join(home, "projects", "-w-app", "s.jsonl")
	writeFile(t, path, userLine("s", "/w/app", "later"))
	if rep := copyAll(t, c); rep.Events != 1 {
		t.Errorf("after the folder appeared: %d events, want 1", rep.Events)
	}
}

package sources

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/recollect/recollect/store"
)

// BenchmarkCopyVsRawInsert compares the copier (read, parse, map, redact,
// dedupe, progress) with the floor: the same events inserted by one
// prepared statement in transactions of 1000, into a store with the same
// schema and FTS triggers. Both run in this process on the same machine;
// the figure that matters is copy/raw (1.0 = as fast as raw inserts).
//
//	go test -tags sqlite_fts5 ./sources -run '^$' -bench CopyVsRaw -benchtime 3x
func BenchmarkCopyVsRawInsert(b *testing.B) {
	for _, tc := range []struct {
		name string
		data func(b *testing.B) []byte
	}{
		{"spotter-2.7MB", func(b *testing.B) []byte {
			data, err := os.ReadFile(filepath.Join(fixtureRoot, "claude-code/spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl"))
			if err != nil {
				b.Fatal(err)
			}
			return data
		}},
		{"synthetic-5k-lines", func(b *testing.B) []byte {
			var buf bytes.Buffer
			for i := range 5000 {
				buf.Write(userLine("bench", "/w/app", fmt.Sprintf("message %d: we decided to keep the retry budget at three attempts and log every failure with its file and line", i)))
			}
			return buf.Bytes()
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			data := tc.data(b)
			var copyDur, rawDur time.Duration
			var events int64
			for range b.N {
				d, n := benchCopy(b, data)
				copyDur += d
				events = n
				rawDur += benchRaw(b, data)
			}
			copyRate := float64(events) * float64(b.N) / copyDur.Seconds()
			rawRate := float64(events) * float64(b.N) / rawDur.Seconds()
			b.ReportMetric(copyRate, "copy-events/s")
			b.ReportMetric(rawRate, "raw-events/s")
			b.ReportMetric(copyRate/rawRate, "copy/raw")
		})
	}
}

func benchCopy(b *testing.B, data []byte) (time.Duration, int64) {
	b.Helper()
	db := openDB(b)
	src, dir := claudeHome(b, "/w/app")
	writeFile(b, filepath.Join(dir, "s.jsonl"), data)
	c, _ := newCopier(b, db, src)
	start := time.Now()
	rep := copyAll(b, c)
	return time.Since(start), rep.Events
}

// benchRaw maps the lines outside the clock, then times only the inserts.
func benchRaw(b *testing.B, data []byte) time.Duration {
	b.Helper()
	var evs []store.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), MaxLineBytes)
	for sc.Scan() {
		m, err := Map(ClaudeCode, "raw.jsonl", sc.Bytes())
		if err == nil {
			evs = append(evs, m.Events...)
		}
	}
	db := openDB(b)
	ctx := context.Background()
	now := store.Now()
	start := time.Now()
	for i := 0; i < len(evs); i += DefaultBatchLines {
		batch := evs[i:min(i+DefaultBatchLines, len(evs))]
		err := db.Tx(ctx, func(tx *sql.Tx) error {
			if err := store.TouchSession(ctx, tx, batch[0].SessionID, ClaudeCode, "", "", time.Now()); err != nil {
				return err
			}
			st, err := tx.PrepareContext(ctx, insertEventSQL)
			if err != nil {
				return err
			}
			defer st.Close()
			for j, ev := range batch {
				off := int64(i + j)
				if _, err := st.ExecContext(ctx, ev.SessionID, ev.Source, ev.SourceFile, off, ev.Role, nil, ev.EventType,
					ev.ContentType, ev.Content, nullStr(ev.ContentRef), nullStr(string(ev.Metadata)), nil, now, fmt.Sprint(i+j)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

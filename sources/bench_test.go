//go:build unix

package sources

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// BenchmarkCopyVsRawInsert compares the copier (read, parse, map, redact,
// dedupe, progress) with the floor: the same events inserted by one
// prepared statement in transactions of 1000, into a store with the same
// schema and FTS triggers. Both run in this process on the same machine;
// the figure that matters is copy/raw (1.0 = as fast as raw inserts). On
// a shared, loaded machine wall time swings, so the ratio is also given in
// process CPU time (cpu-copy/raw), which the other tenants do not move.
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
			var copyDur, rawDur, copyCPU, rawCPU time.Duration
			var events int64
			for range b.N {
				c0 := cpuTime(b)
				d, n := benchCopy(b, data)
				c1 := cpuTime(b)
				copyDur += d
				events = n
				rawDur += benchRaw(b, data, &rawCPU)
				copyCPU += c1 - c0
			}
			copyRate := float64(events) * float64(b.N) / copyDur.Seconds()
			rawRate := float64(events) * float64(b.N) / rawDur.Seconds()
			b.ReportMetric(copyRate, "copy-events/s")
			b.ReportMetric(rawRate, "raw-events/s")
			b.ReportMetric(copyRate/rawRate, "copy/raw")
			b.ReportMetric(rawCPU.Seconds()/copyCPU.Seconds(), "cpu-copy/raw")
		})
	}
}

func benchCopy(b *testing.B, data []byte) (time.Duration, int64) {
	b.Helper()
	db := storetest.Open(b, "sqlite")
	src, dir := claudeHome(b, "/w/app")
	writeFile(b, filepath.Join(dir, "s.jsonl"), data)
	c, _ := newCopier(b, db, src)
	start := time.Now()
	rep := copyAll(b, c)
	return time.Since(start), rep.Events
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchRaw maps the lines outside the clock, then times only the inserts,
// adding their CPU time to cpu.
func benchRaw(b *testing.B, data []byte, cpu *time.Duration) time.Duration {
	b.Helper()
	// The same rows the copier writes, dedupe keys included.
	var evs []store.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), MaxLineBytes)
	for sc.Scan() {
		m, err := Map(ClaudeCode, "/raw/s.jsonl", sc.Bytes())
		if err != nil {
			continue
		}
		digest := sha256.Sum256(sc.Bytes())
		for i := range m.Events {
			m.Events[i].DedupeKey = dedupeKey("/raw/s.jsonl", digest, 0, i)
		}
		evs = append(evs, m.Events...)
	}
	db := storetest.Open(b, "sqlite")
	ctx := context.Background()
	now := store.Now()
	c0 := cpuTime(b)
	defer func() { *cpu += cpuTime(b) - c0 }()
	start := time.Now()
	for i := 0; i < len(evs); i += DefaultBatchLines {
		batch := evs[i:min(i+DefaultBatchLines, len(evs))]
		err := db.Tx(ctx, func(tx *store.Tx) error {
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
					ev.ContentType, ev.Content, nullStr(ev.ContentRef), nullStr(string(ev.Metadata)), nil, now, ev.DedupeKey); err != nil {
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

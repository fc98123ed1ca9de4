package pipeline

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkPruneReport times the reachability report over a store of
// 20,000 events (1 KB tool outputs with a user statement every 50 events)
// against a baseline that only reads the same rows' sizes, in the same
// process, and reports the ratio. Run:
//
//	go test -tags sqlite_fts5 -run '^$' -bench PruneReport ./pipeline
func BenchmarkPruneReport(b *testing.B) {
	ctx := context.Background()
	p := openTest(b)
	for s := 0; s < 20; s++ {
		session := fmt.Sprintf("s%02d", s)
		for k := 0; k < 20; k++ {
			say(b, p, session, fmt.Sprintf("The service number %d in batch %d listens on port %d.", s, k, 8000+s*20+k))
			toolOutput(b, p, session, 49, 1000)
		}
	}
	consolidate(b, p)
	baseline := func() int {
		n := 0
		rows, err := p.db.QueryContext(ctx, `SELECT seq, length(CAST(content AS BLOB)) FROM session_events ORDER BY seq`)
		if err != nil {
			b.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var seq, size int64
			if err := rows.Scan(&seq, &size); err != nil {
				b.Fatal(err)
			}
			n++
		}
		return n
	}
	var rep PruneReport
	var inPrune, inBase time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		var err error
		if rep, err = p.Prune(ctx, PruneOptions{}); err != nil {
			b.Fatal(err)
		}
		inPrune += time.Since(start)
		start = time.Now()
		baseline()
		inBase += time.Since(start)
	}
	b.StopTimer()
	b.ReportMetric(float64(rep.Events), "reclaimable")
	b.ReportMetric(float64(inPrune)/float64(inBase), "x_plain_scan")
}

package notifybench_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/scheduler/notifybench"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// TestMeasure runs the measurement end to end with the minimum number of
// runs and checks every column has real figures (or says why not).
func TestMeasure(t *testing.T) {
	bin := testbin.Binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := notifybench.Measure(ctx, notifybench.Options{Binary: bin, Runs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Columns) != 5 {
		t.Fatalf("columns %+v", res.Columns)
	}
	for _, c := range res.Columns {
		switch {
		case c.Runs == 2 && c.Median > 0 && c.Min <= c.Median && c.Median <= c.P90:
		case c.Runs == 0 && strings.Contains(c.Skipped, "not found on PATH"):
		default:
			t.Errorf("column %+v", c)
		}
	}
	if res.Columns[0].Name != notifybench.HookColumn || res.Columns[0].Runs != 2 {
		t.Errorf("the hook's command was not timed: %+v", res.Columns[0])
	}
	if !strings.Contains(res.String(), "recollect notify compaction") || !strings.Contains(res.String(), "recollect-notify compaction") {
		t.Errorf("table:\n%s", res)
	}
}

// BenchmarkNotify reports the median wall time of each column (ms) and
// notify's ratios to node and true. Run it with
//
//	go test -tags sqlite_fts5 -run '^$' -bench Notify -benchtime 1x ./scheduler/notifybench
//
// Each call measures 30 interleaved rounds; b.N only repeats that.
func BenchmarkNotify(b *testing.B) {
	bin := testbin.Binary(b)
	for range b.N {
		res, err := notifybench.Measure(context.Background(), notifybench.Options{Binary: bin, Runs: notifybench.MinRuns})
		if err != nil {
			b.Fatal(err)
		}
		b.Log("\n" + res.String())
		med := map[string]float64{}
		for _, c := range res.Columns {
			if c.Runs > 0 {
				med[c.Name] = float64(c.Median) / float64(time.Millisecond)
			}
		}
		b.ReportMetric(med[notifybench.HookColumn], "hook-ms")
		b.ReportMetric(med[notifybench.FullColumn], "notify-ms")
		b.ReportMetric(med["true"], "true-ms")
		if n, ok := med["node -e 0"]; ok {
			b.ReportMetric(n, "node-ms")
			b.ReportMetric(med[notifybench.HookColumn]/n, "hook/node")
			b.ReportMetric(med[notifybench.FullColumn]/n, "notify/node")
		}
	}
}

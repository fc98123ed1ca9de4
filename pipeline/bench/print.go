package bench

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// PrintLocomo writes the report as a plain-text table.
func PrintLocomo(w io.Writer, r LocomoReport) {
	fmt.Fprintf(w, "LoCoMo retrieval — %d conversations, %d turns (%d facts), %d questions of categories 1-4\n",
		r.Conversations, r.Turns, r.Facts, r.Questions)
	fmt.Fprintf(w, "ingest: %s total, %s per turn (events + facts + integrate)\n",
		r.Ingest.Round(time.Millisecond), perItem(r.Ingest, r.Turns))
	fmt.Fprintf(w, "%-18s %-8s %5s %9s %9s %7s %10s %10s\n", "system", "category", "n", "recall@5", "recall@10", "MRR", "p50", "p95")
	for _, s := range r.Systems {
		row := func(cat string, sc Score, lat string) {
			fmt.Fprintf(w, "%-18s %-8s %5d %9.3f %9.3f %7.3f %s\n", s.Name, cat, sc.N, sc.RecallAt5, sc.RecallAt10, sc.MRR, lat)
		}
		row("all", s.Overall, fmt.Sprintf("%10s %10s", fmtDur(s.Latency.P50), fmtDur(s.Latency.P95)))
		for cat := 1; cat <= 4; cat++ {
			if sc, ok := s.ByCategory[cat]; ok {
				row(fmt.Sprintf("%d %s", cat, categoryName(cat)), sc, "")
			}
		}
	}
	c := r.Cleaning
	fmt.Fprintf(w, "evidence cleaning: %d multi-id strings split, %d ids repaired, %d junk, %d ids naming no turn dropped, %d questions without evidence not scored; %d turns repeated a turn of their session word for word\n",
		c.Split, c.Repaired, c.Junk, c.Missing, c.NoEvidence, r.DuplicateTurn)
	fmt.Fprintf(w, "protocol: %s\n", r.Protocol)
}

func categoryName(cat int) string {
	return map[int]string{1: "multi", 2: "time", 3: "infer", 4: "single"}[cat]
}

func perItem(d time.Duration, n int) string {
	if n == 0 {
		return "unknown"
	}
	return fmtDur(d / time.Duration(n))
}

func fmtDur(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	}
	return strings.TrimSpace(d.Round(time.Millisecond).String())
}

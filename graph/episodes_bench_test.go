package graph_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/graph"
)

// BenchmarkSearchWithoutEvents times a search of a store fed only by
// captures (600 long facts, no raw events, as a store filled through
// capture_fact is) against the same search with KnowledgeOnly, which skips
// the episode step, alternated in one process: "episodes/knowledge" is
// what the episode step costs where there is no event to show.
func BenchmarkSearchWithoutEvents(b *testing.B) {
	db := newDB(b)
	words := strings.Fields("guitar practice daily lesson amp tone chord scale song band video series python course " +
		"trip family hawaii tokyo hotel night cost budget garden seeds tomato marigold bike lock wheel camera lens " +
		"book reading club wedding venue cousin friend weekend morning routine coffee recipe class friday")
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 600; i++ {
		var sb strings.Builder
		for j := 0; j < 80+rng.IntN(200); j++ {
			sb.WriteString(words[rng.IntN(len(words))])
			sb.WriteByte(' ')
		}
		addFact(b, db, fact{content: fmt.Sprintf("[2023/05/%02d] user: I %s", 1+i%28, sb.String())})
	}
	r := graph.NewReader(db)
	defer r.Close()
	ctx := context.Background()
	q := graph.Query{Text: "How many guitar lessons did I take before the trip to Tokyo?", Limit: 10}
	kq := q
	kq.KnowledgeOnly = true
	var full, knowledge time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, c := range []struct {
			q     graph.Query
			spent *time.Duration
		}{{q, &full}, {kq, &knowledge}} {
			start := time.Now()
			if _, err := r.Search(ctx, c.q); err != nil {
				b.Fatal(err)
			}
			*c.spent += time.Since(start)
		}
	}
	b.ReportMetric(float64(full.Microseconds())/float64(b.N)/1000, "ms_search")
	b.ReportMetric(float64(full)/float64(knowledge), "episodes/knowledge")
}

package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/recollect/recollect/graph"
)

// BenchmarkPromptSearch times the prompt hook's search (limit 10) of a
// whole fixture sentence on the warm reader, at the sizes BenchmarkSearch
// uses: the daemon's share of a UserPromptSubmit hook.
func BenchmarkPromptSearch(b *testing.B) {
	for _, n := range searchBenchSizes(b) {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			db, sentences := searchBenchStore(b, n)
			ctx := context.Background()
			reader := graph.NewReader(db)
			defer reader.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := reader.Search(ctx, graph.Query{Text: sentences[(i*7919)%len(sentences)], Limit: 10}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

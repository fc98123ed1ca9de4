package graph_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// TestEachNamedEventGetsAPlace: a question about the order of two events
// gets the best match of each among its results, even when the rest of
// the question matches many facts about one of them better than any about
// the other; the best hit stays first, and a question that asks no order
// is ranked as before.
func TestEachNamedEventGetsAPlace(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		var gala []int64
		for i := range 4 {
			gala = append(gala, addFact(t, db, fact{
				content: fmt.Sprintf("I went to the charity gala downtown with table %d and the event raised money", i),
				session: fmt.Sprintf("g%d", i)}))
		}
		sale := addFact(t, db, fact{content: "My neighbour and I ran the sale at school on Saturday; it went well", session: "s"})
		for i := range 12 {
			addFact(t, db, fact{content: fmt.Sprintf("The school bus leaves at %d", 7+i), session: fmt.Sprintf("b%d", i)})
			addFact(t, db, fact{content: fmt.Sprintf("The shop has a sale on size %d shoes", 38+i), session: fmt.Sprintf("h%d", i)})
		}

		for _, c := range []struct {
			query string
			want  bool
		}{
			{"Which event did I go to first, the charity gala downtown that raised money or the sale at school?", true},
			{"How many days passed between the charity gala downtown that raised money and the sale at school?", true},
		} {
			ans := search(t, db, graph.Query{Text: c.query, Limit: 3})
			got := ids(ans.Results)
			if len(got) != 3 || !slices.Contains(gala, got[0]) {
				t.Fatalf("%q: results %v, want 3 with a gala fact first", c.query, got)
			}
			h := find(ans.Results, sale)
			if h == nil {
				t.Fatalf("%q: results %v, want the school sale fact %d among them", c.query, got, sale)
			}
			detail := false
			for _, m := range h.MatchedBy {
				detail = detail || m.Detail == `the best match of "the sale at school"`
			}
			if !detail {
				t.Errorf("%q: the school sale fact's matches %+v do not say it is the event's best match", c.query, h.MatchedBy)
			}
		}

		// The same words without a question of order: the gala facts fill
		// the places.
		ans := search(t, db, graph.Query{Text: "the charity gala downtown that raised money or the sale at school", Limit: 3})
		if find(ans.Results, sale) != nil {
			t.Fatalf("results %v: without a question of order the school sale fact %d must not be lifted", ids(ans.Results), sale)
		}
	})
}

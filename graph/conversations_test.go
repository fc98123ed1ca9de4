package graph_test

import (
	"testing"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// TestContextStaysInItsConversation: the turns around a question are its
// context only when said in its conversation. A session that holds two
// days (a copied chat history, an agent capturing for days) stores the
// last turn of one day next to the first of the next; that turn is not the
// question's reply and is not brought as its context, while the reply is.
func TestContextStaysInItsConversation(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		yesterday := addFact(t, db, fact{content: "Good night, talk tomorrow.", session: "chat", said: dayN(1), events: []int64{10}})
		question := addFact(t, db, fact{content: "Where did Ana travel in spring?", session: "chat", said: dayN(2), events: []int64{11}})
		answer := addFact(t, db, fact{content: "Rome, with two friends.", session: "chat", said: dayN(2), events: []int64{12}})
		res := search(t, db, graph.Query{Text: "where did Ana travel", Limit: 10}).Results
		if find(res, question) == nil || find(res, answer) == nil {
			t.Fatalf("results %v; want the question %d and its reply %d", ids(res), question, answer)
		}
		if find(res, yesterday) != nil {
			t.Fatalf("results %v hold %d, said the day before the question %d: not its context", ids(res), yesterday, question)
		}
	})
}

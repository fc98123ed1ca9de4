package graph_test

import (
	"testing"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/store/storetest"
)

// A reader's first search on PostgreSQL reads on one connection (a new
// process opened three server connections, each a server process loading
// its catalog, for one answer), and answers what a warm reader's search on
// several connections answers.
func TestFirstSearchOnOneServerConnection(t *testing.T) {
	db := storetest.Open(t, "postgres")
	sp := vector.Space{Provider: "test", Model: "m", Dim: 3}
	for i, f := range []fact{
		{content: "The staging cluster deploys from the release branch", entities: []ent{{name: "staging", typ: "environment"}}},
		{content: "Staging runs blue green on port 8443", entities: []ent{{name: "staging", typ: "environment"}}},
		{content: "The release branch is cut on Thursdays"},
		{content: "Lunch is at noon"},
	} {
		id := addFact(t, db, f)
		addVector(t, db, id, sp, []float32{float32(i), 1, 0.5})
	}
	addPending(t, db, "s1", "staging moved to the new hosts")
	queries := []graph.Query{
		{Text: "staging release branch"},
		{Text: "staging port", Vector: []float32{1, 1, 0.5}, Space: sp},
		{Text: "noon lunch", Limit: 2},
	}
	warm := graph.NewReader(db)
	defer warm.Close()
	searchWith(t, warm, graph.Query{Text: "warm up"})
	for _, q := range queries {
		db.SetMaxIdleConns(0) // close every pooled connection, as a new process has none
		db.SetMaxIdleConns(8)
		first := search(t, db, q)
		if n := db.Stats().OpenConnections; n != 1 {
			t.Errorf("first search %q of a new reader opened %d connections; want 1", q.Text, n)
		}
		if got, want := toJSON(t, first), toJSON(t, searchWith(t, warm, q)); got != want {
			t.Errorf("search %q:\nfirst, on one connection: %s\nwarm, on several:        %s", q.Text, got, want)
		}
	}
}

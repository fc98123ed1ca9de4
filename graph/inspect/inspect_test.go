package inspect_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/fixtures"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// people and orgs make a graph wider than a small cap.
var (
	people   = []string{"Robin", "Alexis", "Morgan", "Priya", "Tomasz", "Ines", "Kenji", "Amara", "Lucia", "Oskar", "Farah", "Mateo"}
	orgs     = []string{"Acme", "Globex", "Initech", "Umbrella"}
	projects = []string{"Atlas", "Hermes", "Nimbus"}
	services = []string{"billing", "search", "payments", "audit", "mail"}
)

// lonely is named by one fact only, so a small cap never draws it.
const lonely = "Zephyrine"

// fixtureStore builds a SQLite store with the heuristic pipeline: the
// demo statements plus generated ones, recorded then consolidated.
func fixtureStore(tb testing.TB) *pipeline.Pipeline { return fixtureStoreOn(tb, "sqlite") }

// fixtureStoreOn is fixtureStore on the named engine.
func fixtureStoreOn(tb testing.TB, engine string) *pipeline.Pipeline {
	tb.Helper()
	ctx := context.Background()
	dir, _, getenv := storetest.DataDir(tb, engine)
	p, err := pipeline.Open(ctx, dir, pipeline.Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Getenv: getenv})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { p.Close() })
	demo, err := fixtures.FS.ReadFile("demo/statements.txt")
	if err != nil {
		tb.Fatal(err)
	}
	lines := []string{string(demo)}
	for i, who := range people {
		lines = append(lines,
			fmt.Sprintf("My colleague %s at %s owns the %s service and reviews every schema change.", who, orgs[i%len(orgs)], services[i%len(services)]),
			fmt.Sprintf("Deploys of the %s migration need a sign-off from %s and %s.", projects[i%len(projects)], who, people[(i+1)%len(people)]))
	}
	lines = append(lines, "My neighbour's cat is called "+lonely+" and she hates thunderstorms.")
	var evs []store.Event
	for _, l := range lines {
		evs = append(evs, store.Event{SessionID: "fixture", Source: "record", Role: "user", EventType: "message", ContentType: "text", Content: l})
	}
	evs = append(evs, store.Event{SessionID: "fixture", Source: "record", Role: "tool", EventType: "tool_result", ContentType: "text", Content: "ok " + strings.Repeat("=", 50)})
	if _, err := p.Record(ctx, evs); err != nil {
		tb.Fatal(err)
	}
	if _, err := p.Run(ctx, pipeline.RunOptions{Steps: pipeline.Steps{Extract: true, Integrate: true}, Extract: extract.Options{All: true}}); err != nil {
		tb.Fatal(err)
	}
	return p
}

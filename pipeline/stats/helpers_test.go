package stats

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
)

const shellfish = "I am allergic to shellfish, so restaurant suggestions must avoid it."

// openTest opens a fresh pipeline over a real store in a temp directory.
func openTest(tb testing.TB) *pipeline.Pipeline {
	tb.Helper()
	p, err := pipeline.Open(context.Background(), tb.TempDir(), pipeline.Options{Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatalf("open pipeline: %v", err)
	}
	tb.Cleanup(func() { p.Close() })
	return p
}

// say records user statements in session as one event each.
func say(tb testing.TB, p *pipeline.Pipeline, session string, lines ...string) {
	tb.Helper()
	var evs []store.Event
	for _, l := range lines {
		evs = append(evs, store.Event{SessionID: session, Source: "record", Role: "user", EventType: "message", ContentType: "text", Content: l})
	}
	if _, err := p.Record(context.Background(), evs); err != nil {
		tb.Fatalf("record: %v", err)
	}
}

// toolOutput records n tool results of size bytes each in session.
func toolOutput(tb testing.TB, p *pipeline.Pipeline, session string, n, size int) {
	tb.Helper()
	var evs []store.Event
	for i := 0; i < n; i++ {
		body := fmt.Sprintf(`{"i":%d,"out":%q}`, i, strings.Repeat(string(rune('a'+i%26)), size))
		evs = append(evs, store.Event{SessionID: session, Source: "record", Role: "tool", EventType: "tool_result", ContentType: "json", Content: body})
	}
	if _, err := p.Record(context.Background(), evs); err != nil {
		tb.Fatalf("record tool output: %v", err)
	}
}

// consolidate runs extract (uncapped) and integrate with the heuristic.
func consolidate(tb testing.TB, p *pipeline.Pipeline) pipeline.Summary {
	tb.Helper()
	sum, err := p.Run(context.Background(), pipeline.RunOptions{Steps: pipeline.Steps{Extract: true, Integrate: true}, Extract: extract.Options{All: true}})
	if err != nil {
		tb.Fatalf("consolidate: %v", err)
	}
	return sum
}

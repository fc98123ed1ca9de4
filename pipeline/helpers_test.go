package pipeline

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// openTest opens a fresh pipeline over a real store in a temp directory.
func openTest(tb testing.TB) *Pipeline {
	tb.Helper()
	p, err := Open(context.Background(), tb.TempDir(), Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		tb.Fatalf("open pipeline: %v", err)
	}
	tb.Cleanup(func() { p.Close() })
	return p
}

// openCopyTest opens a fresh copy store that follows the Claude Code
// transcripts under home, configured the way a user's is: in config.json.
func openCopyTest(tb testing.TB, home string) *Pipeline {
	tb.Helper()
	dir := tb.TempDir()
	cfg := config.Default()
	cfg.Mode = "copy"
	cfg.Sources = []config.Source{{Kind: sources.ClaudeCode, Home: home}}
	if err := config.Write(dir, cfg); err != nil {
		tb.Fatal(err)
	}
	p, err := Open(context.Background(), dir, Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		tb.Fatalf("open pipeline: %v", err)
	}
	tb.Cleanup(func() { p.Close() })
	return p
}

// openConfigured opens a fresh pipeline whose config.json is cfg and whose
// environment is getenv (nil: empty), the way a user's store is opened:
// the model router is built from both at Open.
func openConfigured(tb testing.TB, cfg config.Config, getenv func(string) string) *Pipeline {
	tb.Helper()
	dir := tb.TempDir()
	if err := config.Write(dir, cfg); err != nil {
		tb.Fatal(err)
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	p, err := Open(context.Background(), dir, Options{Getenv: getenv, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		tb.Fatalf("open pipeline: %v", err)
	}
	tb.Cleanup(func() { p.Close() })
	return p
}

// say records user statements in session as one event each.
func say(tb testing.TB, p *Pipeline, session string, lines ...string) []int64 {
	tb.Helper()
	var evs []store.Event
	for _, l := range lines {
		evs = append(evs, store.Event{SessionID: session, Source: "record", Role: "user", EventType: "message", ContentType: "text", Content: l})
	}
	res, err := p.Record(context.Background(), evs)
	if err != nil {
		tb.Fatalf("record: %v", err)
	}
	return res.Seqs
}

// toolOutput records n tool results of size bytes each in session.
func toolOutput(tb testing.TB, p *Pipeline, session string, n, size int) []int64 {
	tb.Helper()
	var evs []store.Event
	for i := 0; i < n; i++ {
		body := fmt.Sprintf(`{"i":%d,"out":%q}`, i, strings.Repeat(string(rune('a'+i%26)), size))
		evs = append(evs, store.Event{SessionID: session, Source: "record", Role: "tool", EventType: "tool_result", ContentType: "json", Content: body})
	}
	res, err := p.Record(context.Background(), evs)
	if err != nil {
		tb.Fatalf("record tool output: %v", err)
	}
	return res.Seqs
}

// consolidate runs extract (uncapped) and integrate with the heuristic.
func consolidate(tb testing.TB, p *Pipeline) Summary {
	tb.Helper()
	sum, err := p.Run(context.Background(), RunOptions{Steps: Steps{Extract: true, Integrate: true}, Extract: extract.Options{All: true}})
	if err != nil {
		tb.Fatalf("consolidate: %v", err)
	}
	return sum
}

// answers runs each query through graph.Search and returns the answers.
func answers(tb testing.TB, p *Pipeline, queries ...string) []graph.Answer {
	tb.Helper()
	var out []graph.Answer
	for _, q := range queries {
		a, err := p.Reader.Search(context.Background(), graph.Query{Text: q, Limit: 50})
		if err != nil {
			tb.Fatalf("search %q: %v", q, err)
		}
		a.Episodes = nil // raw event windows, not knowledge: prune reclaims raw events by design
		out = append(out, a)
	}
	return out
}

// provenanceResolves fails when a fact cites an event that no longer exists.
func provenanceResolves(tb testing.TB, p *Pipeline) {
	tb.Helper()
	if n := storetest.Count(tb, p.db, `SELECT count(*) FROM fact_provenance fp WHERE fp.event_seq IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM session_events e WHERE e.seq = fp.event_seq)`); n != 0 {
		tb.Fatalf("%d fact provenance rows cite missing events", n)
	}
	if n := storetest.Count(tb, p.db, `SELECT count(*) FROM session_facts s, json_each(s.event_ids) j
		WHERE NOT EXISTS (SELECT 1 FROM session_events e WHERE e.seq = j.value)`); n != 0 {
		tb.Fatalf("%d session fact citations point at missing events", n)
	}
}

// factCounts counts the active facts and all facts, superseded history
// included: the numbers stats reports as facts.
func factCounts(tb testing.TB, p *Pipeline) (active, total int) {
	tb.Helper()
	return storetest.Count(tb, p.db, `SELECT count(*) FROM facts WHERE status = 'active'`), storetest.Count(tb, p.db, `SELECT count(*) FROM facts`)
}

package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/hookctx"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

// windowSince sets p's retention window so that it begins at floor, as a
// number of days counted back from now (the test must not depend on the
// day it runs).
func windowSince(p *Pipeline, floor time.Time) {
	days := int(time.Since(floor).Hours()/24) + 1
	p.Config.Retention.Window = config.NewWindow(fmt.Sprintf("%dd", days))
	p.Reader.Retain(p.Config.Retention.Window.Duration())
}

// readAll is every read a person or an agent has, rendered as one text:
// search (facts and episodes), entity, context, briefing, profile, the
// session-start hook, get_events and the domain counts.
func readAll(t *testing.T, p *Pipeline) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	add := func(v any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(v)
		b.Write(data)
		b.WriteByte('\n')
	}
	// The queries leave out the words checked for (zephyr, quokka, atlas),
	// which an answer echoing its query would otherwise hold.
	for _, q := range []string{"billing service Render Friday", "tabs over spaces codebase", "search service Fly.io"} {
		add(p.Search(ctx, graph.Query{Text: q, Limit: 10}))
		add(p.Context(ctx, graph.ContextQuery{Topic: q}))
	}
	for _, name := range []string{"Render", "Fly.io"} {
		add(p.Reader.Entity(ctx, graph.EntityQuery{Name: name}))
	}
	add(p.Briefing(ctx))
	add(p.Reader.Profile(ctx))
	add(hookctx.SessionStart(ctx, p.Reader, hookctx.SessionInput{Source: hookctx.SourceStartup, Budget: 2000}))
	add(p.Reader.Events(ctx, graph.EventsQuery{Limit: 100}))
	add(p.Reader.Schemas(ctx))
	return strings.ToLower(b.String())
}

// TestRetentionWindowOnRead: on both engines, with retention.window set
// and nothing deleted yet, no read returns what happened before the
// window began — the old session's facts, events and the entities only it
// names — while what happened since is still found. The next prune then
// deletes exactly that, and prune says so.
func TestRetentionWindowOnRead(t *testing.T) {
	ctx := context.Background()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			p := openEngine(t, engine, forgetHome(t))
			if _, err := p.Copy(ctx); err != nil {
				t.Fatal(err)
			}
			consolidate(t, p)
			before := readAll(t, p)
			for _, word := range []string{"zephyr", "quokka", "atlas"} {
				if !strings.Contains(before, word) {
					t.Fatalf("fixture: without a window the reads do not return %q", word)
				}
			}
			events, facts := storetest.Count(t, p.db, `SELECT count(*) FROM session_events`), storetest.Count(t, p.db, `SELECT count(*) FROM facts`)

			windowSince(p, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
			got := readAll(t, p)
			for _, word := range []string{"zephyr", "quokka"} {
				if strings.Contains(got, word) {
					t.Errorf("a read returns %q, which happened before the window began:\n%s", word, got)
				}
			}
			if !strings.Contains(got, "atlas") {
				t.Errorf("the reads no longer return the Atlas fact, which happened within the window")
			}
			for _, name := range []string{"Zephyr", "Quokka"} {
				ans, err := p.Reader.Entity(ctx, graph.EntityQuery{Name: name})
				if err != nil {
					t.Fatal(err)
				}
				if ans.Found || len(ans.Facts) > 0 {
					t.Errorf("get_entity %s: %+v; only facts past the window name it", name, ans)
				}
			}
			if n, m := storetest.Count(t, p.db, `SELECT count(*) FROM session_events`), storetest.Count(t, p.db, `SELECT count(*) FROM facts`); n != events || m != facts {
				t.Fatalf("reading deleted rows: %d events → %d, %d facts → %d", events, n, facts, m)
			}

			past, err := p.PastWindow(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if past == nil || past.Events != 2 || past.Facts != 2 || past.Applied {
				t.Fatalf("past the window: %+v, want the 2 old events and their 2 facts, not yet deleted", past)
			}

			rep, err := p.Prune(ctx, PruneOptions{Apply: true, Actor: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if w := rep.Window; w == nil || !w.Applied || w.RowsBy["facts"] != 2 || w.RowsBy["session_events"] != 2 {
				t.Fatalf("prune: window %+v, want the 2 facts and 2 events deleted", rep.Window)
			}
			for _, word := range []string{"zephyr", "quokka"} {
				if n := storetest.Count(t, p.db, `SELECT count(*) FROM facts WHERE lower(content) LIKE '%`+word+`%'`) +
					storetest.Count(t, p.db, `SELECT count(*) FROM session_events WHERE lower(content) LIKE '%`+word+`%'`) +
					storetest.Count(t, p.db, `SELECT count(*) FROM session_facts WHERE lower(content) LIKE '%`+word+`%'`); n != 0 {
					t.Errorf("%q is still stored after prune (%d rows)", word, n)
				}
			}
			if n := storetest.Count(t, p.db, `SELECT count(*) FROM mutation_log WHERE op = 'forget' AND target LIKE 'selector:%' AND reason = ?`, windowReason(p.Config.Retention.Window.String())); n != 1 {
				t.Errorf("%d mutation records name the window, want 1", n)
			}
			if again, err := p.PastWindow(ctx); err != nil || again.Events != 0 || again.Facts != 0 {
				t.Errorf("after prune, past the window: %+v, %v; want nothing", again, err)
			}
			if got := readAll(t, p); !strings.Contains(got, "atlas") {
				t.Errorf("after prune the Atlas fact is no longer found")
			}
		})
	}
}

// TestConsolidationDeletesPastWindow: every consolidation (the daemon's
// runs among them) deletes what has passed the window since the last
// one, says so in its summary, and writes nothing when nothing has.
func TestConsolidationDeletesPastWindow(t *testing.T) {
	ctx := context.Background()
	p := openEngine(t, "sqlite", forgetHome(t))
	if _, err := p.Copy(ctx); err != nil {
		t.Fatal(err)
	}
	if sum := consolidate(t, p); sum.Window != nil {
		t.Fatalf("without a window the run reports one: %+v", sum.Window)
	}
	windowSince(p, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	sum := consolidate(t, p)
	if w := sum.Window; w == nil || !w.Applied || w.Facts != 2 || w.Events != 2 || w.RowsBy["facts"] != 2 {
		t.Fatalf("run under the window: %+v, want the 2 old facts and events deleted", sum.Window)
	}
	logged := storetest.Count(t, p.db, `SELECT count(*) FROM mutation_log`)
	sum = consolidate(t, p)
	if w := sum.Window; w == nil || w.Facts != 0 || w.Events != 0 || w.Rows != 0 {
		t.Errorf("second run: %+v, want nothing past the window", sum.Window)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM mutation_log`); n != logged {
		t.Errorf("a run with nothing past the window wrote %d mutation records", n-logged)
	}
	if n := storetest.Count(t, p.db, `SELECT count(*) FROM facts WHERE content LIKE '%Atlas%'`); n != 1 {
		t.Errorf("the fact within the window went too")
	}
}

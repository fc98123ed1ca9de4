package hookctx_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/hookctx"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/sqlite"
	"github.com/recollect/recollect/store/storetest"
)

// said is when the fixtures' statements were made, so golden files do not
// depend on the day the test runs.
var said = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// memory is a store filled through the path a user's store takes: events
// recorded, then extracted and integrated with the heuristic provider.
type memory struct {
	p      *pipeline.Pipeline
	dir    string
	cfg    config.Config
	getenv func(string) string
}

// eachEngine runs fn as a subtest on each engine: the hooks read a
// PostgreSQL store as they read a SQLite one, and the golden files hold
// for both.
func eachEngine(t *testing.T, fn func(t *testing.T, engine string)) {
	for _, engine := range storetest.Engines {
		t.Run(engine, func(t *testing.T) { fn(t, engine) })
	}
}

// newMemory opens a new store on engine ("sqlite" or "postgres", a schema
// of its own on the test server) through pipeline.Open, as a user's does.
func newMemory(tb testing.TB, engine string) *memory {
	tb.Helper()
	dir, cfg, getenv := storetest.DataDir(tb, engine)
	p, err := pipeline.Open(context.Background(), dir, pipeline.Options{Getenv: getenv})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { p.Close() })
	return &memory{p: p, dir: dir, cfg: cfg, getenv: getenv}
}

// say records user messages in session and consolidates them.
func (m *memory) say(tb testing.TB, session string, lines ...string) {
	tb.Helper()
	ctx := context.Background()
	evs := make([]store.Event, len(lines))
	for i, l := range lines {
		at := said.Add(time.Duration(i) * time.Minute)
		evs[i] = store.Event{SessionID: session, Source: "record", Role: "user", EventType: "message", ContentType: "text", Content: l, OccurredAt: &at}
	}
	if _, err := m.p.Record(ctx, evs); err != nil {
		tb.Fatal(err)
	}
	if _, err := m.p.Run(ctx, pipeline.RunOptions{Steps: pipeline.Steps{Extract: true, Integrate: true}, Trigger: "test"}); err != nil {
		tb.Fatal(err)
	}
}

// factID finds the active or superseded fact whose content holds s.
func (m *memory) factID(tb testing.TB, s string) (int64, string) {
	tb.Helper()
	var id int64
	var status string
	if err := m.p.Store().QueryRowContext(context.Background(), `SELECT id, status FROM facts WHERE content LIKE ? ORDER BY id LIMIT 1`, "%"+s+"%").Scan(&id, &status); err != nil {
		tb.Fatalf("no fact holds %q: %v", s, err)
	}
	return id, status
}

// reader opens the store as the hooks do: a SQLite store read-only, a
// PostgreSQL one as every command opens it.
func (m *memory) reader(tb testing.TB) *graph.Reader {
	tb.Helper()
	var (
		db  *store.DB
		err error
	)
	if m.cfg.Storage.Provider == "postgres" {
		db, err = pipeline.OpenStore(context.Background(), m.dir, m.cfg.Storage, m.getenv)
	} else {
		db, err = sqlite.OpenReader(context.Background(), m.dir)
	}
	if err != nil {
		tb.Fatal(err)
	}
	r := graph.NewReader(db)
	tb.Cleanup(func() { r.Close(); db.Close() })
	return r
}

// longFact is a user statement of at least n bytes, in fewer than the 80
// words the heuristic extractor keeps at most.
func longFact(i, n int) string {
	long := []string{"extraordinarily", "comprehensive", "infrastructure", "synchronization", "responsibilities",
		"interoperability", "characteristically", "telecommunications", "counterproductive", "incomprehensibility"}
	var b strings.Builder
	fmt.Fprintf(&b, "The Atlas deployment number %d runs on the cluster in Frankfurt with", i)
	for k := 0; b.Len() < n; k++ {
		b.WriteString(" " + long[(i+k)%len(long)])
	}
	return b.String() + "."
}

// TestBudgetsHold: whatever the budget, the added context never costs more
// than it, on a store whose facts are each longer than a small budget.
func TestBudgetsHold(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		m := newMemory(t, engine)
		var lines []string
		for i := range 40 {
			lines = append(lines, longFact(i, 500+23*i))
		}
		m.say(t, "s1", lines...)
		var n, long int
		m.p.Store().QueryRowContext(context.Background(), `SELECT count(*), count(*) FILTER (WHERE length(content) > ?) FROM facts WHERE status = 'active'`, hookctx.FactCut).Scan(&n, &long)
		if n < 30 || long < 30 {
			t.Fatalf("the fixture holds %d facts, %d longer than a cut fact; want 30 of each", n, long)
		}
		db := m.reader(t)
		ctx := context.Background()
		for _, budget := range []int{100, 130, 200, 400, 1500, 4000} {
			for _, source := range []string{hookctx.SourceStartup, hookctx.SourceCompact} {
				text, err := hookctx.SessionStart(ctx, db, hookctx.SessionInput{Source: source, SessionID: "s1", Budget: budget,
					Consolidation: hookctx.Consolidation{State: hookctx.StillRunning, Waited: 3 * time.Second}})
				if err != nil {
					t.Fatalf("budget %d %s: %v", budget, source, err)
				}
				if got := hookctx.Tokens(text); got > budget || text == "" {
					t.Errorf("session start, budget %d, %s: %d tokens (%d bytes)", budget, source, got, len(text))
				}
				if budget >= 400 && !strings.Contains(text, "[fact ") {
					t.Errorf("session start, budget %d: no fact fits:\n%s", budget, text)
				}
			}
			text, err := hookctx.Prompt(ctx, db, "where does the Atlas deployment run, which cluster?", budget)
			if err != nil {
				t.Fatal(err)
			}
			if got := hookctx.Tokens(text); got > budget {
				t.Errorf("prompt, budget %d: %d tokens", budget, got)
			}
			if budget >= 200 && !strings.Contains(text, "[fact ") {
				t.Errorf("prompt, budget %d: no fact fits:\n%s", budget, text)
			}
		}
		if _, err := hookctx.SessionStart(ctx, db, hookctx.SessionInput{Budget: hookctx.MinBudget - 1}); err == nil {
			t.Error("a budget below the minimum was accepted")
		}
	})
}

// TestStableAndCurrent: the context is byte-stable for an unchanged store,
// carries neither a superseded nor a forgotten fact, and after a
// compaction puts what the compacted session taught first.
func TestStableAndCurrent(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		m := newMemory(t, engine)
		// The superseded and the forgotten fact come from the session that is
		// compacted, so they would lead its section if the filter let them.
		m.say(t, "now", "I live in Lisbon near the river.", "The staging server is called Hermes and runs Debian.")
		m.say(t, "old", "We use Postgres 16 as the database for the Atlas project.")
		m.say(t, "now", "I moved to Porto last month.", "The nightly backup of Atlas runs at three in the morning.")
		lisbon, status := m.factID(t, "Lisbon")
		if status != "superseded" {
			t.Fatalf("the Lisbon fact is %s; the fixture needs the heuristic to supersede it", status)
		}
		hermes, _ := m.factID(t, "Hermes")
		if _, err := m.p.Forget(context.Background(), []int64{hermes}, pipeline.ForgetOptions{Actor: "test", Reason: "test"}); err != nil {
			t.Fatal(err)
		}
		db := m.reader(t)
		ctx := context.Background()
		in := hookctx.SessionInput{Source: hookctx.SourceCompact, SessionID: "now", Budget: 1500,
			Consolidation: hookctx.Consolidation{State: hookctx.Settled}}
		first, err := hookctx.SessionStart(ctx, db, in)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := hookctx.SessionStart(ctx, db, in)
		if first != again {
			t.Fatalf("two renders of an unchanged store differ:\n%s\n---\n%s", first, again)
		}
		for _, gone := range []string{"Lisbon", "Hermes", fmt.Sprintf("[fact %d]", lisbon), fmt.Sprintf("[fact %d]", hermes)} {
			if strings.Contains(first, gone) {
				t.Errorf("session start carries %q:\n%s", gone, first)
			}
		}
		storetest.Golden(t, "session_compact.txt", first)

		for _, prompt := range []string{"where do I live now?", "what is the staging server Hermes running?"} {
			text, err := hookctx.Prompt(ctx, db, prompt, 400)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(text, "Lisbon") || strings.Contains(text, "Hermes") {
				t.Errorf("prompt %q carries a superseded or forgotten fact:\n%s", prompt, text)
			}
			again, _ := hookctx.Prompt(ctx, db, prompt, 400)
			if text != again {
				t.Errorf("prompt %q: two renders differ", prompt)
			}
		}
		live, _ := hookctx.Prompt(ctx, db, "where do I live now?", 400)
		storetest.Golden(t, "prompt_live.txt", live)
	})
}

// TestConsolidationNotes: after a compaction the context says when the
// consolidation it waited for is still running, or could not run.
func TestConsolidationNotes(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		m := newMemory(t, engine)
		m.say(t, "s1", "We use Postgres 16 as the database for the Atlas project.")
		db := m.reader(t)
		cases := []struct {
			name string
			c    hookctx.Consolidation
			want string
		}{
			{"settled", hookctx.Consolidation{State: hookctx.Settled}, ""},
			{"settled, nothing kept", hookctx.Consolidation{State: hookctx.Settled}, "Note: the part just compacted has been consolidated, and no fact rests on this session's conversation"},
			{"running", hookctx.Consolidation{State: hookctx.StillRunning, Waited: 3 * time.Second},
				"Note: knowledge from the part just compacted is still being consolidated (waited 3s)"},
			{"no daemon", hookctx.Consolidation{State: hookctx.NoDaemon},
				"Note: no recollect daemon is running, so the part just compacted has not been consolidated yet"},
			{"unknown", hookctx.Consolidation{State: hookctx.Unknown, Reason: "dial: permission denied"},
				"Note: whether the part just compacted has been consolidated is unknown (dial: permission denied)"},
		}
		for _, tc := range cases {
			session := "s1"
			if tc.name == "settled, nothing kept" {
				session = "s2" // a session nothing was learned from
			}
			text, err := hookctx.SessionStart(context.Background(), db, hookctx.SessionInput{Source: hookctx.SourceCompact, SessionID: session, Budget: 1500, Consolidation: tc.c})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" && strings.Contains(text, "Note:") || tc.want != "" && !strings.Contains(text, tc.want) {
				t.Errorf("%s: want %q in\n%s", tc.name, tc.want, text)
			}
			// A plain start never mentions consolidation.
			plain, _ := hookctx.SessionStart(context.Background(), db, hookctx.SessionInput{Source: hookctx.SourceStartup, Budget: 1500, Consolidation: tc.c})
			if strings.Contains(plain, "Note:") {
				t.Errorf("%s: a startup context mentions consolidation:\n%s", tc.name, plain)
			}
		}
	})
}

// TestNothingToAdd: an empty store adds nothing at session start, and a
// prompt nothing in memory bears on adds nothing at all.
func TestNothingToAdd(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		m := newMemory(t, engine)
		ctx := context.Background()
		if text, err := hookctx.SessionStart(ctx, m.reader(t), hookctx.SessionInput{Source: hookctx.SourceStartup, Budget: 1500}); err != nil || text != "" {
			t.Fatalf("empty store: %q, %v", text, err)
		}
		m.say(t, "s1", "We use Postgres 16 as the database for the Atlas project.", "The nightly backup of Atlas runs at three in the morning.")
		db := m.reader(t)
		for _, prompt := range []string{"", "   ", "fix the flaky parser test", "the", "why is the nightly parser slow?"} {
			if text, err := hookctx.Prompt(ctx, db, prompt, 400); err != nil || text != "" {
				t.Errorf("prompt %q: %q, %v", prompt, text, err)
			}
		}
		if text, _ := hookctx.Prompt(ctx, db, "when does the nightly backup run?", 400); !strings.Contains(text, "nightly backup") {
			t.Errorf("a relevant prompt added %q", text)
		}
	})
}

// TestPromptStemsAsSearchDoes: a prompt word counts toward the floor in
// every form search finds it by — "deployment" (Porter: "deploy") shares
// a word with "deploy" (Porter: "deploi").
func TestPromptStemsAsSearchDoes(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		m := newMemory(t, engine)
		m.say(t, "s1", "We no longer deploy spotter to Fly.io; we switched to Render.")
		db := m.reader(t)
		for _, prompt := range []string{"tell me about the deployment to Render", "how do we deploy to Render?"} {
			if text, err := hookctx.Prompt(context.Background(), db, prompt, 400); err != nil || !strings.Contains(text, "switched to Render") {
				t.Errorf("prompt %q added %q, %v", prompt, text, err)
			}
		}
	})
}

// TestNeeded pins the relevance floor.
func TestNeeded(t *testing.T) {
	for n, want := range map[int]int{1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3, 20: 3} {
		if got := hookctx.Needed(n); got != want {
			t.Errorf("Needed(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestOutput pins the hook JSON Claude Code reads, and that facts stay
// quoted data inside it.
func TestOutput(t *testing.T) {
	if hookctx.Output(hookctx.EventUserPromptSubmit, "") != nil {
		t.Fatal("empty text must print nothing")
	}
	out := hookctx.Output(hookctx.EventSessionStart, "a\n\"b\"")
	var v struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.HookSpecificOutput.HookEventName != "SessionStart" || v.HookSpecificOutput.AdditionalContext != "a\n\"b\"" {
		t.Fatalf("output %s: %+v %v", out, v, err)
	}
	if strings.Count(string(out), "\n") != 1 {
		t.Fatalf("output is not one line: %q", out)
	}
}

// TestOpenConflicts: an unresolved conflict is listed with the command
// that settles it; a resolved one is not.
func TestOpenConflicts(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		m := newMemory(t, engine)
		m.say(t, "s1", "We use Postgres 16 as the database for the Atlas project.", "The nightly backup of Atlas runs at three in the morning.")
		a, _ := m.factID(t, "Postgres")
		b, _ := m.factID(t, "nightly backup")
		for _, resolved := range []any{nil, store.Now()} {
			if _, err := m.p.Store().ExecContext(context.Background(), `INSERT INTO conflicts(fact_id, other_id, target_id, reason, created_at, resolved_at) VALUES (?,?,?,?,?,?)`,
				b, b, a, "both replace it", store.Now(), resolved); err != nil {
				t.Fatal(err)
			}
		}
		text, err := hookctx.SessionStart(context.Background(), m.reader(t), hookctx.SessionInput{Source: hookctx.SourceStartup, Budget: 1500})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("## Open conflicts\n\n- conflict 1: facts %d and %d both claim to replace fact %d (recollect conflicts resolve)\n", b, b, a)
		if !strings.Contains(text, want) || strings.Contains(text, "conflict 2:") {
			t.Fatalf("want %q, and not the resolved conflict, in:\n%s", want, text)
		}
	})
}

// TestPromptShowsTheConversationWhereKnowledgeIsSilent: an agent's long
// report that no fact holds still answers a prompt: the passage around the
// prompt's words is added, marked as raw conversation and quoted, and held
// to the same floor as facts (an unrelated prompt adds nothing).
func TestPromptShowsTheConversationWhereKnowledgeIsSilent(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		m := newMemory(t, engine)
		ctx := context.Background()
		report := strings.Repeat("Round one went as planned and each branch merged cleanly. ", 20) +
			"Round two used fresh agents named alice2, bob2 and carol2 pointed at the existing worktrees. " +
			strings.Repeat("The documents were compared and committed. ", 20)
		at := said
		if _, err := m.p.Record(ctx, []store.Event{{SessionID: "s1", Source: "record", Role: "assistant", EventType: "message",
			ContentType: "text", Content: report, OccurredAt: &at}}); err != nil {
			t.Fatal(err)
		}
		if _, err := m.p.Run(ctx, pipeline.RunOptions{Steps: pipeline.Steps{Extract: true, Integrate: true}, Trigger: "test"}); err != nil {
			t.Fatal(err)
		}
		db := m.reader(t)
		text, err := hookctx.Prompt(ctx, db, "what were the round two agents called?", 400)
		if err != nil || !strings.Contains(text, "alice2, bob2 and carol2") || !strings.Contains(text, "raw conversation]") {
			t.Errorf("prompt added %q, %v; want the passage naming the agents", text, err)
		}
		if text, _ := hookctx.Prompt(ctx, db, "how do we rotate the TLS certificates?", 400); text != "" {
			t.Errorf("an unrelated prompt added %q", text)
		}
	})
}

// TestPromptCJK: a Chinese or Japanese prompt clears the relevance floor
// with the fact that holds its words inside an unspaced sentence, and not
// with one that holds none of them.
func TestPromptCJK(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine string) {
		m := newMemory(t, engine)
		m.say(t, "s1", "我们的项目用PostgreSQL做数据库，备份每天凌晨三点运行。", "東京のオフィスでは毎週金曜日にデプロイします。")
		db := m.reader(t)
		for _, tc := range []struct{ prompt, want, not string }{
			{"备份什么时候运行？", "凌晨三点", "東京"},
			{"デプロイは何曜日ですか", "金曜日", "备份"},
		} {
			text, err := hookctx.Prompt(context.Background(), db, tc.prompt, 400)
			if err != nil || !strings.Contains(text, tc.want) || strings.Contains(text, tc.not) {
				t.Errorf("prompt %q added %q, %v; want the fact with %q only", tc.prompt, text, err, tc.want)
			}
		}
	})
}

// TestKindSectionsReadTheKindIndexWithoutStatistics: a store no run has
// analysed (no sqlite_stat1, as every store under 10,000 facts and a large
// one before its first run) reads the session start's sections by kind
// through the kind index. SQLite's planner without statistics took the
// status index for kind IN (…), sorting every active fact.
func TestKindSectionsReadTheKindIndexWithoutStatistics(t *testing.T) {
	m := newMemory(t, "sqlite")
	r := m.reader(t)
	if stats := storetest.Column[string](t, r.Store(), `SELECT name FROM sqlite_schema WHERE name = 'sqlite_stat1'`); len(stats) != 0 {
		t.Fatalf("a new store holds statistics: %v", stats)
	}
	for _, cond := range hookctx.KindConds {
		query, args := hookctx.KindQuery(r, cond, 10)
		if p := storetest.QueryPlan(t, r.Store(), query, args...); !strings.Contains(p, "INDEX facts_kind") || strings.Contains(p, "facts_status") {
			t.Errorf("%s: plan %q, want the kind index alone", cond, p)
		}
	}
}

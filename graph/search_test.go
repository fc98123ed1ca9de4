package graph_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

func render(a graph.Answer) string {
	var b bytes.Buffer
	graph.RenderAnswer(&b, a)
	return b.String()
}

func TestSearchArmLabels(t *testing.T) {
	db := newDB(t)
	atlas := ent{name: "Atlas", typ: "project"}
	both := addFact(t, db, fact{content: "The Atlas migration is scheduled for March", entities: []ent{{name: "Atlas", typ: "project", subject: true, role: "subject"}}})
	entOnly := addFact(t, db, fact{content: "Sarah leads the migration team", entities: []ent{{name: "Sarah", typ: "person", subject: true}, atlas}})
	kwOnly := addFact(t, db, fact{content: "Coffee from the cafe near the office is good"})
	for _, c := range []string{"The build runs on every push", "Robin reviews the schema changes", "Tests must pass before merging"} {
		addFact(t, db, fact{content: c})
	}

	ans := search(t, db, graph.Query{Text: "Atlas"})
	if !slices.Equal(ans.Arms, []graph.Arm{graph.ArmKeyword, graph.ArmEntity}) {
		t.Fatalf("arms = %v, want keyword and entity only (no embeddings)", ans.Arms)
	}
	if got := ids(ans.Results); !slices.Equal(got, []int64{both, entOnly}) {
		t.Fatalf("results = %v, want [%d %d]", got, both, entOnly)
	}
	if got := graph.FoundBy(ans.Results[0]); got != "fused: keyword + entity" {
		t.Errorf("fused hit labelled %q", got)
	}
	eh := ans.Results[1]
	if got := graph.FoundBy(eh); !strings.HasPrefix(got, "entity only") || strings.Contains(got, "keyword match") {
		t.Errorf("entity-only hit labelled %q", got)
	}
	if len(eh.MatchedBy) != 1 || eh.MatchedBy[0].Arm != graph.ArmEntity || eh.MatchedBy[0].Detail != "Atlas" {
		t.Errorf("entity-only matched_by = %+v", eh.MatchedBy)
	}
	text := render(ans)
	line := text[strings.Index(text, "[fact 2]"):]
	line = line[:strings.Index(line, "domain ")]
	if strings.Contains(line, "keyword #") || !strings.Contains(line, "found by: entity only") {
		t.Errorf("entity-only hit rendered as:\n%s", line)
	}

	kw := search(t, db, graph.Query{Text: "coffee"})
	if len(kw.Results) != 1 || kw.Results[0].ID != kwOnly || graph.FoundBy(kw.Results[0]) != "keyword only" {
		t.Fatalf("coffee: %+v", kw.Results)
	}
	for _, a := range []graph.Answer{ans, kw} {
		for _, s := range []string{render(a), toJSON(t, a)} {
			if strings.Contains(strings.ToLower(s), "semantic") {
				t.Errorf("embeddings are off but the answer says semantic:\n%s", s)
			}
		}
	}
}

func TestSemanticArm(t *testing.T) {
	db := newDB(t)
	sp := vector.Space{Provider: "ollama", Model: "m", Dim: 3}
	near := addFact(t, db, fact{content: "I drive a small red car"})
	mid := addFact(t, db, fact{content: "Bicycles are my daily transport"})
	far := addFact(t, db, fact{content: "The sky was clear on Tuesday"})
	other := addFact(t, db, fact{content: "A vector of another model"})
	addVector(t, db, near, sp, []float32{1, 0, 0})
	addVector(t, db, mid, sp, []float32{0.9, 0.3, 0}) // cos ≈ 0.949: above both floors
	addVector(t, db, far, sp, []float32{0.2, 1, 0})   // cos ≈ 0.196: below the absolute floor
	addVector(t, db, other, vector.Space{Provider: "ollama", Model: "other", Dim: 3}, []float32{1, 0, 0})

	ans := search(t, db, graph.Query{Text: "automobile", Vector: []float32{1, 0, 0}, Space: sp})
	if !slices.Contains(ans.Arms, graph.ArmSemantic) {
		t.Fatalf("arms = %v, want semantic", ans.Arms)
	}
	if got := ids(ans.Results); !slices.Equal(got, []int64{near, mid}) {
		t.Fatalf("results = %v, want [%d %d] (far below the floor, other space never compared)", got, near, mid)
	}
	if m := ans.Results[0].MatchedBy; len(m) != 1 || m[0].Detail != "cosine 1.000" {
		t.Errorf("matched_by = %+v", m)
	}
	if got := graph.FoundBy(ans.Results[0]); got != "semantic only" {
		t.Errorf("label %q", got)
	}
	// Relative floor: with a best of 1.0, 0.75 is dropped even though above 0.3.
	weak := addFact(t, db, fact{content: "Trains run late"})
	addVector(t, db, weak, sp, []float32{0.75, 0.66, 0})
	ans = search(t, db, graph.Query{Text: "automobile", Vector: []float32{1, 0, 0}, Space: sp})
	if find(ans.Results, weak) != nil {
		t.Errorf("cosine ≈0.75 kept though under 0.8 × best")
	}
	bad := search(t, db, graph.Query{Text: "automobile", Vector: []float32{1, 0}, Space: sp})
	if slices.Contains(bad.Arms, graph.ArmSemantic) || len(bad.Notes) == 0 {
		t.Errorf("a vector of the wrong size must skip the arm with a note: %+v", bad)
	}
}

func TestSupersessionBringsSuccessor(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		lisbon := addFact(t, db, fact{content: "I live in Lisbon", said: dayN(1), recorded: dayN(1), events: []int64{1}})
		porto := addFact(t, db, fact{content: "I moved to Porto and live there now", said: dayN(5), recorded: dayN(5), events: []int64{7}})
		addFact(t, db, fact{content: "Lisbon has lovely trams"})
		supersede(t, db, lisbon, porto)

		ans := search(t, db, graph.Query{Text: "where do I live"})
		if len(ans.Results) == 0 || ans.Results[0].ID != porto {
			t.Fatalf("results = %v, want Porto (%d) first", ids(ans.Results), porto)
		}
		if find(ans.Results, lisbon) != nil {
			t.Fatalf("superseded fact in results without --history")
		}
		h := ans.Results[0]
		if len(h.Supersedes) != 1 || h.Supersedes[0].ID != lisbon || h.Supersedes[0].Content != "I live in Lisbon" {
			t.Errorf("supersedes = %+v", h.Supersedes)
		}
		if !slices.ContainsFunc(h.MatchedBy, func(m graph.Match) bool { return m.Via == lisbon }) {
			t.Errorf("matched_by = %+v, want a match via %d", h.MatchedBy, lisbon)
		}
		text := render(ans)
		for _, want := range []string{"also through supersession", "keyword #1 via superseded fact 1", `reached through supersession: it replaced [fact 1] "I live in Lisbon" (history, no longer current)`} {
			if !strings.Contains(text, want) {
				t.Errorf("rendered answer lacks %q:\n%s", want, text)
			}
		}

		hist := search(t, db, graph.Query{Text: "where do I live", History: true})
		old := find(hist.Results, lisbon)
		if old == nil || old.Status != "superseded" || old.SupersededBy != porto {
			t.Fatalf("--history: %+v", hist.Results)
		}
		if !strings.Contains(render(hist), `[fact 1] (SUPERSEDED by fact 2; history, not current) "I live in Lisbon"`) {
			t.Errorf("history not marked:\n%s", render(hist))
		}
	})
}

func TestSupersessionChain(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		a := addFact(t, db, fact{content: "My editor is vim"})
		b := addFact(t, db, fact{content: "I switched to emacs"})
		c := addFact(t, db, fact{content: "Now I prefer helix"})
		supersede(t, db, a, b)
		supersede(t, db, b, c)
		ans := search(t, db, graph.Query{Text: "editor vim"})
		if got := ids(ans.Results); !slices.Equal(got, []int64{c}) {
			t.Fatalf("results = %v, want only the chain's end %d", got, c)
		}
		if got := graph.FoundBy(ans.Results[0]); !strings.HasPrefix(got, "through supersession (keyword matched the fact it replaced") {
			t.Errorf("label %q", got)
		}
	})
}

func TestAsOf(t *testing.T) {
	for _, retracted := range []bool{true, false} {
		t.Run(fmt.Sprintf("retracted_at_set_%v", retracted), func(t *testing.T) {
			storetest.ForEach(t, func(t *testing.T, db *store.DB) {
				r := ""
				if retracted {
					r = dayN(5)
				}
				lisbon := addFact(t, db, fact{content: "I live in Lisbon", recorded: dayN(1), retracted: r})
				porto := addFact(t, db, fact{content: "I moved to Porto, where I live now", recorded: dayN(5)})
				supersede(t, db, lisbon, porto)
				day3, _ := time.Parse(time.RFC3339, dayN(3))
				then := search(t, db, graph.Query{Text: "where do I live", AsOf: day3})
				if got := ids(then.Results); !slices.Equal(got, []int64{lisbon}) {
					t.Errorf("as of day 3 got %v, want Lisbon %d", got, lisbon)
				}
				now := search(t, db, graph.Query{Text: "where do I live"})
				if got := ids(now.Results); !slices.Equal(got, []int64{porto}) {
					t.Errorf("now got %v, want Porto %d", got, porto)
				}
			})
		})
	}
}

func TestPendingAndEpisodesStayApart(t *testing.T) {
	db := newDB(t)
	addFact(t, db, fact{content: "The deploy runs on Fridays"})
	addPending(t, db, "s2", "The deploy moved to Thursdays")
	addEvent(t, db, "s3", "user", "let us talk about kubernetes")
	seq := addEvent(t, db, "s3", "assistant", "kubernetes clusters need care")
	addEvent(t, db, "s3", "user", "ok thanks")

	ans := search(t, db, graph.Query{Text: "deploy"})
	if len(ans.Results) != 1 || len(ans.Pending) != 1 || len(ans.Episodes) != 0 {
		t.Fatalf("deploy: %d results, %d pending, %d episodes; want 1, 1, 0", len(ans.Results), len(ans.Pending), len(ans.Episodes))
	}
	if strings.Contains(toJSON(t, ans.Results), "Thursdays") {
		t.Errorf("pending fact inside results")
	}
	text := render(ans)
	if !strings.Contains(text, "Pending (captured, not yet integrated; unverified, keyword match only):\n  - [pending 1] \"The deploy moved to Thursdays\"") {
		t.Errorf("pending not labelled:\n%s", text)
	}

	ep := search(t, db, graph.Query{Text: "kubernetes"})
	if len(ep.Results) != 0 || len(ep.Episodes) != 1 {
		t.Fatalf("kubernetes: %d results, %d episodes", len(ep.Results), len(ep.Episodes))
	}
	e := ep.Episodes[0]
	if e.Label != graph.EpisodeLabel || len(e.Events) != 3 || e.Events[0].Seq != seq-1 {
		t.Errorf("episode = %+v", e)
	}
	// A forgotten fact's sentence never resurfaces as an episode.
	mustExec(t, db, `INSERT INTO tombstones(digest, actor, created_at) VALUES (?, 'test', ?)`, store.Digest("kubernetes clusters need care"), dayN(0))
	if got := search(t, db, graph.Query{Text: "kubernetes"}); strings.Contains(toJSON(t, got), "need care") {
		t.Errorf("forgotten sentence shown in an episode: %+v", got.Episodes)
	}
	if text := render(ep); !strings.Contains(text, "No knowledge matches \"kubernetes\".") || !strings.Contains(text, "Episodes (raw conversation events, NOT knowledge") {
		t.Errorf("episodes not labelled:\n%s", text)
	}
}

// Where knowledge is thin, raw conversation fills in, and a raw passage
// competes with facts for the limit: a store fed transcripts whose facts
// are few still finds what was said, and a message that holds every word
// of the query is not crowded out by facts that hold fewer. Episodes never
// come around an event a result already cites, and the hit shows the
// passage around the query's words.
func TestEpisodesFillInWhereKnowledgeIsThin(t *testing.T) {
	db := newDB(t)
	for i := range 6 {
		addEvent(t, db, "s2", "user", fmt.Sprintf("filler line %d about lunch", i))
	}
	cited := addEvent(t, db, "s2", "user", "The dev server runs on port 4001")
	addFact(t, db, fact{content: "The dev server runs on port 4001", session: "s2", events: []int64{cited}})
	said := addEvent(t, db, "s2", "assistant", "Default port is 1100 for the spotter app.")
	for i := range 6 {
		addEvent(t, db, "s2", "user", fmt.Sprintf("more filler %d about lunch", i))
	}
	long := addEvent(t, db, "s3", "assistant", strings.Repeat("Unrelated notes on the build and the docs. ", 40)+
		"The staging bucket is named acme-stage-eu and lives in Frankfurt. "+strings.Repeat("More unrelated notes follow here. ", 40))

	ans := search(t, db, graph.Query{Text: "default port", Limit: 5})
	if len(ans.Results) != 1 || len(ans.Episodes) != 1 || ans.Episodes[0].HitSeq != said {
		t.Fatalf("default port: %d results, episodes %+v; want the fact and one episode around event %d (not the cited %d)", len(ans.Results), ans.Episodes, said, cited)
	}
	if text := render(ans); !strings.Contains(text, "Knowledge, 1 result") ||
		!strings.Contains(text, "Episodes (raw conversation events, NOT knowledge; shown because ranked with the facts for the limit:") ||
		!strings.Contains(text, "Default port is 1100") {
		t.Errorf("thin answer rendered:\n%s", text)
	}
	for _, ev := range ans.Episodes[0].Events {
		if ev.Seq == cited {
			t.Errorf("the episode repeats event %d, which the fact shown above cites", cited)
		}
	}
	// One place: the message holding both words takes it from the fact
	// holding one.
	if one := search(t, db, graph.Query{Text: "default port", Limit: 1}); len(one.Results) != 0 || len(one.Episodes) != 1 || one.Episodes[0].HitSeq != said {
		t.Errorf("limit 1: %d results, %d episodes; want the passage that holds both words", len(one.Results), len(one.Episodes))
	}
	// A fact holding every word keeps its place.
	if full := search(t, db, graph.Query{Text: "dev server port", Limit: 1}); len(full.Results) != 1 || len(full.Episodes) != 0 {
		t.Errorf("a fact holding every word of the query was displaced: %d results, %d episodes", len(full.Results), len(full.Episodes))
	}
	if only := search(t, db, graph.Query{Text: "lunch", KnowledgeOnly: true}); len(only.Episodes) != 0 {
		t.Errorf("a knowledge-only search read the event log: %d episodes", len(only.Episodes))
	}
	if budgeted := search(t, db, graph.Query{Text: "default port", Budget: 500}); len(budgeted.Episodes) != 0 {
		t.Errorf("a budgeted answer with facts carries %d episodes", len(budgeted.Episodes))
	}
	for _, lunch := range []graph.Query{{Text: "lunch", Limit: 10}, {Text: "lunch", Limit: 2}} {
		got := search(t, db, lunch)
		if len(got.Episodes) < min(graph.EpisodeHits, lunch.Limit) || len(got.Episodes) > lunch.Limit {
			t.Errorf("lunch, limit %d: %d episodes; want the limit's places filled with passages when nothing matched", lunch.Limit, len(got.Episodes))
		}
	}
	// A long message shows the passage around the hit, not its first lines.
	bucket := search(t, db, graph.Query{Text: "staging bucket name", Limit: 3})
	var shown string
	for _, ep := range bucket.Episodes {
		for _, ev := range ep.Events {
			if ev.Seq == long {
				shown = ev.Content
			}
		}
	}
	if !strings.Contains(shown, "acme-stage-eu") || len(shown) > graph.PassageChars+8 {
		t.Errorf("the long message's episode shows %d bytes: %q; want the passage around the staging bucket", len(shown), shown)
	}
}

func TestSearchEdgeCases(t *testing.T) {
	db := newDB(t)
	addFact(t, db, fact{content: "I live in 東京 and speak Русский"})
	addFact(t, db, fact{content: "Tests AND builds run in CI near midnight"})
	addPending(t, db, "s", "pending near text")
	addEvent(t, db, "s", "user", "some raw event with star * and quote \"")
	cases := []struct {
		name, q  string
		wantHits bool
	}{
		{"empty", "", false},
		{"punctuation", "?!.,;:()[]{}", false},
		{"AND", "AND", true},
		{"quote", `"`, false},
		{"unbalanced quote", `"tests builds`, true},
		{"star", "*", false},
		{"prefix star", "mid*", false},
		{"NEAR", "NEAR(tests builds)", true},
		{"column filter", "content:tests", true},
		{"caret", "^tests", true},
		{"10 kB", strings.Repeat("lorem ipsum dolor sit amet ", 400) + "midnight", true},
		{"japanese", "東京", true},
		{"cyrillic", "русский", true},
		{"emoji", "🙂🙂", false},
		{"nul byte", "tests\x00builds", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ans, err := graph.NewReader(db).Search(context.Background(), graph.Query{Text: tc.q})
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if got := len(ans.Results) > 0; got != tc.wantHits {
				t.Errorf("hits = %v, want %v (%+v)", got, tc.wantHits, ans)
			}
			if len(ans.Results) == 0 && len(ans.Notes) == 0 && len(ans.Episodes) == 0 && len(text.Sanitize(tc.q)) == 0 {
				t.Errorf("no hits and no note saying why")
			}
		})
	}
	long := search(t, db, graph.Query{Text: longQuery()})
	if len(long.Notes) == 0 || !strings.Contains(long.Notes[0], "only the first 64 were searched") {
		t.Errorf("long query notes = %v", long.Notes)
	}
}

func longQuery() string {
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString(" w")
		b.WriteString(strings.Repeat("x", i%7+1))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(string(rune('a' + (i/26)%26)))
	}
	return b.String()
}

func TestBudgetSkipsWhatDoesNotFit(t *testing.T) {
	db := newDB(t)
	short1 := addFact(t, db, fact{content: "Budget term one", importance: 0.9})
	long := addFact(t, db, fact{content: "Budget term " + strings.Repeat("padding ", 100), importance: 0.8})
	short2 := addFact(t, db, fact{content: "Budget term two", importance: 0.7})
	all := search(t, db, graph.Query{Text: "budget term"})
	if len(all.Results) != 3 {
		t.Fatalf("want 3 hits, got %v", ids(all.Results))
	}
	costShort := graph.EstimateTokens(*find(all.Results, short1))
	ans := search(t, db, graph.Query{Text: "budget term", Budget: 2*costShort + 2})
	if got := ids(ans.Results); find(ans.Results, long) != nil || !slices.Contains(got, short1) || !slices.Contains(got, short2) {
		t.Fatalf("budget results = %v, want both short facts and not the long one", got)
	}
	if ans.Budget == nil || ans.Budget.Skipped != 1 || ans.Budget.Used > ans.Budget.Budget {
		t.Errorf("budget report = %+v", ans.Budget)
	}
	if !strings.Contains(render(ans), "1 more result did not fit and was skipped") {
		t.Errorf("budget not reported:\n%s", render(ans))
	}
	roomy := search(t, db, graph.Query{Text: "budget term", Budget: 10000})
	if out := render(roomy); !strings.Contains(out, "budget: 10000 tokens, about ") || !strings.HasSuffix(out, " used; every result fit\n") {
		t.Errorf("a budget everything fits in:\n%s", out)
	}
}

func TestChronologicalDigestStable(t *testing.T) {
	db := newDB(t)
	c := addFact(t, db, fact{content: "Release notes: third", said: dayN(9)})
	a := addFact(t, db, fact{content: "Release notes: first", said: dayN(1)})
	b := addFact(t, db, fact{content: "Release notes: second tie", said: dayN(4)})
	b2 := addFact(t, db, fact{content: "Release notes: second tie again", said: dayN(4)})
	q := graph.Query{Text: "release notes", Order: graph.OrderChronological}
	first := search(t, db, q)
	if got := ids(first.Results); !slices.Equal(got, []int64{a, b, b2, c}) {
		t.Fatalf("order = %v, want time order with ties by id", got)
	}
	want := "[fact 2] 2026-03-02 \"Release notes: first\"\n[fact 3] 2026-03-05 \"Release notes: second tie\"\n" +
		"[fact 4] 2026-03-05 \"Release notes: second tie again\"\n[fact 1] 2026-03-10 \"Release notes: third\"\n"
	if first.Block != want || first.Digest != graph.Digest(want) || !strings.HasPrefix(first.Digest, "sha256:") {
		t.Fatalf("block = %q digest %s", first.Block, first.Digest)
	}
	again := search(t, db, q)
	addFact(t, db, fact{content: "Unrelated: the printer is broken", said: dayN(20), recorded: dayN(20)})
	after := search(t, db, q)
	if again.Digest != first.Digest || after.Digest != first.Digest || after.Block != first.Block {
		t.Errorf("digest moved: %s, %s, %s", first.Digest, again.Digest, after.Digest)
	}
	budget := graph.Query{Text: "release notes", Order: graph.OrderChronological, Budget: 40}
	b1 := search(t, db, budget)
	addFact(t, db, fact{content: "Release notes " + strings.Repeat("very long ", 80), said: dayN(30), recorded: dayN(30), importance: 0.1})
	b2ans := search(t, db, budget)
	if b1.Digest != b2ans.Digest || len(b1.Results) == 0 {
		t.Errorf("budgeted chronological digest moved after adding a fact that does not fit: %s vs %s", b1.Digest, b2ans.Digest)
	}
}

func TestAdjust(t *testing.T) {
	cases := []struct {
		name string
		imp  float64
		age  time.Duration
		want float64
	}{
		{"neutral, new", 0.5, 0, 1.03},
		{"important, new", 1, 0, 1.06},
		{"unimportant, ancient", 0, 100 * 365 * 24 * time.Hour, 0.97},
		{"half-life", 0.5, graph.RecencyHalfLife, 1.015},
		{"clamped", 7, -time.Hour, 1.06},
	}
	for _, tc := range cases {
		if got := graph.Adjust(tc.imp, tc.age); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("%s: Adjust = %v, want %v", tc.name, got, tc.want)
		}
	}
	// Two facts found at the same rank by one arm each: importance decides.
	db := newDB(t)
	low := addFact(t, db, fact{content: "alpha beta", importance: 0.1})
	high := addFact(t, db, fact{content: "beta alpha", importance: 0.9})
	if got := ids(search(t, db, graph.Query{Text: "alpha beta"}).Results); !slices.Equal(got, []int64{high, low}) {
		t.Errorf("order = %v, want the more important first", got)
	}
}

func TestDomainBiasesNeverFilters(t *testing.T) {
	db := newDB(t)
	work := addFact(t, db, fact{content: "The standup is at ten", domain: "work"})
	home := addFact(t, db, fact{content: "The standup desk arrives Monday", domain: "home"})
	plain := search(t, db, graph.Query{Text: "standup"})
	biased := search(t, db, graph.Query{Text: "standup", Domain: "home"})
	if len(plain.Results) != 2 || len(biased.Results) != 2 {
		t.Fatalf("domain filtered: %v vs %v", ids(plain.Results), ids(biased.Results))
	}
	if biased.Results[0].ID != home || plain.Results[0].ID != work {
		t.Errorf("plain %v, biased %v", ids(plain.Results), ids(biased.Results))
	}
	if only := search(t, db, graph.Query{Text: "desk", Domain: "work"}); slices.Contains(ids(only.Results), work) {
		t.Errorf("the domain arm added a fact no other arm found")
	}
}

func TestFoldMatchesIntegrate(t *testing.T) {
	for _, s := range []string{"Acme Corp", "acme-corp", "ACME_corp", "Ünïcode Straße", "東京 タワー", "  x  "} {
		if graph.Fold(s) != integrate.Fold(s) {
			t.Errorf("Fold(%q) = %q, integrate says %q", s, graph.Fold(s), integrate.Fold(s))
		}
	}
}

func TestContextOnlyHitIsNotCalledKeyword(t *testing.T) {
	db := newDB(t)
	addFact(t, db, fact{content: "Where did Ana travel last week?", session: "c", said: dayN(1), events: []int64{1}})
	rome := addFact(t, db, fact{content: "Rome, with two friends.", session: "c", said: dayN(1), events: []int64{2}})
	ans := search(t, db, graph.Query{Text: "where did Ana travel"})
	h := find(ans.Results, rome)
	if h == nil {
		t.Fatalf("the keyword arm did not lend context to the next turn: %v", ids(ans.Results))
	}
	if got := graph.FoundBy(*h); !strings.HasPrefix(got, "conversation context only") {
		t.Errorf("context-only hit labelled %q (matched_by %+v)", got, h.MatchedBy)
	}
	text := render(ans)
	block := text[strings.Index(text, "Rome, with two friends."):]
	if block = block[:strings.Index(block, "domain ")]; strings.Contains(block, "keyword #") || strings.Contains(block, "keyword only") {
		t.Errorf("the context-only hit is rendered as a keyword match:\n%s", block)
	}
}

// TestEntityArmReadsACommonEntitysNewest pins EntityFactCap: of an entity
// named by more facts than the cap, the entity arm ranks the facts whose
// subject it is first, then the newest, and never the oldest mentions.
func TestEntityArmReadsACommonEntitysNewest(t *testing.T) {
	db := newDB(t)
	orion := ent{name: "Orion", typ: "project"}
	subject := addFact(t, db, fact{content: "the rollout plan was written first",
		entities: []ent{{name: "Orion", typ: "project", role: "subject", subject: true}}})
	var mentions []int64
	for i := 0; i < graph.EntityFactCap+20; i++ {
		mentions = append(mentions, addFact(t, db, fact{content: fmt.Sprintf("rollout note %d", i), entities: []ent{orion}}))
	}
	for i := 0; i < 2*(graph.EntityFactCap+21); i++ {
		addFact(t, db, fact{content: fmt.Sprintf("unrelated note %d", i)}) // Orion on less than half the store
	}
	ans := search(t, db, graph.Query{Text: "Orion", Limit: 2 * graph.EntityFactCap})
	got := ids(ans.Results)
	if len(got) != graph.EntityFactCap {
		t.Fatalf("entity arm returned %d facts, want the cap %d", len(got), graph.EntityFactCap)
	}
	if got[0] != subject {
		t.Errorf("first hit %d, want the fact whose subject the entity is (%d)", got[0], subject)
	}
	newest := mentions[len(mentions)-(graph.EntityFactCap-1):]
	slices.Reverse(newest)
	if !slices.Equal(got[1:], newest) {
		t.Errorf("after the subject, hits %v…, want the newest mentions newest first %v…", got[1:4], newest[:3])
	}
	for _, h := range ans.Results {
		if len(h.MatchedBy) != 1 || h.MatchedBy[0].Arm != graph.ArmEntity || h.MatchedBy[0].Detail != "Orion" {
			t.Fatalf("hit %d matched_by = %+v, want the entity arm naming Orion", h.ID, h.MatchedBy)
		}
	}
}

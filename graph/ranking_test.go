package graph_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/recollect/recollect/graph"
)

// TestSuccessorRanksWhereItsPredecessorRanked: a fact reached only through
// two superseded predecessors takes the better predecessor's place, and
// never rises above a direct hit that ranked above both by collecting
// their matches.
func TestSuccessorRanksWhereItsPredecessorRanked(t *testing.T) {
	db := newDB(t)
	direct := addFact(t, db, fact{content: "The staging cluster runs on port 8080", session: "a"})
	old1 := addFact(t, db, fact{content: "The staging cluster runs on port 9000 for now", session: "b"})
	old2 := addFact(t, db, fact{content: "The staging cluster runs on port 9100 since May", session: "c"})
	succ := addFact(t, db, fact{content: "We moved it to the new hosts", session: "d"})
	addFact(t, db, fact{content: "Lunch is at noon", session: "e"})
	supersede(t, db, old1, succ)
	supersede(t, db, old2, succ)

	ans := search(t, db, graph.Query{Text: "staging cluster port"})
	got := ids(ans.Results)
	if !slices.Equal(got, []int64{direct, succ}) {
		t.Fatalf("results %v, want the direct hit %d first, then the successor %d", got, direct, succ)
	}
	h := ans.Results[1]
	if len(h.Supersedes) != 2 || h.Score >= ans.Results[0].Score {
		t.Fatalf("successor: supersedes %+v, score %.5f against the direct hit's %.5f", h.Supersedes, h.Score, ans.Results[0].Score)
	}
	vias := 0
	for _, m := range h.MatchedBy {
		if m.Via != 0 {
			vias++
		}
	}
	if vias < 2 {
		t.Fatalf("matched_by %+v: both predecessors' matches must still be shown", h.MatchedBy)
	}
}

// TestCommonEntityDoesNotReorderKeywordHits: an entity named by half the
// store says nothing about which fact is meant, so naming it must not
// lift a weaker keyword hit over the keyword arm's first.
func TestCommonEntityDoesNotReorderKeywordHits(t *testing.T) {
	db := newDB(t)
	caroline := ent{name: "Caroline", typ: "person"}
	best := addFact(t, db, fact{content: "The lake painting at sunrise is finished", session: "a"})
	second := addFact(t, db, fact{content: "Caroline started a painting class", session: "b", entities: []ent{caroline}})
	for i := 0; i < 10; i++ {
		es := []ent{}
		if i < 5 {
			es = append(es, caroline)
		}
		addFact(t, db, fact{content: fmt.Sprintf("Caroline mentioned errand number %d", i), session: fmt.Sprintf("x%d", i), entities: es})
	}
	// 12 facts, Caroline on 6 of them: half the store.
	ans := search(t, db, graph.Query{Text: "Caroline lake painting"})
	got := ids(ans.Results)
	if len(got) < 2 || got[0] != best || got[1] != second {
		t.Fatalf("results %v, want keyword #1 %d first and %d second", got, best, second)
	}
	for _, h := range ans.Results {
		for _, m := range h.MatchedBy {
			if m.Arm == graph.ArmEntity {
				t.Fatalf("fact %d found by the entity arm through an entity on half the store: %+v", h.ID, h.MatchedBy)
			}
		}
	}

	// A rare entity still votes: a fact about it without the word is found.
	orion := ent{name: "Orion", typ: "project"}
	about := addFact(t, db, fact{content: "The rollout waits for the security review", session: "o", entities: []ent{orion}})
	ans = search(t, db, graph.Query{Text: "Orion"})
	if h := find(ans.Results, about); h == nil || h.MatchedBy[0].Arm != graph.ArmEntity {
		t.Fatalf("results %v: the fact naming the rare entity Orion was not found by the entity arm", ids(ans.Results))
	}
}

// TestContextOnlyHitsNeedAQuestionAndLeaveRoom pins the demo: the turn
// said before a statement is not its context ("search Atlas" must not
// bring the shellfish allergy), while the answer after a question is; and
// context-only hits take at most half the places while direct hits remain.
func TestContextOnlyHitsNeedAQuestionAndLeaveRoom(t *testing.T) {
	db := newDB(t)
	allergy := addFact(t, db, fact{content: "I am allergic to shellfish, so restaurant suggestions must avoid it.", session: "demo", said: dayN(1), events: []int64{2}})
	atlas := addFact(t, db, fact{content: "My colleague Robin at Acme is leading the Atlas migration to Postgres this quarter.", session: "demo", said: dayN(1), events: []int64{3}})
	ans := search(t, db, graph.Query{Text: "Atlas"})
	if got := ids(ans.Results); !slices.Equal(got, []int64{atlas}) || find(ans.Results, allergy) != nil {
		t.Fatalf("search Atlas = %v, want only the Atlas fact %d (not the allergy %d said before it)", got, atlas, allergy)
	}

	hello := addFact(t, db, fact{content: "Good to see you again, it has been months.", session: "trip", said: dayN(2), events: []int64{10}})
	question := addFact(t, db, fact{content: "Where did Ana travel in spring?", session: "trip", said: dayN(2), events: []int64{11}})
	answer := addFact(t, db, fact{content: "Rome, with two friends.", session: "trip", said: dayN(2), events: []int64{12}})
	weak := addFact(t, db, fact{content: "Someone said the company will travel to the offsite by train, the bus, or a rented van next year.", session: "other", said: dayN(2), events: []int64{20}})
	all := search(t, db, graph.Query{Text: "where did Ana travel", Limit: 10})
	for _, id := range []int64{question, hello, answer, weak} {
		if find(all.Results, id) == nil {
			t.Fatalf("results %v lack %d: the question, the turns around it and the weak direct hit are all found", ids(all.Results), id)
		}
	}
	if p, w := slices.Index(ids(all.Results), answer), slices.Index(ids(all.Results), weak); p > w {
		t.Fatalf("results %v: the answer to the question (%d) ranks below the weak direct hit (%d); the test no longer tests the cap", ids(all.Results), answer, weak)
	}
	top := search(t, db, graph.Query{Text: "where did Ana travel", Limit: 3})
	context := 0
	for _, h := range top.Results {
		if h.OnlyContext() {
			context++
		}
	}
	if context > 1 || find(top.Results, weak) == nil || top.Results[0].ID != question {
		t.Fatalf("limit 3: results %v with %d context-only hits; want the question first, at most one context-only hit, and the weak direct hit kept", ids(top.Results), context)
	}
}

// TestEntityNeverLiftsAHitOverKeywordFirst: even a rare entity, whose vote
// counts in full, does not lift the keyword arm's second hit above its
// first; the hit still says the entity arm found it.
func TestEntityNeverLiftsAHitOverKeywordFirst(t *testing.T) {
	db := newDB(t)
	orion := ent{name: "Orion", typ: "project"}
	first := addFact(t, db, fact{content: "The Orion rollout starts on Monday", session: "a"})
	second := addFact(t, db, fact{content: "Orion owners meet every week", session: "b", entities: []ent{orion}})
	for i := 0; i < 10; i++ {
		addFact(t, db, fact{content: fmt.Sprintf("unrelated note %d", i), session: fmt.Sprintf("x%d", i)})
	}
	ans := search(t, db, graph.Query{Text: "Orion rollout"})
	got := ids(ans.Results)
	if len(got) < 2 || got[0] != first || got[1] != second {
		t.Fatalf("results %v, want keyword #1 %d first, then %d", got, first, second)
	}
	if !slices.ContainsFunc(ans.Results[1].MatchedBy, func(m graph.Match) bool { return m.Arm == graph.ArmEntity }) {
		t.Fatalf("matched_by %+v: the entity arm's find must still be shown", ans.Results[1].MatchedBy)
	}
}

// TestEntityVotesOnlyWhereWordsDidNotFind: a fact naming a rare entity of
// the query is not lifted by the entity arm over a fact holding more of
// the query's words (the keyword arm already counted the name); it keeps
// the entity arm's label, and a fact about the entity that does not spell
// its name still gets the entity's vote.
func TestEntityVotesOnlyWhereWordsDidNotFind(t *testing.T) {
	db := newDB(t)
	portland := ent{name: "Portland", typ: "place"}
	all := addFact(t, db, fact{content: "The indie venues I liked most in Portland were Mississippi Studios and Doug Fir", session: "a"})
	more := addFact(t, db, fact{content: "Small indie venues often book local bands on weeknights", session: "b"})
	named := addFact(t, db, fact{content: "Portland had rain all week", session: "c", entities: []ent{portland}})
	about := addFact(t, db, fact{content: "The city's food carts stay open late", session: "d", entities: []ent{portland}})
	for i := 0; i < 10; i++ {
		addFact(t, db, fact{content: fmt.Sprintf("unrelated note %d", i), session: fmt.Sprintf("x%d", i)})
	}
	ans := search(t, db, graph.Query{Text: "indie venues in Portland", Limit: 10})
	got := ids(ans.Results)
	if len(got) < 4 || !slices.Equal(got[:3], []int64{all, more, named}) || got[3] != about {
		t.Fatalf("results %v, want %d, %d (more of the query's words), %d (the name), then %d (about the entity, not naming it)",
			got, all, more, named, about)
	}
	if !slices.ContainsFunc(ans.Results[2].MatchedBy, func(m graph.Match) bool { return m.Arm == graph.ArmEntity }) {
		t.Fatalf("matched_by %+v: the entity arm's find must still be shown", ans.Results[2].MatchedBy)
	}
	if h := ans.Results[3]; len(h.MatchedBy) != 1 || h.MatchedBy[0].Arm != graph.ArmEntity || h.Score <= 0 {
		t.Fatalf("fact about the entity: matched_by %+v score %g, want an entity vote", h.MatchedBy, h.Score)
	}
}

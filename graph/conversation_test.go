package graph

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// turn is one fact of a test conversation.
type turn struct{ speaker, text string }

// addConversation stores turns as events and active facts of session, in
// order, and returns the fact ids.
func addConversation(tb testing.TB, db *store.DB, session string, turns []turn) []int64 {
	tb.Helper()
	ctx := context.Background()
	var ids []int64
	for _, tu := range turns {
		content := tu.speaker + ": " + tu.text
		if err := store.TouchSession(ctx, db, session, "record", "", "", time.Now()); err != nil {
			tb.Fatal(err)
		}
		var seq, id int64
		if err := db.QueryRowContext(ctx, `INSERT INTO session_events(session_id, source, role, speaker, event_type, content_type, content, recorded_at)
			VALUES (?, 'record', 'user', ?, 'message', 'text', ?, ?) RETURNING seq`, session, tu.speaker, content, store.Now()).Scan(&seq); err != nil {
			tb.Fatal(err)
		}
		if err := db.QueryRowContext(ctx, `INSERT INTO facts(content, digest, producer, speaker, session_id, recorded_at) VALUES (?,?,?,?,?,?) RETURNING id`,
			content, store.Digest(content), "capture", tu.speaker, session, store.Now()).Scan(&id); err != nil {
			tb.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO fact_provenance(fact_id, event_seq, session_id, added_at) VALUES (?,?,?,?)`, id, seq, session, store.Now()); err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func rank(tb testing.TB, db *store.DB, q string) []int64 {
	tb.Helper()
	kr, err := NewReader(db).RankKeyword(context.Background(), text.Analyze(q), Filter{Believed: true}, 10)
	if err != nil {
		tb.Fatal(err)
	}
	for id := range kr.Context {
		if position(kr.IDs, id) == 0 {
			tb.Fatalf("context id %d is not among the ranked ids %v", id, kr.IDs)
		}
	}
	return kr.IDs
}

func position(ids []int64, id int64) int {
	for i, x := range ids {
		if x == id {
			return i + 1
		}
	}
	return 0
}

func TestRankKeywordFindsTheAnswerNextToTheQuestion(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		s1 := addConversation(t, db, "s1", []turn{
			{"Gina", "Where did you travel last week?"},
			{"Jon", "Rome! I needed to clear my mind."},
			{"Gina", "Lovely. My store is busy."},
		})
		addConversation(t, db, "s2", []turn{
			{"Jon", "I travel for dance competitions sometimes."},
			{"Gina", "The week was long."},
		})
		ids := rank(t, db, "Where did Jon travel last week?")
		if p := position(ids, s1[1]); p == 0 || p > 3 {
			t.Fatalf("Jon's answer (fact %d) is at position %d of %v; want it in the top 3: it answers the question asked just before it", s1[1], p, ids)
		}
		kr, err := NewReader(db).RankKeyword(context.Background(), text.Analyze("Where did Jon travel last week?"), Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !kr.Context[s1[1]] || kr.Context[s1[0]] {
			t.Fatalf("context set %v: want the answer %d marked as found by context and the question %d not", kr.Context, s1[1], s1[0])
		}
	})
}

// TestRankKeywordFindsTheAnswerAcrossAQuestion: the answer to a
// question asked about a hit ("How did it go?") is the turn after the
// question, two turns from the hit's words; it is found as context
// (AcrossShare), while a turn after a statement that asks nothing is not.
func TestRankKeywordFindsTheAnswerAcrossAQuestion(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		s1 := addConversation(t, db, "s1", []turn{
			{"Jon", "I went to a pottery workshop yesterday."},
			{"Gina", "How did it go?"},
			{"Jon", "Wonderful, I made a blue bowl and felt calm."},
			{"Gina", "Lovely. My store is busy."},
			{"Jon", "The pottery workshop closes in May."},
			{"Gina", "Good."},
			{"Jon", "The rent is due."},
		})
		addConversation(t, db, "s2", []turn{
			{"Jon", "The weather turned."},
			{"Gina", "The week was long."},
		})
		ids := rank(t, db, "what happened at the pottery workshop")
		if p := position(ids, s1[2]); p == 0 || p > 3 {
			t.Fatalf("the answer (fact %d) is at position %d of %v; want it in the top 3: it answers the question asked about the workshop", s1[2], p, ids)
		}
		if p := position(ids, s1[6]); p != 0 {
			t.Fatalf("fact %d, two turns after a statement with no question between, is at position %d of %v; want it not found", s1[6], p, ids)
		}
		kr, err := NewReader(db).RankKeyword(context.Background(), text.Analyze("what happened at the pottery workshop"), Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !kr.Context[s1[2]] {
			t.Fatalf("context set %v: want the answer %d marked as found by context", kr.Context, s1[2])
		}
	})
}

// TestAcrossQueryReadsByIndex: the facts across a question are read by
// seeks, never by a scan of the facts or the provenance.
func TestAcrossQueryReadsByIndex(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	text := storetest.QueryPlan(t, db, acrossQuery(db.Engine(), "f.status != 'rejected'"), "[1,2]")
	t.Logf("plan:\n%s", text)
	if !strings.Contains(text, "SEARCH mp USING INDEX fact_provenance_fact_seq (fact_id=?)") || strings.Contains(text, "SCAN f ") ||
		strings.Contains(text, "SCAN mp") || strings.Contains(text, "SCAN p ") || strings.Contains(text, "SCAN m ") {
		t.Fatalf("across query plan:\n%s\nwant seeks only, the middle fact's provenance by its id", text)
	}
}

// TestRankKeywordRanksWhatIsSaidAboveWhatIsAsked: a turn that only asks
// about the query's words ("Are you reading any good books lately?")
// ranks below one that says something of them, though it holds more of
// them (QuestionShare).
func TestRankKeywordRanksWhatIsSaidAboveWhatIsAsked(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		s1 := addConversation(t, db, "s1", []turn{
			{"Gina", "Cool! Are you reading any good books lately?"},
			{"Jon", "Not much, work is busy."},
		})
		s2 := addConversation(t, db, "s2", []turn{
			{"Jon", "I finished two books on sailing, great reading."},
			{"Gina", "The week was long."},
			{"Jon", "The harbour was calm today."},
		})
		ids := rank(t, db, "books reading")
		if p, q := position(ids, s2[0]), position(ids, s1[0]); p == 0 || q == 0 || p > q {
			t.Fatalf("the statement (fact %d) is at position %d and the question (fact %d) at %d of %v; want the statement first", s2[0], p, s1[0], q, ids)
		}
	})
}

func TestRankKeywordPrefersTheNamedSpeaker(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		a := addConversation(t, db, "s1", []turn{{"Caroline", "I researched adoption agencies."}})
		b := addConversation(t, db, "s2", []turn{{"Melanie", "I researched adoption agencies too."}})
		ids := rank(t, db, "What did Melanie research?")
		if position(ids, b[0]) != 1 || position(ids, a[0]) == 0 {
			t.Fatalf("ranking %v; want Melanie's fact %d first and Caroline's %d after it", ids, b[0], a[0])
		}
		ids = rank(t, db, "What did Caroline research?")
		if position(ids, a[0]) != 1 {
			t.Fatalf("ranking %v; want Caroline's fact %d first", ids, a[0])
		}
	})
}

func TestRankKeywordWithoutNamesKeepsBM25Order(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ids := addConversation(t, db, "s1", []turn{
			{"user", "The deploy uses blue green switching on the staging cluster."},
			{"user", "Lunch was good."},
			{"user", "Staging cluster deploy blue green."},
		})
		got := rank(t, db, "blue green deploy staging")
		if len(got) < 2 || got[0] != ids[2] || got[1] != ids[0] {
			t.Fatalf("ranking %v; want the denser match %d then %d", got, ids[2], ids[0])
		}
		if p := position(got, ids[1]); p != 0 {
			t.Fatalf("ranking %v: the unrelated turn between two statements (%d) was listed as their context", got, ids[1])
		}
	})
}

func TestRankKeywordRespectsTheCondition(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ids := addConversation(t, db, "s1", []turn{{"user", "postgres is the database"}, {"user", "postgres runs on port 5432"}})
		if _, err := db.ExecContext(context.Background(), `UPDATE facts SET status = 'superseded' WHERE id = ?`, ids[0]); err != nil {
			t.Fatal(err)
		}
		got := rank(t, db, "postgres")
		if len(got) != 1 || got[0] != ids[1] {
			t.Fatalf("ranking %v; want only the active fact %d (neither as a hit nor as a neighbour may a superseded fact return)", got, ids[1])
		}
	})
}

func TestRankKeywordEmptyQuery(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		if got := rank(t, db, "?!"); len(got) != 0 {
			t.Fatalf("ranking %v for a query without words", got)
		}
	})
}

// TestRankKeywordLooksDeeperPastFilteredMatches pins the BM25 pool: when
// the filter turns away some of the keywordPool best matches and more match, the
// pool is filled from the best twice keywordPool matches.
func TestRankKeywordLooksDeeperPastFilteredMatches(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		n := keywordPool + keywordPool/4
		for i := 0; i < n; i++ {
			content := fmt.Sprintf("zebra crossing %03d", i)
			if _, err := db.ExecContext(context.Background(), `INSERT INTO facts(content, digest, producer, recorded_at) VALUES (?,?,'capture',?)`,
				content, store.Digest(content), store.Now()); err != nil {
				t.Fatal(err)
			}
		}
		// Every match ranks alike, so FTS5's best keywordPool are the lowest
		// ids; the filter turns the first half of them away (rejected facts
		// are never candidates).
		if _, err := db.ExecContext(context.Background(), `UPDATE facts SET status = 'rejected' WHERE id <= ?`, keywordPool/2); err != nil {
			t.Fatal(err)
		}
		kr, err := NewReader(db).RankKeyword(context.Background(), text.Analyze("zebra"), Filter{}, 2*keywordPool)
		if err != nil {
			t.Fatal(err)
		}
		if want := n - keywordPool/2; len(kr.IDs) != want {
			t.Fatalf("ranked %d facts, want all %d that pass the condition", len(kr.IDs), want)
		}
	})
}

// TestNeighborQueryReadsByIndex: a captured hit's neighbours are found
// with a seek on the capture-order index, never by sorting its session's
// facts, so a session of thousands of captures costs a search no more.
func TestNeighborQueryReadsByIndex(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	text := storetest.QueryPlan(t, db, neighborQuery(db.Engine(), "f.status != 'rejected'"), "[1,2]")
	t.Logf("plan:\n%s", text)
	if strings.Count(text, "fact_provenance_session_capture") < 2 || strings.Contains(text, "TEMP B-TREE") {
		t.Fatalf("neighbour query plan:\n%s\nwant two seeks on fact_provenance_session_capture and no sort", text)
	}
}

// TestSharedNeighborTakesTheLowestSeedsSession: a fact said in two
// sessions, next to a seed in each, joins the session of the seed with the
// lower id whatever order the neighbours' rows came in, so the engines
// (whose statements return them in different orders) agree.
func TestSharedNeighborTakesTheLowestSeedsSession(t *testing.T) {
	for _, reversed := range []bool{false, true} {
		a := &candidate{id: 7, session: "s-a", own: 1, matched: true}
		b := &candidate{id: 3, session: "s-b", own: 2, matched: true}
		order := []*candidate{b, a}
		cands := map[int64]*candidate{a.id: a, b.id: b}
		near := []neighbor{{seed: a.id, id: 20, session: "s-a", asks: true}, {seed: b.id, id: 20, session: "s-b", asks: true}}
		if reversed {
			near[0], near[1] = near[1], near[0]
		}
		if _, err := lendToNeighbors(context.Background(), nil, order, cands, nil, false, "", nil, near, false); err != nil {
			t.Fatal(err)
		}
		got := cands[20]
		if got == nil || got.session != "s-b" || got.lent != NeighborShare*b.own {
			t.Fatalf("rows reversed=%v: the shared neighbour is %+v; want session s-b (seed 3, the lower id) and the better seed's share %v",
				reversed, got, NeighborShare*b.own)
		}
	}
}

// TestRankKeywordLendsToAMatchedNeighbour: a hit that asks nothing still
// lends to a neighbour the query matched: of two equal matches in one
// session, the one said right after a strong hit ranks higher, on every
// engine (PostgreSQL looks such neighbours up in the pool, not in facts).
func TestRankKeywordLendsToAMatchedNeighbour(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ids := addConversation(t, db, "s1", []turn{
			{"user", "Staging notes one."},
			{"user", "Lunch was good."},
			{"user", "The weather turned."},
			{"user", "The staging cluster deploy runs blue green on staging."},
			{"user", "Staging notes two."},
		})
		got := rank(t, db, "staging cluster")
		far, near := position(got, ids[0]), position(got, ids[4])
		if position(got, ids[3]) != 1 || near == 0 || far == 0 || near > far {
			t.Fatalf("ranking %v; want the strong hit %d, and the equal match said after it (%d) above the one said far from it (%d)",
				got, ids[3], ids[4], ids[0])
		}
	})
}

// keywordFixture stores, on db, two conversations of questions and
// statements side by side: a fact next to a question and a statement, a
// rejected fact and a superseded one, so a believed-only filter reads the
// columns of the chain (Filter.where).
func keywordFixture(t *testing.T, db *store.DB) {
	ctx := context.Background()
	addConversation(t, db, "s1", []turn{
		{"Gina", "Where is the staging cluster now?"},
		{"Jon", "It moved to the new hosts."},
		{"Gina", "The staging cluster deploy runs blue green on the staging hosts."},
		{"Jon", "Good to know about staging."},
		{"Gina", "Lunch was fine."},
	})
	addConversation(t, db, "s2", []turn{
		{"Jon", "Did the staging deploy finish?"},
		{"Gina", "Yes, an hour ago."},
		{"Jon", "The staging hosts are quiet."},
		{"Gina", "Staging is green again?"},
		{"Jon", "Rejected words."},
	})
	if _, err := db.ExecContext(ctx, `UPDATE facts SET status = 'rejected' WHERE content = 'Jon: Rejected words.'`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE facts SET status = 'superseded', superseded_by = (SELECT id FROM facts WHERE content = 'Jon: The staging hosts are quiet.')
		WHERE content = 'Jon: Good to know about staging.'`); err != nil {
		t.Fatal(err)
	}
}

// keywordFilters are the queries and filters the keyword fixture is
// searched with: a speaker in the query, and filters that read more of a
// fact (believed only, as of a time).
func keywordFilters() []struct {
	q string
	f Filter
} {
	later := time.Now().Add(time.Hour)
	return []struct {
		q string
		f Filter
	}{{"staging cluster", Filter{}}, {"staging hosts deploy", Filter{}}, {"where did Jon put staging", Filter{}}, {"green", Filter{}},
		{"staging hosts deploy", Filter{Believed: true}}, {"staging hosts deploy", Filter{AsOf: later}},
		{"staging hosts deploy", Filter{AsOf: later, Believed: true}}}
}

// TestPoolWithNeighborsLendsAsReadingThemApart: on PostgreSQL, the pool
// and neighbours read in one statement (its store.Engine.KeywordPool: only
// an asking seed's neighbours from facts, the others looked up among the
// candidates, the pool's columns carried through the ranking) lend exactly
// as the pool read alone (store.KeywordPoolAlone, as SQLite reads it) and
// every neighbour read apart do: questions and statements side by side, a
// fact next to a question and a statement, a speaker in the query, a
// rejected neighbour, a superseded fact, and filters that read more of a
// fact (believed only, as of a time).
func TestPoolWithNeighborsLendsAsReadingThemApart(t *testing.T) {
	db := storetest.Open(t, "postgres")
	ctx := context.Background()
	keywordFixture(t, db)
	r := NewReader(db)
	defer r.Close()
	for _, fq := range keywordFilters() {
		q := fq.q
		cond, args := (&Reader{}).where(fq.f)
		a := text.Analyze(q)
		speakers, err := knownSpeakers(ctx, r, a.Names)
		if err != nil {
			t.Fatal(err)
		}
		names := slices.Sorted(maps.Keys(speakers))
		pq := store.PoolQuery{Text: a.WithoutNames(speakers).Query(), Cond: cond, Args: args, Ranked: keywordPool,
			Size: keywordPool, Speakers: names, Boost: 1 + SpeakerBoost, Seeds: neighborSeeds}
		lent := func(statement func(context.Context, store.Conn, store.PoolQuery) (store.PoolStatement, error)) map[int64]candidate {
			st, err := statement(ctx, db, pq)
			if err != nil {
				t.Fatal(err)
			}
			order, near, _, err := readPool(ctx, r, st)
			if err != nil {
				t.Fatal(err)
			}
			cands := map[int64]*candidate{}
			for _, c := range order {
				if speakers[c.speaker] {
					c.own *= 1 + SpeakerBoost
				}
				cands[c.id] = c
			}
			slices.SortStableFunc(order, func(a, b *candidate) int { return cmp.Compare(b.own, a.own) })
			if _, err := lendToNeighbors(ctx, r, order, cands, speakers, false, cond, args, near, !st.Neighbours); err != nil {
				t.Fatal(err)
			}
			out := map[int64]candidate{}
			for id, c := range cands {
				out[id] = candidate{id: c.id, session: c.session, own: c.own, lent: c.lent, matched: c.matched}
			}
			return out
		}
		apart, together := lent(store.KeywordPoolAlone), lent(db.Engine().KeywordPool)
		if len(apart) == 0 {
			t.Fatalf("%q: no candidates", q)
		}
		if !reflect.DeepEqual(apart, together) {
			t.Errorf("%q (%+v): in one statement %v; read apart %v", q, fq.f, together, apart)
		}
	}
}

// TestKeywordArmFindsTheSameOnBothEngines: the keyword arm, one algorithm
// over the rows each engine supplies, finds the same facts on SQLite and
// PostgreSQL for the same store, the same of them only as conversation
// context, and the same speakers. Their order follows each engine's text
// score (FTS5's bm25() and PostgreSQL's BM25-shaped ts_rank sum), which
// are not the same numbers, so it is not compared.
func TestKeywordArmFindsTheSameOnBothEngines(t *testing.T) {
	ctx := context.Background()
	got := map[string][]KeywordRanking{}
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		keywordFixture(t, db)
		r := NewReader(db)
		defer r.Close()
		for _, fq := range keywordFilters() {
			kr, err := r.RankKeyword(ctx, text.Analyze(fq.q), fq.f, 20)
			if err != nil {
				t.Fatal(err)
			}
			if len(kr.IDs) == 0 {
				t.Fatalf("%q (%+v): nothing found", fq.q, fq.f)
			}
			slices.Sort(kr.IDs)
			got[db.Engine().Name()] = append(got[db.Engine().Name()], kr)
		}
	})
	lite, pg := got["sqlite"], got["postgres"]
	if pg == nil {
		return // PostgreSQL skipped, saying why
	}
	for i, fq := range keywordFilters() {
		if !reflect.DeepEqual(lite[i], pg[i]) {
			t.Errorf("%q (%+v): SQLite %+v; PostgreSQL %+v", fq.q, fq.f, lite[i], pg[i])
		}
	}
}

// TestFirstPersonQuestionFindsWhatTheAskerSaid: "what lens do I use"
// asks about the person asking; what they said of themselves ("I use…")
// ranks above a text that only shares the topic's words, which plain
// content words would rank first.
func TestFirstPersonQuestionFindsWhatTheAskerSaid(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ids := addConversation(t, db, "s1", []turn{
			{"Ana", "For portraits I use a 50mm lens on most days, my favourite."},
			{"Ben", "Lens guide: use a zoom lens, or use a prime lens."},
			{"Ana", "The garden needs water."},
		})
		got := rank(t, db, "What lens do I use?")
		if own, guide := position(got, ids[0]), position(got, ids[1]); own == 0 || guide == 0 || own > guide {
			t.Fatalf("ranking %v; want what the asker said (%d) above the guide that only shares the words (%d)", got, ids[0], ids[1])
		}
		if got := rank(t, db, "What lens do they use?"); position(got, ids[1]) != 1 {
			t.Fatalf("ranking %v; a question not in the first person keeps plain keyword order (%d first)", got, ids[1])
		}
	})
}

func TestKeywordQueryAddsFirstPersonWords(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"What lens do I use?", []string{"lens", "use", "i"}},
		{"Where is my bike? Tell me.", []string{"bike", "tell", "my", "me"}},
		{"who am I", []string{"who", "am", "i"}},
		{"What lens do they use?", []string{"lens", "use"}},
	} {
		if got := text.Analyze(c.q).KeywordQuery(); !slices.Equal([]string(got), c.want) {
			t.Errorf("KeywordQuery(%q) = %q, want %q", c.q, got, c.want)
		}
	}
}

// TestEchoingReplyInheritsOnlyWhatItLacks: a reply that holds a query
// word and follows a strong hit that asks inherits NeighborShare of what
// the hit scores above it, not of the hit's whole score, so it does not
// pass a turn that holds more of the query on its own; a reply holding
// none of the words inherits the full share.
func TestEchoingReplyInheritsOnlyWhatItLacks(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ids := addConversation(t, db, "s1", []turn{
			{"Ana", "Which guitar amp gives the warmest tone?"},
			{"Ben", "Any amp works if you like the sound of it."},
			{"Ana", "Lunch was good."},
			{"Ben", "The weather turned."},
			{"Ana", "My guitar tone got warmer with the valve amp I bought in May."},
		})
		addConversation(t, db, "s2", []turn{{"Ana", "The garden needs water."}, {"Ben", "The bus was late."}})
		got := rank(t, db, "guitar amp tone")
		question, echo, direct := position(got, ids[0]), position(got, ids[1]), position(got, ids[4])
		if question == 0 || echo == 0 || direct == 0 || direct > echo {
			t.Fatalf("ranking %v; want the turn holding the query's words (%d) above the reply that follows the question (%d)",
				got, ids[4], ids[1])
		}
	})
}

// TestRankKeywordFirstPersonQuestion: a question about the asker ranks
// what someone said of themselves above a reply that holds more of the
// question's words, on every engine; a question that addresses someone
// ("what did you …") asks what they said (AsksYou), and gets no such lift.
func TestRankKeywordFirstPersonQuestion(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ids := addConversation(t, db, "s1", []turn{
			{"Ana", "I am currently reading a book about old Hollywood."},
			{"Bot", "Reading before bed helps; is the book you are currently reading good?"},
			{"Ana", "Lunch was good."},
			{"Bot", "The weather turned."},
		})
		// "I" is on most facts, as in any conversation, so BM25 weighs it
		// at almost nothing.
		for _, filler := range []string{"I wrote the staging notes.", "I think the deploy runs at noon.", "I saw the tests pass.",
			"I made coffee.", "I fixed the parser.", "I moved the meeting.", "I like the new desk.", "I renamed the branch."} {
			addConversation(t, db, "s2", []turn{{"Ana", filler}})
		}
		if got := rank(t, db, "What book am I currently reading?"); position(got, ids[0]) != 1 {
			t.Errorf("first-person question: ranking %v; want what Ana said of herself (%d) first", got, ids[0])
		}
	})
	for _, tc := range []struct {
		q    string
		asks bool
	}{
		{"What book am I currently reading?", false},
		{"What book did you recommend to me?", true},
		{"Can you remind me of your advice?", true},
	} {
		if got := text.Analyze(tc.q).AsksYou; got != tc.asks {
			t.Errorf("text.Analyze(%q).AsksYou = %v, want %v", tc.q, got, tc.asks)
		}
	}
}

// TestSelfWeight: a first-person word lifts a hit for a question about the
// asker, a second-person word lowers it by as much, and one of each
// cancels out.
func TestSelfWeight(t *testing.T) {
	for _, c := range []struct {
		first, second, want float64
	}{
		{0, 0, 1},
		{1, 0, 1 + SelfShare/2},
		{0, 1, 1 / (1 + SelfShare/2)},
		{1, 1, 1},
		{3, 1, (1 + SelfShare*3/4) / (1 + SelfShare/2)},
	} {
		if got := selfWeight(c.first, c.second); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("selfWeight(%v, %v) = %v, want %v", c.first, c.second, got, c.want)
		}
	}
}

// TestFirstPersonQuestionRanksTheAskersAccountAboveAReplyToThem: for a
// question about the asker, a reply that speaks to "you" and repeats the
// question's words ranks below what the asker said of themselves, though
// BM25 alone ranks the reply first; a question that does not ask about the
// asker keeps BM25's order.
func TestFirstPersonQuestionRanksTheAskersAccountAboveAReplyToThem(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		own := addConversation(t, db, "s1", []turn{{"Ana", "I am currently reading a long book about old Hollywood, its studios and its stars."}})
		reply := addConversation(t, db, "s2", []turn{{"Bot", "The book you are currently reading is good. I can help you."}})
		for _, filler := range []string{"I wrote the staging notes.", "I think the deploy runs at noon.", "I saw the tests pass.",
			"I made coffee.", "I fixed the parser.", "I moved the meeting.", "I like the new desk.", "I renamed the branch."} {
			addConversation(t, db, "s3", []turn{{"Ana", filler}})
		}
		got := rank(t, db, "What book am I currently reading?")
		if o, r := position(got, own[0]), position(got, reply[0]); o == 0 || r == 0 || o > r {
			t.Fatalf("ranking %v; want the asker's own account (%d) above the reply to them (%d)", got, own[0], reply[0])
		}
		got = rank(t, db, "What book is he currently reading?")
		if position(got, reply[0]) != 1 {
			t.Fatalf("ranking %v; a question not about the asker keeps keyword order (%d first)", got, reply[0])
		}
	})
}

// TestFirstPersonQuestionReplyNextToTheAskerInheritsNothing: for a question
// about the asker, the reply said right after their strong hit that
// repeats some of its words does not inherit from it, so it does not pass
// another of the asker's own statements that holds as many of the words;
// the answer to a question, which lacks the words, still comes as context.
func TestFirstPersonQuestionReplyNextToTheAskerInheritsNothing(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		s1 := addConversation(t, db, "s1", []turn{
			{"Ana", "I bought a valve amp for my guitar in May, my best buy."},
			{"Bot", "Valve amps give a guitar warmth."},
			{"Ana", "Lunch was good."},
			{"Bot", "The weather turned."},
			{"Ana", "I play guitar through a small amp at home."},
		})
		s3 := addConversation(t, db, "s3", []turn{
			{"Bot", "Where did you go last weekend?"},
			{"Ana", "Rome, with my sister."},
		})
		got := rank(t, db, "What amp did I buy for my guitar?")
		if first, echo, other := position(got, s1[0]), position(got, s1[1]), position(got, s1[4]); first != 1 || echo == 0 || other == 0 || other > echo {
			t.Fatalf("ranking %v; want the asker's purchase (%d) first and their other account (%d) above the reply echoing the purchase (%d)",
				got, s1[0], s1[4], s1[1])
		}
		kr, err := NewReader(db).RankKeyword(context.Background(), text.Analyze("Where did I go last weekend?"), Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !kr.Context[s3[1]] {
			t.Fatalf("ranking %v, context %v: want the answer %d to the question asked before it found as context", kr.IDs, kr.Context, s3[1])
		}
	})
}

// TestPoolAloneSaysHowManyItRanked: the pool read alone
// (store.KeywordPoolAlone) says how many matches it ranked, those its
// filter turned away (a rejected fact) included, so the
// keyword arm knows without counting the matches apart whether a larger
// pool could hold more; and it reads each fact's text with its row. On
// both engines, at a pool smaller than the matches and one larger.
func TestPoolAloneSaysHowManyItRanked(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			db := storetest.Open(t, engine)
			ctx := context.Background()
			keywordFixture(t, db)
			r := NewReader(db)
			defer r.Close()
			cond, args := (&Reader{}).where(Filter{})
			q := text.Analyze("staging words").Query()
			matches := storetest.Count(t, db, `SELECT count(*) FROM `+db.Engine().TextHits(store.FactText)+` k`, db.Engine().TextQuery(q))
			if matches != 7 {
				t.Fatalf("the fixture's facts matching %v: %d, want 7", q, matches)
			}
			for _, size := range []int{3, 7, 20} {
				st, err := store.KeywordPoolAlone(ctx, db, store.PoolQuery{Text: q, Cond: cond, Args: args, Ranked: size, Size: size})
				if err != nil {
					t.Fatal(err)
				}
				pool, _, ranked, err := readPool(ctx, r, st)
				if err != nil {
					t.Fatal(err)
				}
				if want := min(size, matches); ranked != want {
					t.Errorf("a pool of %d: ranked %d, want %d (%d in the pool)", size, ranked, want, len(pool))
				}
				if size == 20 && len(pool) != matches-1 {
					t.Errorf("a pool of %d: %d facts, want %d (the rejected turned away)", size, len(pool), matches-1)
				}
				for _, c := range pool {
					var want string
					if err := db.QueryRowContext(ctx, `SELECT content FROM facts WHERE id = ?`, c.id).Scan(&want); err != nil {
						t.Fatal(err)
					}
					if c.content != want {
						t.Errorf("fact %d: text %q, want %q", c.id, c.content, want)
					}
				}
			}
		})
	}
}

// TestAcrossFromKnownNeighboursReadsAsAcrossQuery: the facts across a
// question read from the seeds' asking neighbours that the neighbour
// statement returned (readAcrossMids, SQLite's path) are those
// acrossQuery reads from the seeds alone: across an answered question,
// across a question the filter turns away (the middle fact is not
// filtered), not across a statement, and not to a rejected fact. On both
// engines.
func TestAcrossFromKnownNeighboursReadsAsAcrossQuery(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		keywordFixture(t, db)
		s3 := addConversation(t, db, "s3", []turn{
			{"Ana", "I went to the staging review yesterday."},
			{"Bo", "How did it go?"},
			{"Ana", "It was fine, we ship Monday."},
		})
		s4 := addConversation(t, db, "s4", []turn{
			{"Ana", "The staging window opens at noon."},
			{"Bo", "A rejected question?"},
			{"Ana", "Noon works for the release."},
		})
		if _, err := db.ExecContext(ctx, `UPDATE facts SET status = 'rejected' WHERE id = ?`, s4[1]); err != nil {
			t.Fatal(err)
		}
		r := NewReader(db)
		defer r.Close()
		sorted := func(far []neighbor) []neighbor {
			slices.SortFunc(far, func(a, b neighbor) int {
				return cmp.Or(cmp.Compare(a.seed, b.seed), cmp.Compare(a.id, b.id), cmp.Compare(a.session, b.session))
			})
			return slices.Compact(far)
		}
		found := map[int64]bool{}
		for _, fq := range keywordFilters() {
			cond, args := (&Reader{}).where(fq.f)
			st, err := store.KeywordPoolAlone(ctx, db, store.PoolQuery{Text: text.Analyze(fq.q).Query(), Cond: cond, Args: args,
				Ranked: keywordPool, Size: keywordPool})
			if err != nil {
				t.Fatal(err)
			}
			order, _, _, err := readPool(ctx, r, st)
			if err != nil {
				t.Fatal(err)
			}
			seeds := neighborSeedsOf(order)
			_, asking, err := readNeighbors(ctx, r, seeds, cond, args)
			if err != nil {
				t.Fatal(err)
			}
			across := map[int64]*candidate{}
			var ids []int64
			for _, c := range order[:min(len(order), acrossSeeds)] {
				if c.session != "" {
					across[c.id] = c
					ids = append(ids, c.id)
				}
			}
			want, err := readAcross(ctx, r, ids, cond, args)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAcrossMids(ctx, r, across, asking.mids, cond, args)
			if err != nil {
				t.Fatal(err)
			}
			if want, got := sorted(want), sorted(got); !reflect.DeepEqual(want, got) {
				t.Errorf("%q (%+v): from the known neighbours %v, want %v", fq.q, fq.f, got, want)
			}
			for _, nb := range want {
				found[nb.id] = true
			}
		}
		if !found[s3[2]] || !found[s4[2]] || found[s4[1]] {
			t.Fatalf("across a question: %v, want the answers %d and %d", found, s3[2], s4[2])
		}
	})
}

// TestRankKeywordAboutTheAskerPrefersWhatTheUserSaid: a question about
// the asker ("how much time do I …") ranks the user's own turn above the
// assistant's reply that repeats its words back more often (ReplyShare);
// a question to the assistant ("what did you say about …") does not.
func TestRankKeywordAboutTheAskerPrefersWhatTheUserSaid(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ids := addConversation(t, db, "s1", []turn{
			{"", "I want to learn fingerpicking. By the way, I've been practicing guitar for 30 minutes daily."},
			{"", "I think practicing guitar daily is great! Guitar practice of 30 minutes daily builds skill."},
			{"", "Lunch was good."},
		})
		if _, err := db.ExecContext(context.Background(), `UPDATE facts SET speaker = NULL, speaker_role = CASE id WHEN ? THEN 'user' ELSE 'assistant' END`, ids[0]); err != nil {
			t.Fatal(err)
		}
		got := rank(t, db, "How much time do I dedicate to practicing guitar daily?")
		if position(got, ids[0]) != 1 || position(got, ids[1]) == 0 {
			t.Fatalf("ranking %v; want the user's turn %d first, the reply %d after it", got, ids[0], ids[1])
		}
		got = rank(t, db, "What did you tell me about practicing guitar daily?")
		if position(got, ids[1]) != 1 {
			t.Fatalf("ranking %v; want the reply %d first for a question to the assistant", got, ids[1])
		}
	})
}

package graph

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store"
)

// Context ranking: the keyword arm scores a fact by its own BM25 and by the
// conversation around it, because a conversation states an answer near the
// words of the question, not always in the same turn ("Where did you go?" —
// "Rome, last week.").
const (
	// SpeakerBoost multiplies the score of a fact said by a person the query
	// names: "what did Caroline research" is about what Caroline said.
	SpeakerBoost = 0.5
	// NeighborShare is the share of a hit's score that the fact said just
	// before or after it in the same conversation inherits — of what the
	// hit scores above the fact's own score: the words of an exchange
	// count once, so a reply that echoes a strong question's words gains
	// little over a turn that holds the query on its own, while a reply
	// that lacks them gains the full share. A fact that
	// does not itself match inherits only from a hit that asks a question
	// (its text holds a "?"): the answer to "Where did you go?" is the
	// turn after it, while the turns around a statement are about
	// something else ("search Atlas" must not bring the allergy said
	// before the Atlas sentence).
	NeighborShare = 0.7
	// ContextFloor is the least share of the best hit's own score a fact
	// found only as context must inherit to be listed at all.
	ContextFloor = 0.25
	// SessionShare is the share of the best score in a conversation that
	// every candidate from that conversation inherits: a conversation that
	// is about the query lifts all of its candidates.
	SessionShare = 0.5
	// keywordPool is how many BM25 hits are scored; neighborSeeds how many
	// of the best of them lend score to their neighbours.
	keywordPool   = 200
	neighborSeeds = 50
)

// candidate is one fact under context ranking.
type candidate struct {
	id      int64
	session string
	speaker string
	own     float64
	lent    float64
	// matched is true for a BM25 hit, false for a fact found as context.
	matched bool
	// asks is true for a fact that only asks about the query's words
	// (asksAbout): it keeps QuestionShare of its own score.
	asks bool
	// content and role are the fact's text and its speaker's role, where
	// the pool's statement read them (store.PoolStatement.Texts), for
	// weighTexts.
	content, role string
}

// neighbor is a fact said just before or after a seed (one of the best
// hits), in the seed's session.
type neighbor struct {
	seed, id         int64
	session, speaker string
	// asks is whether the seed asks a question (its text holds a "?").
	asks bool
}

// neighborSeedsOf picks the hits that lend to their neighbours: those with a
// session among the first neighborSeeds of order.
func neighborSeedsOf(order []*candidate) map[int64]*candidate {
	seeds := map[int64]*candidate{}
	for i, c := range order {
		if i == neighborSeeds {
			break
		}
		if c.session != "" {
			seeds[c.id] = c
		}
	}
	return seeds
}

// lendToNeighbors gives the facts said just before and after each of the
// best hits (in the same session) NeighborShare of what that hit scores
// above their own. When
// the query names speakers, only their facts inherit. When it asks about
// the asker (aboutAsker: in the first person, addressing no one), a
// neighbour that holds the query's words itself inherits nothing: the
// question asks what the asker said of themselves, and the reply next to
// it that repeats their words is ranked by those words alone, not lifted
// to the asker's own account; a neighbour without the words still comes
// as context, the answer to a question. near holds the neighbours the
// pool's statement read (readPool); when read is true it read none, and
// they are read here.
//
// Where it reads the neighbours, it returns those that ask (askingNear,
// for lendAcross), else nil.
func lendToNeighbors(ctx context.Context, r *Reader, order []*candidate, cands map[int64]*candidate, speakers map[string]bool,
	aboutAsker bool, cond string, args []any, near []neighbor, read bool) (*askingNear, error) {
	seeds := neighborSeedsOf(order)
	if len(seeds) == 0 {
		return nil, nil
	}
	var asking *askingNear
	if read {
		var err error
		if near, asking, err = readNeighbors(ctx, r, seeds, cond, args); err != nil {
			return nil, err
		}
	}
	// A fact said next to two seeds (it was said in both their sessions)
	// joins the session of the seed with the lowest id, whatever order the
	// statement returned the neighbours in, so both engines agree.
	slices.SortStableFunc(near, func(a, b neighbor) int {
		return cmp.Or(cmp.Compare(a.seed, b.seed), cmp.Compare(a.id, b.id))
	})
	for _, nb := range near {
		seed := seeds[nb.seed]
		if seed == nil || seed.session != nb.session || (len(speakers) > 0 && !speakers[nb.speaker]) {
			continue
		}
		got := cands[nb.id]
		if got == nil && !nb.asks {
			continue // only a question's exchange is context for words it lacks
		}
		if got != nil && got.matched && aboutAsker {
			continue // ranked by its own words (see above)
		}
		if got == nil {
			got = &candidate{id: nb.id, session: seed.session, speaker: nb.speaker}
			cands[nb.id] = got
		}
		got.lent = max(got.lent, NeighborShare*max(seed.own-got.own, 0))
	}
	return asking, nil
}

// askingNear are the facts said next to the neighbour seeds (readNeighbors)
// whose text holds a "?", whether or not the filter allows them: the
// middle facts of lendAcross, known without reading the seeds' neighbours
// again.
type askingNear struct {
	// mids are the asking neighbours: seed, the seed's session and id,
	// the asking fact.
	mids []neighbor
}

// Lending across a question: in a conversation the answer is often the
// second turn after the words of the question, not the first ("I went to
// a support group yesterday." — "How did it go?" — "It was powerful, I
// felt accepted."). When the fact said just before or after one of the
// best hits asks a question, the fact said on its other side answers it
// and inherits AcrossShare of what the hit scores above its own.
const (
	// AcrossShare is the share lent across a question: less than
	// NeighborShare, since the answer is a turn further from the words.
	AcrossShare = 0.5
	// acrossSeeds is how many of the best hits lend across a question.
	acrossSeeds = 10
)

// lendAcross lends across a question (see AcrossShare) from the first
// acrossSeeds of order (the keyword pool, best first) to the facts cond
// allows. When aboutAsker (see lendToNeighbors), a fact that holds the
// query's words itself inherits nothing. asking holds the seeds' asking
// neighbours where lendToNeighbors read them (nil where it did not): then
// only their neighbours are read, and nothing when there are none.
func lendAcross(ctx context.Context, r *Reader, order []*candidate, cands map[int64]*candidate, speakers map[string]bool,
	aboutAsker bool, cond string, args []any, asking *askingNear) error {
	seeds := make(map[int64]*candidate, acrossSeeds)
	ids := make([]int64, 0, acrossSeeds)
	for _, c := range order[:min(len(order), acrossSeeds)] {
		if c.session != "" {
			seeds[c.id] = c
			ids = append(ids, c.id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var far []neighbor
	var err error
	if asking != nil {
		far, err = readAcrossMids(ctx, r, seeds, asking.mids, cond, args)
	} else {
		far, err = readAcross(ctx, r, ids, cond, args)
	}
	if err != nil {
		return fmt.Errorf("conversation context: across a question: %w", err)
	}
	// As in lendToNeighbors: the order of the rows must not matter.
	slices.SortStableFunc(far, func(a, b neighbor) int {
		return cmp.Or(cmp.Compare(a.seed, b.seed), cmp.Compare(a.id, b.id))
	})
	for _, nb := range far {
		seed := seeds[nb.seed]
		if seed == nil || seeds[nb.id] != nil || (len(speakers) > 0 && !speakers[nb.speaker]) {
			continue
		}
		got := cands[nb.id]
		if got != nil && got.matched && aboutAsker {
			continue
		}
		if got == nil {
			got = &candidate{id: nb.id, session: seed.session, speaker: nb.speaker}
			cands[nb.id] = got
		}
		got.lent = max(got.lent, AcrossShare*max(seed.own-got.own, 0))
	}
	return nil
}

// readAcross reads the facts said across a question from the seeds ids
// (acrossQuery).
func readAcross(ctx context.Context, r *Reader, ids []int64, cond string, args []any) ([]neighbor, error) {
	rows, err := preparedQuerier{r}.QueryContext(ctx, acrossQuery(r.db.Engine(), cond), append([]any{jsonIDs(ids)}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var far []neighbor
	for rows.Next() {
		var nb neighbor
		if err := rows.Scan(&nb.seed, &nb.session, &nb.id, &nb.speaker); err != nil {
			return nil, err
		}
		far = append(far, nb)
	}
	return far, rows.Err()
}

// readAcrossMids reads what readAcross does from the seeds' asking
// neighbours already known (mids, see askingNear): the facts said next to
// each of those, in the seed's session, but the seed (midQuery).
func readAcrossMids(ctx context.Context, r *Reader, seeds map[int64]*candidate, mids []neighbor, cond string, args []any) ([]neighbor, error) {
	var ids []int64
	for _, m := range mids {
		if seeds[m.seed] != nil && !slices.Contains(ids, m.id) {
			ids = append(ids, m.id)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := preparedQuerier{r}.QueryContext(ctx, midQuery(r.db.Engine(), cond), append([]any{jsonIDs(ids)}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var next []neighbor // seed: the asking fact
	for rows.Next() {
		var nb neighbor
		if err := rows.Scan(&nb.seed, &nb.session, &nb.id, &nb.speaker); err != nil {
			return nil, err
		}
		next = append(next, nb)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var far []neighbor
	for _, m := range mids {
		if seeds[m.seed] == nil {
			continue
		}
		for _, nb := range next {
			if nb.seed == m.id && nb.session == m.session && nb.id != m.seed {
				far = append(far, neighbor{seed: m.seed, session: m.session, id: nb.id, speaker: nb.speaker})
			}
		}
	}
	return far, nil
}

// midQuery reads, for each fact of its first argument (ids as a JSON
// array) and each session it was said in, the facts cond allows said just
// before and after it (store.Engine.Adjacent): the fact, the session, the
// neighbour and its speaker.
func midQuery(eng store.Engine, cond string) string {
	return `WITH adj AS MATERIALIZED (SELECT p.fact_id AS mid, p.session_id AS session, ` + eng.Adjacent("p") + `
		FROM fact_provenance p WHERE ` + idIn(eng, "p.fact_id") + ` AND p.session_id IS NOT NULL
			AND (p.event_seq IS NOT NULL OR p.session_fact_id IS NOT NULL))
		SELECT a.mid, a.session, f.id, COALESCE(f.speaker, '')
		FROM adj a JOIN facts f ON f.id IN (a.prev, a.next)
		WHERE f.id != a.mid AND ` + cond
}

// acrossQuery reads, for each seed fact (its first argument is their ids
// as a JSON array), the facts cond allows that are said across a question
// from it: on the other side of a fact adjacent to the seed
// (store.Engine.Adjacent) whose text holds a "?". The middle fact's
// provenance is sought by its id: its session is compared through
// COALESCE so that no engine seeks it by the session, whose rows are many.
func acrossQuery(eng store.Engine, cond string) string {
	return `WITH adj AS MATERIALIZED (SELECT p.fact_id AS seed, p.session_id AS session, ` + eng.Adjacent("p") + `
		FROM fact_provenance p WHERE ` + idIn(eng, "p.fact_id") + ` AND p.session_id IS NOT NULL
			AND (p.event_seq IS NOT NULL OR p.session_fact_id IS NOT NULL)),
		asks AS MATERIALIZED (SELECT a.seed, a.session, mp.fact_id AS mid, ` + eng.Adjacent("mp") + `
		FROM adj a JOIN fact_provenance mp ON mp.fact_id IN (a.prev, a.next) JOIN facts m ON m.id = mp.fact_id
		WHERE mp.fact_id != a.seed AND COALESCE(mp.session_id, '') = a.session
			AND (mp.event_seq IS NOT NULL OR mp.session_fact_id IS NOT NULL) AND ` + eng.Contains("m.content", "'?'") + `)
		SELECT a.seed, a.session, f.id, COALESCE(f.speaker, '')
		FROM asks a JOIN facts f ON f.id IN (a.prev, a.next)
		WHERE f.id != a.seed AND f.id != a.mid AND ` + cond
}

// readNeighbors reads the neighbours of the seeds that cond allows, and
// those that ask (askingNear), allowed or not.
func readNeighbors(ctx context.Context, r *Reader, seeds map[int64]*candidate, cond string, args []any) ([]neighbor, *askingNear, error) {
	ids := make([]int64, 0, len(seeds))
	for id := range seeds {
		ids = append(ids, id)
	}
	rows, err := preparedQuerier{r}.QueryContext(ctx, neighborQuery(r.db.Engine(), cond), append([]any{jsonIDs(ids)}, args...)...)
	if err != nil {
		return nil, nil, fmt.Errorf("conversation context: %w", err)
	}
	defer rows.Close()
	var near []neighbor
	asking := &askingNear{}
	for rows.Next() {
		var nb neighbor
		var asks, allowed bool
		if err := rows.Scan(&nb.seed, &nb.session, &nb.id, &nb.speaker, &nb.asks, &asks, &allowed); err != nil {
			return nil, nil, fmt.Errorf("conversation context: %w", err)
		}
		if allowed {
			near = append(near, nb)
		}
		if asks {
			asking.mids = append(asking.mids, nb)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("conversation context: %w", err)
	}
	return near, asking, nil
}

// neighborQuery reads the neighbours (store.Engine.Adjacent) of each seed fact
// (its first argument is their ids as a JSON array) with the neighbour's
// speaker, whether the seed asks a question (read once per seed, not
// per neighbour), whether the neighbour does, and whether cond allows it.
func neighborQuery(eng store.Engine, cond string) string {
	return `WITH adj AS MATERIALIZED (SELECT p.fact_id AS seed, p.session_id AS session, ` + eng.Adjacent("p") + `,
			COALESCE((SELECT CASE WHEN ` + eng.Contains("s.content", "'?'") + ` THEN 1 ELSE 0 END FROM facts s WHERE s.id = p.fact_id), 0) AS asks
		FROM fact_provenance p WHERE ` + idIn(eng, "p.fact_id") + ` AND p.session_id IS NOT NULL
			AND (p.event_seq IS NOT NULL OR p.session_fact_id IS NOT NULL))
		SELECT a.seed, a.session, f.id, COALESCE(f.speaker, ''), a.asks,
			CASE WHEN ` + eng.Contains("f.content", "'?'") + ` THEN 1 ELSE 0 END,
			CASE WHEN ` + cond + ` THEN 1 ELSE 0 END
		FROM adj a JOIN facts f ON f.id IN (a.prev, a.next)
		WHERE f.id != a.seed`
}

// readPool runs the keyword pool's statement (store.PoolStatement) and
// reads its rows: the pool, best first, ties by id, cut to keywordPool,
// the seeds' neighbours the statement read with it, and how many matches
// it ranked (-1 when the statement does not say, store.PoolStatement.Ranked). A seed that asks
// nothing comes with its two adjacent facts as they are: it lends only to
// a fact that is a candidate already (lendToNeighbors), one of the pool
// or a question's neighbour, which is known here with the speaker its row
// was read with.
func readPool(ctx context.Context, r *Reader, st store.PoolStatement) ([]*candidate, []neighbor, int, error) {
	rows, err := preparedQuerier{r}.QueryContext(ctx, st.Query, st.Args...)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("keyword search: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, 0, fmt.Errorf("keyword search: %w", err)
	}
	ranked := -1
	if st.Ranked {
		ranked = 0
	}
	var pool []*candidate
	var near, lent []neighbor
	// A statement of the pool alone ends after speaker: the columns it
	// lacks read as 0.
	row := newValues(10)
	scan := row.ptrs[:min(len(cols), len(row.ptrs))]
	for rows.Next() {
		if err := rows.Scan(scan...); err != nil {
			return nil, nil, 0, fmt.Errorf("keyword search: %w", err)
		}
		nb := neighbor{seed: row.int(0), id: row.int(5), session: row.str(2), speaker: row.str(3), asks: row.int(7) != 0}
		switch row.int(4) {
		case store.PoolFact:
			c := &candidate{id: nb.seed, session: nb.session, speaker: nb.speaker, own: row.float(1), matched: true}
			if st.Texts {
				c.content, c.role = row.str(8), row.str(9)
			}
			pool = append(pool, c)
			if st.Ranked {
				ranked++
			}
		case store.PoolTurnedAway:
			ranked++
		case store.PoolNeighbour:
			near = append(near, nb)
		case store.PoolAdjacent:
			// Either may be NULL.
			for _, id := range []int64{nb.id, row.int(6)} {
				if id != 0 && id != nb.seed {
					lent = append(lent, neighbor{seed: nb.seed, id: id, session: nb.session})
				}
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, 0, fmt.Errorf("keyword search: %w", err)
	}
	if len(lent) > 0 {
		known := make(map[int64]string, len(pool)+len(near))
		for _, nb := range near {
			if _, ok := known[nb.id]; !ok {
				known[nb.id] = nb.speaker
			}
		}
		for _, c := range pool {
			known[c.id] = c.speaker
		}
		for _, nb := range lent {
			if sp, ok := known[nb.id]; ok {
				nb.speaker = sp
				near = append(near, nb)
			}
		}
	}
	sortPool(pool)
	return pool[:min(len(pool), keywordPool)], near, ranked, nil
}

// contextOrder adds the session share and sorts.
func contextOrder(cands map[int64]*candidate, speakers map[string]bool, depth int) []int64 {
	best := map[string]float64{}
	top := 0.0
	for _, c := range cands {
		best[c.session] = max(best[c.session], c.own)
		top = max(top, c.own)
	}
	type scored struct {
		id    int64
		score float64
	}
	all := make([]scored, 0, len(cands))
	for id, c := range cands {
		if !c.matched && c.lent < ContextFloor*top {
			continue
		}
		s := c.own + c.lent
		if c.asks {
			s = QuestionShare*c.own + c.lent
		}
		if c.session != "" && (len(speakers) == 0 || speakers[c.speaker]) {
			s += SessionShare * best[c.session]
		}
		all = append(all, scored{id, s})
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		return cmp.Compare(a.id, b.id)
	})
	ids := make([]int64, 0, min(len(all), depth))
	for _, s := range all[:min(len(all), depth)] {
		ids = append(ids, s.id)
	}
	return ids
}

// knownSpeakers returns which of the query's names are speakers of stored
// facts, through a statement the reader keeps prepared (it runs before
// the keyword arm can start).
func knownSpeakers(ctx context.Context, r *Reader, names []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, n := range names {
		if err := func() error {
			rows, err := preparedQuerier{r}.QueryContext(ctx, `SELECT 1 FROM facts WHERE speaker = ? LIMIT 1`, n)
			if err != nil {
				return err
			}
			defer rows.Close()
			if rows.Next() {
				out[n] = true
			}
			return rows.Err()
		}(); err != nil {
			return nil, fmt.Errorf("look up speaker %q: %w", n, err)
		}
	}
	return out, nil
}

// WithoutSpeakers drops the words of the ranking's speaker names from
// terms, unless nothing would remain: a person who speaks in the store is
// found by the speaker boost, and as an entity she is named mostly by the
// people talking to her.
func (kr KeywordRanking) WithoutSpeakers(terms []string) []string {
	return withoutSpeakers(terms, kr.Speakers)
}

func withoutSpeakers(terms []string, speakers map[string]bool) []string {
	if len(speakers) == 0 {
		return terms
	}
	drop := map[string]bool{}
	for n := range speakers {
		for _, w := range text.Tokens(n) {
			drop[w] = true
		}
	}
	var out []string
	for _, t := range terms {
		if !drop[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return terms
	}
	return out
}

// SelfShare is what a keyword hit in the first person gains when the
// query is in the first person: a question about the asker ("what book am
// I reading?") asks what they said of themselves ("I'm currently
// devouring …"), not a reply that discusses the topic. BM25 weighs "I",
// "me" and "my" at almost nothing where most facts hold them, so the
// keyword query's first-person words alone do not tip the balance. A hit
// gains up to SelfShare of its score, f/(f+1) of it for f first-person
// words, so one "I" counts half and many count no more than all. A hit
// that speaks to "you" is a reply to the asker, not their own account
// ("I'd be happy to help you with your reading list"): its score is
// divided by as much, 1 + SelfShare·y/(y+1) for y second-person words, so
// a text that says "I" once and "you" once ends where it began.
const SelfShare = 0.2

// weighTexts reads the texts of cands (the best of the keyword pool): it
// marks those that only ask about the query's words (asksAbout stems), and
// when self applies ReplyShare to the scores of those the assistant said
// and SelfShare to the others'. self is false for a
// question that addresses someone (text.Analysis.AsksYou: "what did you
// tell me about …"), which asks what they said.
//
// texts says whether the pool's statement read the texts with the rows
// (store.PoolStatement.Texts); when it did not, they are read here.
func weighTexts(ctx context.Context, r *Reader, cands []*candidate, texts bool, stems map[string]bool, self bool) error {
	if len(cands) == 0 {
		return nil
	}
	if !texts {
		if err := readTexts(ctx, r, cands); err != nil {
			return err
		}
	}
	for _, c := range cands {
		c.asks = asksAbout(c.content, stems)
		if self && c.role == "assistant" {
			c.own *= ReplyShare
		} else if self {
			var first, second float64
			for _, w := range text.Tokens(c.content) {
				if text.IsFirstPerson(w) {
					first++
				} else if text.IsSecondPerson(w) {
					second++
				}
			}
			c.own *= selfWeight(first, second)
		}
	}
	return nil
}

// readTexts reads the contents and roles of cands.
func readTexts(ctx context.Context, r *Reader, cands []*candidate) error {
	ids := make([]int64, len(cands))
	byID := make(map[int64]*candidate, len(cands))
	for i, c := range cands {
		ids[i] = c.id
		byID[c.id] = c
	}
	rows, err := preparedQuerier{r}.QueryContext(ctx, `SELECT id, content, COALESCE(speaker_role, '') FROM facts WHERE `+idIn(r.db.Engine(), "id"), jsonIDs(ids))
	if err != nil {
		return fmt.Errorf("keyword search: read the texts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var content, role string
		if err := rows.Scan(&id, &content, &role); err != nil {
			return fmt.Errorf("keyword search: read the texts: %w", err)
		}
		if c := byID[id]; c != nil {
			c.content, c.role = content, role
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("keyword search: read the texts: %w", err)
	}
	return nil
}

// asksAbout reports whether every word of s that stems holds sits in a
// question (a sentence that ends with "?"), and one does: the text asks
// about those words ("Cool! Are you reading any books?"), it does not
// say something of them.
func asksAbout(s string, stems map[string]bool) bool {
	if len(stems) == 0 || !strings.Contains(s, "?") {
		return false
	}
	asked := false
	for _, w := range wordSpansOf(s, stemHeads(stems)) {
		if !stems[w.stem] {
			continue
		}
		end := strings.IndexAny(s[w.end:], ".!?")
		if end < 0 || s[w.end+end] != '?' {
			return false
		}
		// A question that speaks of the speaker tells as it asks ("The
		// play I attended was The Glass Menagerie, have you heard of it?").
		start := strings.LastIndexAny(s[:w.start], ".!?") + 1
		for _, t := range text.Tokens(s[start : w.end+end]) {
			if text.IsFirstPerson(t) {
				return false
			}
		}
		asked = true
	}
	return asked
}

// stemHeads are the first two bytes of each stem (the stem itself when
// shorter): the porter stemmer rewrites only a word's ending, so a word
// whose first bytes are none of these stems to none of them.
func stemHeads(stems map[string]bool) map[string]bool {
	heads := make(map[string]bool, len(stems))
	for st := range stems {
		heads[st[:min(len(st), 2)]] = true
	}
	return heads
}

// wordSpansOf is wordSpans of s with only the words that may stem to one
// of stems whose heads (stemHeads) are given: the others are not stemmed,
// which is most of the cost on a long text.
func wordSpansOf(s string, heads map[string]bool) []wordSpan {
	var out []wordSpan
	start := -1
	flush := func(end int) {
		w := s[start:end]
		if strings.ContainsFunc(w, text.IsCJK) {
			for _, ws := range wordSpans(w) {
				out = append(out, wordSpan{start + ws.start, start + ws.end, ws.stem})
			}
			return
		}
		head := strings.ToLower(w[:min(len(w), 2)]) // whole when not ASCII: compared after lowering it all
		if w[0] >= utf8.RuneSelf || (len(w) > 1 && w[1] >= utf8.RuneSelf) {
			head = strings.ToLower(w)
		}
		if heads[head[:min(len(head), 2)]] || heads[head[:1]] {
			out = append(out, wordSpan{start, end, text.Stem(strings.ToLower(w))})
		}
	}
	for i, r := range s {
		word := unicode.IsLetter(r) || unicode.IsNumber(r)
		if word && start < 0 {
			start = i
		}
		if !word && start >= 0 {
			flush(i)
			start = -1
		}
	}
	if start >= 0 {
		flush(len(s))
	}
	return out
}

// askedStems are the stems of the query's words (queryStems) without its
// names: a question names the person it asks, and asks about the rest.
func askedStems(a text.Analysis) map[string]bool {
	names := make(map[string]bool, len(a.Names))
	for _, n := range a.Names {
		names[n] = true
	}
	return stemsOf(a.WithoutNames(names))
}

// QuestionShare is the share of its own score that a fact which only
// asks about the query's words (asksAbout) keeps in the ranking: it holds
// the words of what it asks about, not the answer ("Are you reading any
// books?"), and it rarely answers a question. It still lends its full
// score to its neighbours (NeighborShare) and across the question
// (AcrossShare), where the answer is, and its conversation keeps its full
// score (SessionShare). On LoCoMo through the capture route (recall@10)
// shares 0.3, 0.5 and 0.7 gave 0.754, 0.754 and 0.752, against 0.750 for
// none (1).
const QuestionShare = 0.5

// ReplyShare is the share of its score that a keyword hit said by the
// assistant (its speaker's role) keeps when the query is about the asker
// (in the first person, addressing no one): "how much time do I spend
// practicing guitar?" asks what the user said of themselves ("I've been
// practicing for 30 minutes daily"), not the reply that repeats their
// words back ("That's great! 30 minutes a day of guitar …"). A question
// that addresses the assistant ("what did you recommend?") asks what it
// said, and keeps its replies whole.
const ReplyShare = 0.5

// selfWeight is the factor SelfShare applies to a hit with f first-person
// and y second-person words.
func selfWeight(f, y float64) float64 {
	return (1 + SelfShare*f/(f+1)) / (1 + SelfShare*y/(y+1))
}

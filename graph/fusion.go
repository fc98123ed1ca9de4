package graph

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/recollect/recollect/store"
)

// Fusion: the arms' lists (see arms.go) become one ranking by Reciprocal
// Rank Fusion, and after supersession (supersession.go) the gentle Adjust
// factor and the room kept for direct hits decide the order.

// RRFK is the Reciprocal Rank Fusion constant: an arm's hit at rank r adds
// 1/(RRFK + r) to the fact's score.
const RRFK = 60

// fusion accumulates ranked lists into RRF scores.
type fusion struct {
	order   []int64
	score   map[int64]float64
	matches map[int64][]Match
}

// newFusion returns an empty fusion with room for size facts.
func newFusion(size int) *fusion {
	return &fusion{score: make(map[int64]float64, size), matches: make(map[int64][]Match, size)}
}

// add counts one arm's list: a fact at rank r gains the list's weight for
// it times 1/(RRFK + r), and records the match (ArmContext for a fact the
// keyword arm found only as context).
func (f *fusion) add(l armList) {
	for i, id := range l.ids {
		before, seen := f.score[id]
		if !seen {
			f.order = append(f.order, id)
		}
		s := before + 1/float64(RRFK+i+1)
		if l.weight != nil {
			s = before + l.weight[id]*(s-before)
		}
		f.score[id] = s
		m := Match{Arm: l.arm, Rank: i + 1}
		if l.context[id] {
			m.Arm = ArmContext
		}
		if l.detail != nil {
			m.Detail = l.detail(id)
		}
		f.matches[id] = append(f.matches[id], m)
	}
}

// note records l's matches without a vote: each fact keeps the label
// and rank (its place in l.ids) of the arm that found it. A zero id is a
// place held by a fact l does not note.
func (f *fusion) note(l armList) {
	for i, id := range l.ids {
		if id == 0 {
			continue
		}
		if _, seen := f.score[id]; !seen {
			f.order = append(f.order, id)
			f.score[id] = 0
		}
		m := Match{Arm: l.arm, Rank: i + 1}
		if l.detail != nil {
			m.Detail = l.detail(id)
		}
		f.matches[id] = append(f.matches[id], m)
	}
}

// ranked is the ids found so far, best fused score first.
func (f *fusion) ranked() []int64 {
	ids := append([]int64(nil), f.order...)
	sort.SliceStable(ids, func(i, j int) bool {
		if f.score[ids[i]] != f.score[ids[j]] {
			return f.score[ids[i]] > f.score[ids[j]]
		}
		return ids[i] < ids[j]
	})
	return ids
}

// keepFirst keeps the keyword arm's first hit first against the entity
// arm: naming an entity of the query never lifts another keyword hit above
// the best keyword match (a hit found by the keyword arm below it scores
// at most just under it). It runs after the keyword and entity lists are
// added, before any other arm.
func (f *fusion) keepFirst(kr armList) {
	var first int64
	for _, id := range kr.ids {
		if !kr.context[id] {
			first = id
			break
		}
	}
	if first == 0 {
		return
	}
	top := f.score[first]
	for i, id := range kr.ids {
		if id != first && f.score[id] >= top {
			// keep the keyword arm's own order below the first
			f.score[id] = math.Nextafter(top, 0) - float64(i)*1e-12
		}
	}
}

// placeEvents gives the best direct match of each event a question of
// order names (text.Events: "which came first, the gala or the bake
// sale?") a place among the first limit: an answer about two events needs
// both, however strongly the rest of the question matches one. The
// matches without a place take the last places: each is lifted above the
// fact now there (by EventLift, so that Adjust keeps it above) and below
// the one before it, so what ranks above the last places keeps its order
// and the first stays first.
func (f *fusion) placeEvents(events []armList, limit int) {
	if len(events) == 0 {
		return
	}
	ranked := f.ranked()
	placed := make(map[int64]bool, limit)
	for _, id := range ranked[:min(limit, len(ranked))] {
		placed[id] = true
	}
	var lift []int64
	var lifted []Match
	for _, l := range events {
		for i, id := range l.ids {
			if l.context[id] {
				continue
			}
			if !placed[id] {
				placed[id] = true
				lift = append(lift, id)
				lifted = append(lifted, Match{Arm: l.arm, Rank: i + 1, Detail: l.detail(id)})
			}
			break
		}
	}
	if len(lift) == 0 {
		return
	}
	score := 1 / float64(RRFK+limit) // no fact needs to make room
	if at := max(min(limit, len(ranked))-len(lift), 0); at < len(ranked) {
		score = f.score[ranked[at]] * EventLift
		if at == 0 {
			score = math.Nextafter(f.score[ranked[0]], 0) // the first stays first
		} else if below := math.Nextafter(f.score[ranked[at-1]], 0); below > f.score[ranked[at]] {
			score = min(score, below)
		}
	}
	for i, id := range lift {
		if _, seen := f.score[id]; !seen {
			f.order = append(f.order, id)
		}
		f.score[id] = max(f.score[id], score)
		f.matches[id] = append(f.matches[id], lifted[i])
	}
}

// EventLift is how far above the place it is given an event's best match
// is lifted: more than Adjust can move two scores apart.
const EventLift = AdjustHigh / AdjustLow * 1.01

// Adjustment weights: importance moves a score by at most ±3%, recency
// adds at most 3%, halving every RecencyHalfLife.
const (
	ImportanceWeight = 0.06
	RecencyWeight    = 0.03
	RecencyHalfLife  = 90 * 24 * time.Hour
)

// Adjust is the gentle factor applied after fusion:
//
//	1 + ImportanceWeight·(importance − 0.5) + RecencyWeight·0.5^(age/RecencyHalfLife)
//
// where age is measured from the newest fact among the candidates (not the
// wall clock, so the same store gives the same order tomorrow). The factor
// stays within [0.97, 1.06]: it breaks near-ties between hits found at
// similar ranks, and never lifts a hit found by one arm over one found at
// the same rank by two.
func Adjust(importance float64, age time.Duration) float64 {
	if age < 0 {
		age = 0
	}
	rec := math.Pow(0.5, float64(age)/float64(RecencyHalfLife))
	imp := math.Max(0, math.Min(1, importance))
	return 1 + ImportanceWeight*(imp-0.5) + RecencyWeight*rec
}

// AdjustLow and AdjustHigh bound Adjust: the factor of a fact of no
// importance, older than any other by far, and of an important fact as
// new as the newest.
const (
	AdjustLow  = 1 - ImportanceWeight*0.5
	AdjustHigh = 1 + ImportanceWeight*0.5 + RecencyWeight
)

// rankAdjusted applies Adjust to the scores of ids, with ages measured from
// the newest of them, and returns the ids best first, ties by id.
func rankAdjusted(ids []int64, score map[int64]float64, known map[int64]chainLink) []int64 {
	var ref time.Time
	times := make(map[int64]time.Time, len(ids))
	for _, id := range ids {
		t, err := store.ParseTime(known[id].when)
		if err != nil {
			t, _ = store.ParseTime(known[id].recorded)
		}
		times[id] = t
		if t.After(ref) {
			ref = t
		}
	}
	type scored struct {
		id    int64
		score float64
	}
	all := make([]scored, len(ids))
	for i, id := range ids {
		score[id] *= Adjust(known[id].importance, ref.Sub(times[id]))
		all[i] = scored{id, score[id]}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		return cmp.Compare(a.id, b.id)
	})
	for i, s := range all {
		ids[i] = s.id
	}
	return ids
}

// roomForDirect picks the first want of ranked ids, where hits found only
// as conversation context take at most half the places while direct hits
// remain to fill the rest: context never crowds out what matched.
func roomForDirect(ranked []int64, matches map[int64][]Match, want int) []int64 {
	onlyContext := func(id int64) bool { return Hit{MatchedBy: matches[id]}.OnlyContext() }
	direct := 0
	for _, id := range ranked {
		if !onlyContext(id) {
			direct++
		}
	}
	out := make([]int64, 0, want)
	context := 0
	for _, id := range ranked {
		if len(out) == want {
			break
		}
		if onlyContext(id) {
			if context >= want/2 && direct > 0 {
				continue
			}
			context++
		} else {
			direct--
		}
		out = append(out, id)
	}
	return out
}

var armOrder = sync.OnceValue(func() map[Arm]int {
	return map[Arm]int{ArmKeyword: 0, ArmContext: 1, ArmEntity: 2, ArmSemantic: 3, ArmDomain: 4}
})

func sortMatches(ms []Match) []Match {
	if ms == nil {
		return []Match{}
	}
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].Via != ms[j].Via {
			return ms[i].Via < ms[j].Via
		}
		if armOrder()[ms[i].Arm] != armOrder()[ms[j].Arm] {
			return armOrder()[ms[i].Arm] < armOrder()[ms[j].Arm]
		}
		return ms[i].Rank < ms[j].Rank
	})
	return ms
}

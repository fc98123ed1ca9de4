package graph

import (
	"context"
	"fmt"
)

// Supersession walking: a hit on a fact no longer believed leads to its
// believed successor, the end of its superseded_by chain.

// chainLink is one fact's place in a supersession chain, with what the
// ranking after fusion needs of it (see Adjust): importance and time.
type chainLink struct {
	next       int64
	live       bool
	importance float64
	// when is the fact's Time, recorded its recorded_at.
	when, recorded string
	// conversation is the session the fact was said in and the day it
	// was said (Conversation): context stays within one.
	conversation string
}

// links reads superseded_by, liveness, importance and times for ids not yet
// in known.
func links(ctx context.Context, db querier, sc scope, ids []int64, known map[int64]chainLink) error {
	var want []int64
	for _, id := range ids {
		if _, ok := known[id]; !ok && id != 0 {
			want = append(want, id)
		}
	}
	if len(want) == 0 {
		return nil
	}
	live, largs := sc.live()
	rows, err := db.QueryContext(ctx, `SELECT f.id, COALESCE(f.superseded_by, 0), CASE WHEN `+live+` THEN 1 ELSE 0 END,
		f.importance, COALESCE(f.said_at, ''), COALESCE(f.valid_from, ''), f.recorded_at, COALESCE(f.session_id, '')
		FROM facts f WHERE `+idIn(db.Engine(), "f.id"), append(largs, jsonIDs(want))...)
	if err != nil {
		return fmt.Errorf("read supersession: %w", err)
	}
	defer rows.Close()
	row := newValues(8)
	for rows.Next() {
		if err := row.scan(rows); err != nil {
			return fmt.Errorf("read supersession: %w", err)
		}
		l := chainLink{next: row.int(1), live: row.int(2) != 0, importance: row.float(3), recorded: row.str(6),
			conversation: Conversation(row.str(7), row.str(4))}
		l.when = Hit{SaidAt: row.str(4), ValidFrom: row.str(5), RecordedAt: l.recorded}.Time()
		known[row.int(0)] = l
	}
	for _, id := range want {
		if _, ok := known[id]; !ok {
			known[id] = chainLink{}
		}
	}
	return rows.Err()
}

// successors maps each fact that is not believed to its believed successor
// (the end of its superseded_by chain), or 0 when there is none.
func successors(ctx context.Context, db querier, sc scope, ids []int64, known map[int64]chainLink) (map[int64]chainLink, map[int64]int64, error) {
	if known == nil {
		known = make(map[int64]chainLink, len(ids))
	}
	if err := links(ctx, db, sc, ids, known); err != nil {
		return nil, nil, err
	}
	cur := map[int64]int64{}
	for _, id := range ids {
		if !known[id].live {
			cur[id] = id
		}
	}
	succ := map[int64]int64{}
	for step := 0; step < 64 && len(cur) > 0; step++ {
		var next []int64
		for _, at := range cur {
			next = append(next, known[at].next)
		}
		if err := links(ctx, db, sc, next, known); err != nil {
			return nil, nil, err
		}
		for id, at := range cur {
			n := known[at].next
			switch {
			case n == 0 || n == id:
				succ[id] = 0
				delete(cur, id)
			case known[n].live:
				succ[id] = n
				delete(cur, id)
			default:
				cur[id] = n
			}
		}
	}
	return known, succ, nil
}

// resolve turns the fused ids of f into hits: a hit on a fact no longer believed
// passes its matches to its current successor (labelled with Via), and
// appears itself only with history. The successor ranks where the best of
// itself and its predecessors ranked — the maximum of their scores, never
// the sum — so it takes its predecessor's place but never rises above a
// stronger direct hit by collecting several predecessors' matches. Scores are adjusted and
// ranked from the light columns links reads; only the best want facts (all
// when want is 0) are loaded in full.
//
// The links are read first (successors), then the hits kept, in full
// (loadHits). Reading in full, with the links, every fact that might be
// kept would save a statement but load several times as many facts as a
// limit keeps, which costs both engines as much as the statement or more.
func resolve(ctx context.Context, db querier, sc scope, f *fusion, history bool, want int) ([]*Hit, error) {
	known, succ, err := successors(ctx, db, sc, f.order, nil)
	if err != nil {
		return nil, err
	}
	score := make(map[int64]float64, len(f.order))
	matches := make(map[int64][]Match, len(f.order))
	via := map[int64][]int64{}
	var keep []int64
	for _, id := range f.order {
		if known[id].live || history {
			score[id] = max(score[id], f.score[id])
			matches[id] = append(matches[id], f.matches[id]...)
			keep = append(keep, id)
		}
		if s := succ[id]; !known[id].live && s != 0 {
			score[s] = max(score[s], f.score[id])
			for _, m := range f.matches[id] {
				m.Via = id
				matches[s] = append(matches[s], m)
			}
			via[s] = append(via[s], id)
			keep = append(keep, s)
		}
	}
	keep = rankAdjusted(dedupe(keep), score, known)
	keep = contextInConversation(keep, matches, known)
	if want > 0 {
		keep = roomForDirect(keep, matches, want)
	}
	var load []int64
	for _, id := range keep {
		load = append(append(load, id), via[id]...)
	}
	all, err := loadHits(ctx, db, dedupe(load))
	if err != nil {
		return nil, err
	}
	var out []*Hit
	for _, id := range keep {
		h := all[id]
		if h == nil {
			continue
		}
		h.Score, h.MatchedBy = score[id], sortMatches(matches[id])
		for _, old := range via[id] {
			if o := all[old]; o != nil {
				h.Supersedes = append(h.Supersedes, HistoryRef{ID: old, Content: o.Content})
			}
		}
		out = append(out, h)
	}
	return out, nil
}

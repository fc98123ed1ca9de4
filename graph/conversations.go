package graph

import "github.com/recollect/recollect/store"

// Conversation is a fact's conversation: the session it was said in and,
// when it is known, the day it was said on, since one long session (an
// agent that captures for days, a copied chat history whose lines carry
// their dates) holds many conversations. A fact of no session is in no
// conversation ("").
func Conversation(session, saidAt string) string {
	if session == "" {
		return ""
	}
	if t, err := store.ParseTime(saidAt); err == nil && saidAt != "" {
		return session + " " + t.UTC().Format("2006-01-02")
	}
	return session
}

// contextInConversation drops from ids the hits found only as context
// (a turn next to a hit, see NeighborShare) whose conversation holds no
// direct hit: a turn said on another day, though stored next to a
// question, is not its reply.
func contextInConversation(ids []int64, matches map[int64][]Match, known map[int64]chainLink) []int64 {
	onlyContext := func(id int64) bool { return Hit{MatchedBy: matches[id]}.OnlyContext() }
	direct := map[string]bool{}
	for _, id := range ids {
		if !onlyContext(id) {
			direct[known[id].conversation] = true
		}
	}
	out := ids[:0]
	for _, id := range ids {
		if c := known[id].conversation; c != "" && !direct[c] && onlyContext(id) {
			continue
		}
		out = append(out, id)
	}
	return out
}

package graph

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/recollect/recollect/store"
)

// EpisodeLabel is what every episode says about itself.
const EpisodeLabel = "raw conversation events around a keyword hit; not integrated knowledge, may be stale, wrong or superseded"

// Episode limits: the first EpisodeHits episodes are windows of
// EpisodeRadius events on each side of the hit, each neighbour's content
// cut to EpisodeChars bytes; further ones (filling a limit that knowledge
// leaves open) are the hit's passage alone.
const (
	EpisodeHits   = 3
	EpisodeRadius = 2
	EpisodeChars  = 400
)

// Episode is a short window of raw events around a keyword hit in the
// event log. Search returns episodes where knowledge is thin: when fewer
// facts matched than were asked for (see episodesWanted).
type Episode struct {
	Label     string         `json:"label"`
	SessionID string         `json:"session_id"`
	HitSeq    int64          `json:"hit_seq"`
	Events    []EpisodeEvent `json:"events"`
	// coverage is the share of the query's words the hit's passage holds:
	// what an episode competes with facts on.
	coverage float64
}

// EpisodeEvent is one raw event in an episode.
type EpisodeEvent struct {
	Seq        int64  `json:"seq"`
	Role       string `json:"role"`
	Speaker    string `json:"speaker,omitempty"`
	EventType  string `json:"event_type"`
	Content    string `json:"content"`
	Truncated  bool   `json:"truncated,omitempty"`
	OccurredAt string `json:"occurred_at,omitempty"`
}

// episodesWanted is how many episodes a search answer carries beside
// its knowledge hits: one for each result short of the limit, at most
// EpisodeHits — raw conversation fills in where knowledge is thin (a
// store fed transcripts whose facts are few), and an answer full of facts
// carries none. A budgeted search carries them only when nothing matched.
func episodesWanted(results int, q Query) int {
	if q.Budget > 0 {
		if results > 0 {
			return 0
		}
		return EpisodeHits
	}
	return max(q.Limit-results, 0)
}

// citedEvents is the set of events the results cite: an episode around
// one of them would repeat a fact already shown.
func citedEvents(results []Hit) map[int64]bool {
	cited := map[int64]bool{}
	for _, h := range results {
		for _, id := range h.EventIDs {
			cited[id] = true
		}
	}
	return cited
}

// eventHit is one of the event log's best keyword hits for a query.
type eventHit struct {
	seq     int64
	session string
	content string
	// text is whether the event is of the conversation's text (see
	// conversationTextCase).
	text bool
}

// eventHits reads the event log's best keyword hits for match, best
// first. It needs nothing of the knowledge answer, so a search reads them
// beside its other statements, and when there are none (a store fed only
// by captures) the episode step costs nothing more.
func eventHits(ctx context.Context, db *store.DB, match string, sc scope) ([]eventHit, error) {
	q := `SELECT e.seq, e.session_id, e.content, ` + conversationTextCase + ` FROM ` + db.Engine().TextMatches(store.EventText) + ` k JOIN session_events e ON e.seq = k.id
		WHERE 1 = 1`
	args := []any{match}
	if w, wargs := sc.eventWithin("e"); len(wargs) > 0 {
		q += ` AND ` + w
		args = append(args, wargs...)
	}
	if sc.asOf != "" {
		q += ` AND e.recorded_at <= ?`
		args = append(args, sc.asOf)
	}
	rows, err := db.QueryContext(ctx, q+` ORDER BY k.score DESC, e.seq LIMIT 20`, args...)
	if err != nil {
		return nil, fmt.Errorf("episode search: %w", err)
	}
	defer rows.Close()
	var hits []eventHit
	for rows.Next() {
		var h eventHit
		if err := rows.Scan(&h.seq, &h.session, &h.content, &h.text); err != nil {
			return nil, fmt.Errorf("episode search: %w", err)
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("episode search: %w", err)
	}
	return hits, nil
}

// searchEpisodes makes up to n windows of raw events around the event
// log's best keyword hits (eventHits), skipping hits that cited marks and
// events a fact holds verbatim (a captured turn: the fact competes for
// it). The hit event shows the passage around the query's words (Passage).
func searchEpisodes(ctx context.Context, db *store.DB, found []eventHit, sc scope, n int, cited map[int64]bool, stems map[string]bool) ([]Episode, error) {
	if len(found) == 0 {
		return []Episode{}, nil
	}
	forgotten, err := forgottenFilter(ctx, db)
	if err != nil {
		return nil, err
	}
	type hit struct {
		seq     int64
		session string
		digest  string
		text    bool
	}
	var hits []hit
	for _, f := range found {
		// A hit a shown fact cites still competes: a fact read from a
		// long message holds a piece of it, and the passage may answer
		// what the fact does not. One the fact holds whole is left to it
		// (notHeldVerbatim, below).
		if !forgotten(f.content) {
			hits = append(hits, hit{seq: f.seq, session: f.session, digest: store.Digest(f.content), text: f.text})
		}
	}
	if hits, err = notHeldVerbatim(ctx, db, hits, func(h hit) (int64, string) { return h.seq, h.digest }); err != nil {
		return nil, err
	}
	// What the user and the agent wrote to each other comes before tool
	// calls and output, each in keyword order: a message that answers
	// is the passage a person wants, a tool's output around it context.
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].text && !hits[j].text })
	out := []Episode{}
	covered := map[int64]bool{}
	for _, h := range hits {
		if len(out) == n {
			break
		}
		if covered[h.seq] {
			continue
		}
		// An event a shown fact cites is left out of the window: the
		// fact above already says it.
		radius := EpisodeRadius
		if len(out) >= EpisodeHits {
			radius = 0
		}
		ep, err := episodeWindow(ctx, db, h.session, h.seq, sc, radius, stems, func(seq int64, content string) bool {
			return (seq != h.seq && cited[seq]) || forgotten(content)
		})
		if err != nil {
			return nil, err
		}
		for _, ev := range ep.Events {
			covered[ev.Seq] = true
		}
		out = append(out, ep)
	}
	return out, nil
}

// episodeWindow reads the events around seq in its session, leaving out
// those skip names (forgotten, or cited by a fact already shown).
func episodeWindow(ctx context.Context, db *store.DB, session string, seq int64, sc scope, radius int, stems map[string]bool, skip func(seq int64, content string) bool) (Episode, error) {
	ep := Episode{Label: EpisodeLabel, SessionID: session, HitSeq: seq, Events: []EpisodeEvent{}}
	bound := `'9999'`
	args := []any{session, seq}
	if sc.asOf != "" {
		bound = `?`
		args = append(args, sc.asOf)
	}
	within, wargs := sc.eventWithin("e")
	args = append(args, wargs...)
	args = append(args, args...)
	rows, err := db.QueryContext(ctx, `SELECT * FROM (
		SELECT seq, role, speaker, event_type, content, occurred_at FROM session_events e
			WHERE session_id = ? AND seq < ? AND recorded_at <= `+bound+` AND `+within+` ORDER BY seq DESC LIMIT `+fmt.Sprint(radius)+`) older
		UNION ALL SELECT * FROM (
		SELECT seq, role, speaker, event_type, content, occurred_at FROM session_events e
			WHERE session_id = ? AND seq >= ? AND recorded_at <= `+bound+` AND `+within+` ORDER BY seq LIMIT `+fmt.Sprint(radius+1)+`) newer
		ORDER BY seq`, args...)
	if err != nil {
		return ep, fmt.Errorf("episode window: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var ev EpisodeEvent
		var speaker, occurred sql.NullString
		if err := rows.Scan(&ev.Seq, &ev.Role, &speaker, &ev.EventType, &ev.Content, &occurred); err != nil {
			return ep, fmt.Errorf("episode window: %w", err)
		}
		ev.Speaker, ev.OccurredAt = speaker.String, occurred.String
		if skip(ev.Seq, ev.Content) {
			continue
		}
		if ev.Seq == seq {
			ev.Content, ev.Truncated = Passage(ev.Content, stems, PassageChars, ev.EventType == "message" || ev.EventType == "artifact")
			ep.coverage = coverage(ev.Content, stems)
		} else if len(ev.Content) > EpisodeChars {
			ev.Content, ev.Truncated = cutUTF8(ev.Content, EpisodeChars)+" …", true
		}
		ep.Events = append(ep.Events, ev)
	}
	return ep, rows.Err()
}

// conversationTextCase is 1 for an event of the conversation's text (a
// user or assistant text message, a compaction summary), else 0.
const conversationTextCase = `CASE WHEN (e.event_type = 'message' AND e.role IN ('user', 'assistant') AND e.content_type = 'text')
	OR (e.event_type = 'artifact' AND e.metadata LIKE '%"compact_summary":true%') THEN 1 ELSE 0 END`

// notHeldVerbatim drops the hits whose whole text a fact citing them
// holds (same digest).
func notHeldVerbatim[T any](ctx context.Context, db *store.DB, hits []T, key func(T) (int64, string)) ([]T, error) {
	if len(hits) == 0 {
		return hits, nil
	}
	// One statement for every hit: the digests of the facts citing each.
	seqs := make([]int64, len(hits))
	for i, h := range hits {
		seqs[i], _ = key(h)
	}
	in, args := store.InList(seqs)
	rows, err := db.QueryContext(ctx, `SELECT p.event_seq, f.digest FROM fact_provenance p JOIN facts f ON f.id = p.fact_id
		WHERE p.event_seq IN (`+in+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("episode search: %w", err)
	}
	held := map[int64]map[string]bool{}
	for rows.Next() {
		var seq int64
		var digest string
		if err := rows.Scan(&seq, &digest); err != nil {
			rows.Close()
			return nil, fmt.Errorf("episode search: %w", err)
		}
		if held[seq] == nil {
			held[seq] = map[string]bool{}
		}
		held[seq][digest] = true
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("episode search: %w", err)
	}
	out := hits[:0:0]
	for _, h := range hits {
		seq, digest := key(h)
		if !held[seq][digest] {
			out = append(out, h)
		}
	}
	return out, nil
}

// coverage is the share of stems text holds.
func coverage(text string, stems map[string]bool) float64 {
	if len(stems) == 0 {
		return 0
	}
	seen := map[string]bool{}
	for _, w := range wordSpans(text) {
		if stems[w.stem] {
			seen[w.stem] = true
		}
	}
	return float64(len(seen)) / float64(len(stems))
}

// compete ranks facts and episodes in one list of at most limit: facts
// keep their order, and an episode goes before the next fact when its
// passage holds more of the query's words (at most EpisodeHits of them
// displace facts so); episodes fill what the facts leave of the limit.
func compete(results []Hit, eps []Episode, stems map[string]bool, limit int) ([]Hit, []Episode) {
	var facts []Hit
	kept := []Episode{}
	i, j := 0, 0
	for len(facts)+len(kept) < limit {
		takeEp := j < len(eps) && (i >= len(results) ||
			len(kept) < EpisodeHits && eps[j].coverage > coverage(results[i].Content, stems))
		switch {
		case takeEp:
			kept = append(kept, eps[j])
			j++
		case i < len(results):
			facts = append(facts, results[i])
			i++
		default:
			return facts, kept
		}
	}
	if facts == nil {
		facts = []Hit{}
	}
	return facts, kept
}

// cutUTF8 cuts s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}

// forgottenFilter reports whether an event's text holds a sentence whose
// fact was forgotten. A tombstone keeps only the digest of the fact, so
// the event's whole text and each of its sentences are digested and
// looked up: episodes never show what a person asked to forget.
func forgottenFilter(ctx context.Context, db *store.DB) (func(string) bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT digest FROM tombstones`)
	if err != nil {
		return nil, fmt.Errorf("read tombstones: %w", err)
	}
	defer rows.Close()
	gone := map[string]bool{}
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, fmt.Errorf("read tombstones: %w", err)
		}
		gone[d] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read tombstones: %w", err)
	}
	return func(text string) bool {
		if len(gone) == 0 {
			return false
		}
		if gone[store.Digest(text)] {
			return true
		}
		for _, s := range sentences(text) {
			if gone[store.Digest(s)] {
				return true
			}
		}
		return false
	}, nil
}

// sentences splits text after . ! ? followed by a space, and at newlines.
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		end := -1
		switch {
		case c == '\n':
			end = i
		case (c == '.' || c == '!' || c == '?') && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n'):
			end = i + 1
		}
		if end >= 0 {
			if s := strings.TrimSpace(text[start:end]); s != "" {
				out = append(out, s)
			}
			start = end
		}
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

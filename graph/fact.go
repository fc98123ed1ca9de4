package graph

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/recollect/recollect/store"
)

// Hit is one fact in an answer, with everything a reader needs to judge it:
// who said it (speaker, not subject), where it came from, when it held, and
// which retrieval arms found it.
type Hit struct {
	ID         int64   `json:"id"`
	Content    string  `json:"content"`
	Domain     string  `json:"domain"`
	Subdomain  string  `json:"subdomain,omitempty"`
	Confidence float64 `json:"confidence"`
	Importance float64 `json:"importance"`
	Status     string  `json:"status"`
	// Kind is what sort of knowledge the fact is (store.Kinds); "" for a
	// fact stored before kinds.
	Kind        string      `json:"kind,omitempty"`
	Producer    string      `json:"producer"`
	SpeakerRole string      `json:"speaker_role,omitempty"`
	Speaker     string      `json:"speaker,omitempty"`
	SessionID   string      `json:"session_id,omitempty"`
	Sessions    []string    `json:"sessions"`
	EventIDs    []int64     `json:"event_ids"`
	SaidAt      string      `json:"said_at,omitempty"`
	ValidFrom   string      `json:"valid_from,omitempty"`
	ValidUntil  string      `json:"valid_until,omitempty"`
	RecordedAt  string      `json:"recorded_at"`
	Entities    []EntityRef `json:"entities"`
	MatchedBy   []Match     `json:"matched_by"`
	// Supersedes lists the superseded facts whose hits brought this one in:
	// history, shown so the reader knows what changed.
	Supersedes []HistoryRef `json:"supersedes,omitempty"`
	// SupersededBy names the fact that replaced this one, if any: set on
	// history shown by --history, and on a fact believed at an --as-of
	// instant and replaced later.
	SupersededBy int64   `json:"superseded_by,omitempty"`
	Score        float64 `json:"score"`
}

// EntityRef is an entity a fact names, with its part in the fact.
type EntityRef struct {
	ID        int64  `json:"id"`
	Name      string `json:"name"`
	Type      string `json:"type"`
	Role      string `json:"role"`
	IsSubject bool   `json:"is_subject"`
}

// HistoryRef names a superseded fact.
type HistoryRef struct {
	ID      int64  `json:"id"`
	Content string `json:"content"`
}

// Time is when the fact was said, else when it became valid, else when it
// was recorded: the instant chronological order sorts by.
func (h Hit) Time() string {
	switch {
	case h.SaidAt != "":
		return h.SaidAt
	case h.ValidFrom != "":
		return h.ValidFrom
	}
	return h.RecordedAt
}

// scope says which facts count as believed: the current ones, or (AsOf
// set) those the store held at that instant; and, under a retention
// window (floor set), only those that happened since the window began.
type scope struct {
	asOf  string
	floor string
}

// newScope is the scope of a read as of asOf (zero: now), without a
// retention window.
func newScope(asOf time.Time) scope {
	if asOf.IsZero() {
		return scope{}
	}
	return scope{asOf: store.FormatTime(asOf)}
}

// scope is newScope under r's retention window.
func (r *Reader) scope(asOf time.Time) scope {
	sc := newScope(asOf)
	sc.floor = r.floor()
	return sc
}

// live is the SQL condition (on alias f) for a fact believed in scope. As
// of T, a fact is believed when recorded at or before T and not retracted
// by T; a superseded fact without a retraction time (valid-time mode) is
// taken as retracted when its successor was recorded.
func (s scope) live() (string, []any) {
	if s.asOf == "" {
		return s.within(`f.status = 'active'`, nil)
	}
	return s.within(`f.status != 'rejected' AND f.recorded_at <= ? AND COALESCE(f.retracted_at,
		(SELECT n.recorded_at FROM facts n WHERE n.id = f.superseded_by), '9999') > ?`, []any{s.asOf, s.asOf})
}

// within adds the retention window to a condition on alias f.
func (s scope) within(cond string, args []any) (string, []any) {
	if s.floor == "" {
		return cond, args
	}
	w, wargs := factWithin("f", s.floor)
	return cond + ` AND ` + w, append(args, wargs...)
}

// factWithin is the SQL condition for a fact (alias a) that happened at
// or after floor: one an event it cites happened since (by the event's own
// time), or, citing none, one said (else recorded) since. It is the
// complement of what forget --before floor deletes, so a read under a
// window returns exactly what pruning past it keeps.
func factWithin(a, floor string) (string, []any) {
	return `(EXISTS (SELECT 1 FROM fact_provenance wv JOIN session_events we ON we.seq = wv.event_seq
			WHERE wv.fact_id = ` + a + `.id AND COALESCE(we.occurred_at, we.recorded_at) >= ?)
		OR (NOT EXISTS (SELECT 1 FROM fact_provenance wv WHERE wv.fact_id = ` + a + `.id AND wv.event_seq IS NOT NULL)
			AND COALESCE(` + a + `.said_at, ` + a + `.recorded_at) >= ?))`, []any{floor, floor}
}

// Filter says which facts a read may return: a typed value that graph
// renders into its own statements, so no caller hands it SQL.
type Filter struct {
	// AsOf keeps the facts the store held at that instant; zero means now.
	AsOf time.Time
	// Believed keeps only the facts believed then; otherwise every fact
	// but rejected ones may be returned, so a hit on history can lead to
	// its successor.
	Believed bool
}

// where renders f as a condition on alias f, under r's retention window.
func (r *Reader) where(f Filter) (string, []any) {
	sc := r.scope(f.AsOf)
	if f.Believed {
		return sc.live()
	}
	return sc.candidate()
}

// candidate is the SQL condition for facts an arm may find: every fact but
// rejected ones, so a hit on history can lead to its successor.
func (s scope) candidate() (string, []any) {
	if s.asOf == "" {
		return s.within(`f.status != 'rejected'`, nil)
	}
	return s.within(`f.status != 'rejected' AND f.recorded_at <= ?`, []any{s.asOf})
}

// eventWithin is the retention window as a condition on an event (alias
// a): one that happened, by its own time, at or after the floor. It is
// "1 = 1" when no window is set.
func (s scope) eventWithin(a string) (string, []any) {
	if s.floor == "" {
		return `1 = 1`, nil
	}
	return `COALESCE(` + a + `.occurred_at, ` + a + `.recorded_at) >= ?`, []any{s.floor}
}

// LoadHit reads one fact with its provenance and entities.
func (r *Reader) LoadHit(ctx context.Context, id int64) (Hit, error) {
	db := r.db
	m, err := loadHits(ctx, db, []int64{id})
	if err != nil {
		return Hit{}, err
	}
	h, ok := m[id]
	if !ok {
		return Hit{}, fmt.Errorf("load fact %d: %w", id, sql.ErrNoRows)
	}
	return *h, nil
}

// loadHits reads facts by id, with provenance and entities, in one
// statement however many ids there are: on PostgreSQL each statement is a
// round trip to the server, and three of them cost a search more than
// the reading. Each row says what it carries (hitFact …): the fact, one of
// its provenance rows, or one of its entities. The rows come in no order
// (a sorter over them cost more than the reading); the few of each fact
// are put in order here.
func loadHits(ctx context.Context, db querier, ids []int64) (map[int64]*Hit, error) {
	out := make(map[int64]*Hit, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	eng := db.Engine()
	args := []any{jsonIDs(ids), jsonIDs(ids), jsonIDs(ids)}
	rows, err := db.QueryContext(ctx, `SELECT 0 AS k, f.id, f.content, f.domain, f.subdomain, f.status, f.producer, f.speaker_role, f.speaker,
			f.session_id, f.said_at, f.valid_from, f.valid_until, f.recorded_at, f.confidence, f.importance, f.superseded_by, CAST(NULL AS BIGINT), f.kind
		FROM facts f WHERE `+idIn(eng, "f.id")+`
		UNION ALL SELECT 1, fact_id, COALESCE(session_id, ''), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
			NULL, NULL, event_seq, NULL, NULL
		FROM fact_provenance WHERE `+idIn(eng, "fact_id")+`
		UNION ALL SELECT 2, fe.fact_id, e.name, e.type, fe.role, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
			NULL, NULL, e.id, fe.is_subject, NULL
		FROM fact_entities fe JOIN entities e ON e.id = fe.entity_id WHERE `+idIn(eng, "fe.fact_id"), args...)
	if err != nil {
		return nil, fmt.Errorf("load facts: %w", err)
	}
	defer rows.Close()
	type provenance struct {
		fact, seq int64
		event     bool
		session   string
	}
	var provs []provenance
	type entity struct {
		fact int64
		ref  EntityRef
	}
	var ents []entity
	row := newValues(19)
	for rows.Next() {
		if err := row.scan(rows); err != nil {
			return nil, fmt.Errorf("load facts: %w", err)
		}
		// Columns: kind, id, twelve texts (2–13), confidence, importance,
		// two integers (16, 17), the fact's kind (18).
		id := row.int(1)
		switch row.int(0) {
		case hitFact:
			h := &Hit{ID: id, Content: row.str(2), Domain: row.str(3), Subdomain: row.str(4), Status: row.str(5),
				Producer: row.str(6), SpeakerRole: row.str(7), Speaker: row.str(8), SessionID: row.str(9),
				SaidAt: row.str(10), ValidFrom: row.str(11), ValidUntil: row.str(12), RecordedAt: row.str(13),
				Confidence: row.float(14), Importance: row.float(15), SupersededBy: row.int(16), Kind: row.str(18),
				EventIDs: []int64{}, Entities: []EntityRef{}, MatchedBy: []Match{}, Sessions: []string{}}
			out[id] = h
		case hitProvenance:
			provs = append(provs, provenance{fact: id, seq: row.int(16), event: !row.null(16), session: row.str(2)})
		case hitEntity:
			ents = append(ents, entity{fact: id, ref: EntityRef{ID: row.int(16), Name: row.str(2), Type: row.str(3),
				Role: row.str(4), IsSubject: row.int(17) != 0}})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load facts: %w", err)
	}
	// A fact's events in order, then its rows of no event; its sessions
	// in the order of their first row.
	slices.SortFunc(provs, func(a, b provenance) int {
		if a.fact != b.fact {
			return cmp.Compare(a.fact, b.fact)
		}
		if a.event != b.event {
			if a.event {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.seq, b.seq), strings.Compare(a.session, b.session))
	})
	for _, p := range provs {
		h := out[p.fact]
		if h == nil {
			continue
		}
		if p.event && (len(h.EventIDs) == 0 || h.EventIDs[len(h.EventIDs)-1] != p.seq) {
			h.EventIDs = append(h.EventIDs, p.seq)
		}
		if p.session != "" && !contains(h.Sessions, p.session) {
			h.Sessions = append(h.Sessions, p.session)
		}
	}
	for _, e := range ents {
		if h := out[e.fact]; h != nil {
			h.Entities = append(h.Entities, e.ref)
		}
	}
	// Subjects first, then by entity and role.
	for _, h := range out {
		slices.SortFunc(h.Entities, func(a, b EntityRef) int {
			if a.IsSubject != b.IsSubject {
				if a.IsSubject {
					return -1
				}
				return 1
			}
			return cmp.Or(cmp.Compare(a.ID, b.ID), strings.Compare(a.Role, b.Role))
		})
	}
	return out, nil
}

// What a row of loadHits carries (its first column).
const (
	hitFact = iota
	hitProvenance
	hitEntity
)

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// OnlyContext reports whether h was found only through conversation
// context, so it does not contain the query's words: a caller acting on
// "facts matching these words" (forget --matching) skips it.
func (h Hit) OnlyContext() bool {
	for _, m := range h.MatchedBy {
		if m.Arm != ArmContext {
			return false
		}
	}
	return len(h.MatchedBy) > 0
}

func dedupe(ids []int64) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func scanIDs(rows *sql.Rows, what string) ([]int64, error) {
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return ids, nil
}

package graph

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store"
)

// Fold is the comparison key of entity names: lowercase letters and digits
// only, so "Acme Corp", "acme-corp" and "ACME_corp" agree. It must equal
// integrate.Fold, which writes the entities.fold column (a test pins it).
func Fold(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// selfFolds are the names that mean the store's owner.
var selfFolds = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"theuser": true, "user": true, "me": true, "myself": true}
})

// EntityQuery asks about one named thing.
type EntityQuery struct {
	Name string
	// Type narrows to entities of one type; empty answers every type.
	Type string
	// Limit caps the facts; DefaultLimit when 0.
	Limit int
	AsOf  time.Time
}

// EntityCard is one entity row that answered.
type EntityCard struct {
	ID      int64    `json:"id"`
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	IsSelf  bool     `json:"is_self"`
	Aliases []string `json:"aliases"`
}

// EntityFact is a fact about or mentioning an entity, with its part in it.
type EntityFact struct {
	Hit
	// EntityID is the entity the fact links to; 0 for a fact found only by
	// its wording.
	EntityID  int64  `json:"entity_id"`
	Role      string `json:"role"`
	IsSubject bool   `json:"is_subject"`
}

// Connection is an entity linked to an answering one by an edge.
type Connection struct {
	ID       int64   `json:"id"`
	Name     string  `json:"name"`
	Type     string  `json:"type"`
	Relation string  `json:"relation"`
	Strength float64 `json:"strength"`
	From     int64   `json:"from"`
}

// EntityAnswer is everything about a named thing. Found is false when no
// entity has the name; Facts then holds facts whose wording mentions it.
type EntityAnswer struct {
	Name      string       `json:"name"`
	Type      string       `json:"type,omitempty"`
	Found     bool         `json:"found"`
	Entities  []EntityCard `json:"entities"`
	Facts     []EntityFact `json:"facts"`
	Connected []Connection `json:"connected"`
	Notes     []string     `json:"notes,omitempty"`
	// OtherTypes lists the types an entity of this name has when the type
	// asked for matched none of them.
	OtherTypes []string `json:"other_types,omitempty"`
}

// MaxConnections caps the connected entities listed.
const MaxConnections = 20

// Entity answers an entity lookup: every entity whose name or alias folds
// to the name (all types unless one is given), its believed facts (facts
// about it first, then by importance), and its neighbours in the graph.
func (r *Reader) Entity(ctx context.Context, q EntityQuery) (EntityAnswer, error) {
	db := r.db
	ans := EntityAnswer{Name: q.Name, Type: q.Type, Entities: []EntityCard{}, Facts: []EntityFact{}, Connected: []Connection{}}
	if q.Limit <= 0 {
		q.Limit = DefaultLimit
	}
	fold := Fold(q.Name)
	if fold == "" {
		return ans, fmt.Errorf("entity name %q holds no letter or digit; give the name of a person, place, project or thing", q.Name)
	}
	sc := r.scope(q.AsOf)
	cards, err := findEntities(ctx, db, fold, q.Type)
	if err != nil {
		return ans, err
	}
	if cards, err = cardsWithin(ctx, db, sc, cards); err != nil {
		return ans, err
	}
	if len(cards) == 0 && q.Type != "" {
		others, err := findEntities(ctx, db, fold, "")
		if err != nil {
			return ans, err
		}
		if others, err = cardsWithin(ctx, db, sc, others); err != nil {
			return ans, err
		}
		for _, c := range others {
			if !slices.Contains(ans.OtherTypes, c.Type) {
				ans.OtherTypes = append(ans.OtherTypes, c.Type)
			}
		}
	}
	if len(cards) == 0 {
		ans.Notes = append(ans.Notes, "no entity has this name; facts below only mention the wording")
		ans.Facts, err = wordingFacts(ctx, db, sc, q.Name, q.Limit)
		return ans, err
	}
	ans.Found, ans.Entities = true, cards
	ids := make([]int64, len(cards))
	for i, c := range cards {
		ids[i] = c.ID
	}
	if ans.Facts, err = linkedFacts(ctx, db, sc, ids, q.Limit); err != nil {
		return ans, err
	}
	ans.Connected, err = neighbours(ctx, db, sc, ids, MaxConnections)
	return ans, err
}

// heldWithin is the subset of entity ids that a fact in sc names. Under a
// retention window an entity only facts past it name is not shown: its
// name is what those facts said. Without a window every id is kept.
func heldWithin(ctx context.Context, db *store.DB, sc scope, ids []int64) (map[int64]bool, error) {
	out := make(map[int64]bool, len(ids))
	if sc.floor == "" || len(ids) == 0 {
		for _, id := range ids {
			out[id] = true
		}
		return out, nil
	}
	cond, cargs := sc.candidate()
	in, args := store.InList(ids)
	rows, err := db.QueryContext(ctx, `SELECT DISTINCT fe.entity_id FROM fact_entities fe JOIN facts f ON f.id = fe.fact_id
		WHERE fe.entity_id IN (`+in+`) AND `+cond, append(args, cargs...)...)
	if err != nil {
		return nil, fmt.Errorf("entities within the retention window: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("entities within the retention window: %w", err)
		}
		out[id] = true
	}
	return out, rows.Err()
}

// keepHeld keeps the items whose entity (id) heldWithin keeps.
func keepHeld[T any](ctx context.Context, db *store.DB, sc scope, items []T, id func(T) int64) ([]T, error) {
	ids := make([]int64, len(items))
	for i, it := range items {
		ids[i] = id(it)
	}
	keep, err := heldWithin(ctx, db, sc, ids)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(items, func(it T) bool { return !keep[id(it)] }), nil
}

// cardsWithin keeps the cards heldWithin keeps.
func cardsWithin(ctx context.Context, db *store.DB, sc scope, cards []EntityCard) ([]EntityCard, error) {
	return keepHeld(ctx, db, sc, cards, func(c EntityCard) int64 { return c.ID })
}

func findEntities(ctx context.Context, db *store.DB, fold, typ string) ([]EntityCard, error) {
	q := `SELECT DISTINCT e.id, e.name, e.type, e.is_self FROM entities e LEFT JOIN entity_aliases a ON a.entity_id = e.id
		WHERE (e.fold = ? OR a.fold = ? OR (e.is_self = 1 AND ?))`
	args := []any{fold, fold, selfFolds()[fold]}
	if typ != "" {
		q += ` AND lower(e.type) = lower(trim(?))`
		args = append(args, typ)
	}
	rows, err := db.QueryContext(ctx, q+` ORDER BY e.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("find entity: %w", err)
	}
	var cards []EntityCard
	for rows.Next() {
		var c EntityCard
		if err := rows.Scan(&c.ID, &c.Name, &c.Type, &c.IsSelf); err != nil {
			rows.Close()
			return nil, fmt.Errorf("find entity: %w", err)
		}
		c.Aliases = []string{}
		cards = append(cards, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find entity: %w", err)
	}
	for i := range cards {
		rows, err := db.QueryContext(ctx, `SELECT alias FROM entity_aliases WHERE entity_id = ? ORDER BY alias`, cards[i].ID)
		if err != nil {
			return nil, fmt.Errorf("read aliases: %w", err)
		}
		for rows.Next() {
			var a string
			if err := rows.Scan(&a); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read aliases: %w", err)
			}
			cards[i].Aliases = append(cards[i].Aliases, a)
		}
		rows.Close()
	}
	return cards, nil
}

// linkedFacts reads believed facts linked to any of ids, facts about an
// entity first, then by importance, confidence and recency; each fact once.
func linkedFacts(ctx context.Context, db *store.DB, sc scope, ids []int64, limit int) ([]EntityFact, error) {
	live, largs := sc.live()
	in, args := store.InList(ids)
	rows, err := db.QueryContext(ctx, `SELECT f.id, fe.entity_id, fe.role, fe.is_subject
		FROM fact_entities fe JOIN facts f ON f.id = fe.fact_id
		WHERE fe.entity_id IN (`+in+`) AND `+live+`
		ORDER BY fe.is_subject DESC, f.importance DESC, f.confidence DESC,
			COALESCE(f.said_at, f.valid_from, f.recorded_at) DESC, f.id DESC`, append(args, largs...)...)
	if err != nil {
		return nil, fmt.Errorf("entity facts: %w", err)
	}
	var out []EntityFact
	seen := map[int64]bool{}
	for rows.Next() {
		var ef EntityFact
		if err := rows.Scan(&ef.ID, &ef.EntityID, &ef.Role, &ef.IsSubject); err != nil {
			rows.Close()
			return nil, fmt.Errorf("entity facts: %w", err)
		}
		if seen[ef.ID] || len(out) == limit {
			continue
		}
		seen[ef.ID] = true
		out = append(out, ef)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("entity facts: %w", err)
	}
	return fillFacts(ctx, db, out)
}

// wordingFacts finds believed facts whose text holds the name's words.
func wordingFacts(ctx context.Context, db *store.DB, sc scope, name string, limit int) ([]EntityFact, error) {
	text := text.Sanitize(name)
	if len(text) == 0 {
		return []EntityFact{}, nil
	}
	eng := db.Engine()
	live, largs := sc.live()
	rows, err := db.QueryContext(ctx, `SELECT f.id FROM `+eng.TextMatches(store.FactText)+` k JOIN facts f ON f.id = k.id
		WHERE `+live+` ORDER BY k.score DESC, f.id LIMIT ?`, append(append([]any{eng.TextQuery(text)}, largs...), limit)...)
	if err != nil {
		return nil, fmt.Errorf("facts mentioning %q: %w", name, err)
	}
	ids, err := scanIDs(rows, "facts mentioning the name")
	if err != nil {
		return nil, err
	}
	out := make([]EntityFact, len(ids))
	for i, id := range ids {
		out[i] = EntityFact{Hit: Hit{ID: id}, Role: "mentions the wording"}
	}
	return fillFacts(ctx, db, out)
}

func fillFacts(ctx context.Context, db *store.DB, efs []EntityFact) ([]EntityFact, error) {
	ids := make([]int64, len(efs))
	for i, ef := range efs {
		ids[i] = ef.ID
	}
	hits, err := loadHits(ctx, db, ids)
	if err != nil {
		return nil, err
	}
	out := []EntityFact{}
	for _, ef := range efs {
		if h := hits[ef.ID]; h != nil {
			ef.Hit = *h
			out = append(out, ef)
		}
	}
	return out, nil
}

// neighbours lists entities joined to ids by an edge, strongest first,
// leaving out those heldWithin drops.
func neighbours(ctx context.Context, db *store.DB, sc scope, ids []int64, limit int) ([]Connection, error) {
	in, args := store.InList(ids)
	rows, err := db.QueryContext(ctx, `SELECT ed.a_id, ed.b_id, ed.relation, ed.strength, o.id, o.name, o.type
		FROM entity_edges ed JOIN entities o ON o.id = CASE WHEN ed.a_id IN (`+in+`) THEN ed.b_id ELSE ed.a_id END
		WHERE (ed.a_id IN (`+in+`) OR ed.b_id IN (`+in+`)) AND o.id NOT IN (`+in+`)
		ORDER BY ed.strength DESC, o.id, ed.relation`, append(append(append(args, args...), args...), args...)...)
	if err != nil {
		return nil, fmt.Errorf("entity neighbours: %w", err)
	}
	defer rows.Close()
	out := []Connection{}
	for rows.Next() {
		var a, b int64
		var c Connection
		if err := rows.Scan(&a, &b, &c.Relation, &c.Strength, &c.ID, &c.Name, &c.Type); err != nil {
			return nil, fmt.Errorf("entity neighbours: %w", err)
		}
		c.From = a
		if c.ID == a {
			c.From = b
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("entity neighbours: %w", err)
	}
	out, err = keepHeld(ctx, db, sc, out, func(c Connection) int64 { return c.ID })
	if err != nil {
		return nil, err
	}
	return out[:min(limit, len(out))], nil
}

// RenderEntity writes an entity answer as text.
func RenderEntity(w io.Writer, a EntityAnswer) {
	if !a.Found {
		fmt.Fprintf(w, "No entity is named %q", a.Name)
		if a.Type != "" {
			fmt.Fprintf(w, " with type %s", a.Type)
			if len(a.OtherTypes) > 0 {
				kinds := make([]string, len(a.OtherTypes))
				for i, t := range a.OtherTypes {
					kinds[i] = "a " + t
					if t != "" && strings.ContainsRune("aeiou", rune(t[0])) {
						kinds[i] = "an " + t
					}
				}
				fmt.Fprintf(w, " (it is %s: leave out --type, or give --type %s)", strings.Join(kinds, " and "), a.OtherTypes[0])
			}
		}
		switch len(a.Facts) {
		case 0:
			fmt.Fprintln(w, ", and no fact mentions the wording.")
		case 1:
			fmt.Fprintln(w, ". 1 fact mentions the wording (none is linked to it as an entity):")
		default:
			fmt.Fprintf(w, ". %s mention the wording (none is linked to it as an entity):\n", text.Plural(len(a.Facts), "fact"))
		}
	} else {
		for _, c := range a.Entities {
			fmt.Fprintf(w, "Entity %d: %s (%s)", c.ID, c.Name, c.Type)
			if c.IsSelf {
				fmt.Fprint(w, " — the store's owner")
			}
			if len(c.Aliases) > 0 {
				fmt.Fprintf(w, " · also called %s", strings.Join(c.Aliases, ", "))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s, facts about it first:\n", text.Plural(len(a.Facts), "fact"))
	}
	for i, f := range a.Facts {
		part := "mentioned"
		if f.IsSubject {
			part = "subject"
		}
		if f.EntityID == 0 {
			part = "wording only, not linked"
		}
		fmt.Fprintf(w, "%d. [fact %d] %s (%s; role %s)\n", i+1, f.ID, quoted(f.Content), part, f.Role)
		renderFactMeta(w, f.Hit)
	}
	if len(a.Connected) > 0 {
		fmt.Fprintln(w, "Connected entities:")
		conns := append([]Connection(nil), a.Connected...)
		sort.SliceStable(conns, func(i, j int) bool { return conns[i].Strength > conns[j].Strength })
		for _, c := range conns {
			fmt.Fprintf(w, "  - %s (%s) — %s, strength %g\n", c.Name, c.Type, c.Relation, c.Strength)
		}
	}
}

package graph

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/graph/vector"
	"github.com/recollect/recollect/store"
)

// Bounds of the context traversal.
const (
	// MaxHops is the farthest a context lookup walks from its seeds.
	MaxHops = 2
	// HopFanout caps the neighbours followed from one entity, strongest first.
	HopFanout = 8
	// MaxContextEntities caps the entities a lookup reaches.
	MaxContextEntities = 30
	// FactsPerEntity caps the facts taken from each reached entity.
	FactsPerEntity = 5
	// MaxContextFacts caps the whole answer.
	MaxContextFacts = 40
)

// ContextQuery asks for what surrounds a topic.
type ContextQuery struct {
	Topic string
	// Hops is 1 or 2 (the default, MaxHops).
	Hops int
	// Limit caps the direct search hits; 10 when 0.
	Limit  int
	AsOf   time.Time
	Vector []float32
	Space  vector.Space
}

// ContextFact is a fact with the path that reached it.
type ContextFact struct {
	Hit
	// Hops is 0 for a direct search hit, else the entity-graph distance.
	Hops int      `json:"hops"`
	Path []string `json:"path"`
}

// ReachedEntity is an entity the traversal visited.
type ReachedEntity struct {
	ID   int64    `json:"id"`
	Name string   `json:"name"`
	Type string   `json:"type"`
	Hops int      `json:"hops"`
	Path []string `json:"path"`
}

// ContextAnswer is a topic's search hits plus what the entity graph joins
// to them, each fact once.
type ContextAnswer struct {
	Topic    string          `json:"topic"`
	Arms     []Arm           `json:"arms"`
	Facts    []ContextFact   `json:"facts"`
	Entities []ReachedEntity `json:"entities"`
	Notes    []string        `json:"notes,omitempty"`
}

// Context searches the topic, then walks outward from the entities of the
// hits and those the topic names, at most Hops edges, bounded by the caps
// above; every fact appears once, with the path that first reached it.
func (r *Reader) Context(ctx context.Context, q ContextQuery) (ContextAnswer, error) {
	db := r.db
	ans := ContextAnswer{Topic: q.Topic, Arms: []Arm{}, Facts: []ContextFact{}, Entities: []ReachedEntity{}}
	if q.Hops <= 0 || q.Hops > MaxHops {
		q.Hops = MaxHops
	}
	if q.Limit <= 0 {
		q.Limit = 10
	}
	res, err := r.Search(ctx, Query{Text: q.Topic, Limit: q.Limit, AsOf: q.AsOf, Vector: q.Vector, Space: q.Space, KnowledgeOnly: true})
	if err != nil {
		return ans, err
	}
	ans.Arms, ans.Notes = res.Arms, res.Notes
	seen := map[int64]bool{}
	for _, h := range res.Results {
		seen[h.ID] = true
		ans.Facts = append(ans.Facts, ContextFact{Hit: h, Path: []string{fmt.Sprintf("search: %s", FoundBy(h))}})
	}
	sc := r.scope(q.AsOf)
	seeds, err := contextSeeds(ctx, db, sc, q.Topic, res.Results)
	if err != nil {
		return ans, err
	}
	if ans.Entities, err = walk(ctx, db, sc, seeds, q.Hops); err != nil {
		return ans, err
	}
	for _, e := range ans.Entities {
		if len(ans.Facts) >= MaxContextFacts {
			break
		}
		efs, err := linkedFacts(ctx, db, sc, []int64{e.ID}, FactsPerEntity+len(seen))
		if err != nil {
			return ans, err
		}
		taken := 0
		for _, ef := range efs {
			if seen[ef.ID] || taken == FactsPerEntity || len(ans.Facts) >= MaxContextFacts {
				continue
			}
			seen[ef.ID] = true
			taken++
			path := append(append([]string(nil), e.Path...), fmt.Sprintf("%s of [fact %d]", partName(ef), ef.ID))
			ans.Facts = append(ans.Facts, ContextFact{Hit: ef.Hit, Hops: e.Hops, Path: path})
		}
	}
	return ans, nil
}

func partName(ef EntityFact) string {
	if ef.IsSubject {
		return "subject"
	}
	return ef.Role
}

// contextSeeds are the entities the topic names and those of the hits,
// except the store's owner, who is linked to nearly everything, and those
// only facts past the retention window name.
func contextSeeds(ctx context.Context, db *store.DB, sc scope, topic string, hits []Hit) ([]ReachedEntity, error) {
	var seeds []ReachedEntity
	have := map[int64]bool{}
	grams := termGrams(text.Terms(topic))
	if len(grams) > 0 {
		in, args := store.InList(grams)
		rows, err := db.QueryContext(ctx, `SELECT id, name, type FROM entities WHERE is_self = 0 AND fold IN (`+in+`)
			UNION SELECT e.id, e.name, e.type FROM entity_aliases a JOIN entities e ON e.id = a.entity_id
			WHERE e.is_self = 0 AND a.fold IN (`+in+`) ORDER BY 1`, append(args, args...)...)
		if err != nil {
			return nil, fmt.Errorf("context seeds: %w", err)
		}
		for rows.Next() {
			var e ReachedEntity
			if err := rows.Scan(&e.ID, &e.Name, &e.Type); err != nil {
				rows.Close()
				return nil, fmt.Errorf("context seeds: %w", err)
			}
			e.Path = []string{fmt.Sprintf("topic names %s (%s)", e.Name, e.Type)}
			have[e.ID] = true
			seeds = append(seeds, e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("context seeds: %w", err)
		}
		if seeds, err = keepHeld(ctx, db, sc, seeds, func(e ReachedEntity) int64 { return e.ID }); err != nil {
			return nil, err
		}
	}
	for _, h := range hits {
		for _, r := range h.Entities {
			if have[r.ID] || isSelf(ctx, db, r.ID) {
				continue
			}
			have[r.ID] = true
			seeds = append(seeds, ReachedEntity{ID: r.ID, Name: r.Name, Type: r.Type,
				Path: []string{fmt.Sprintf("[fact %d] names %s (%s)", h.ID, r.Name, r.Type)}})
		}
	}
	return seeds, nil
}

func isSelf(ctx context.Context, db *store.DB, id int64) bool {
	var self bool
	_ = db.QueryRowContext(ctx, `SELECT is_self FROM entities WHERE id = ?`, id).Scan(&self)
	return self
}

// walk visits entities breadth-first from seeds over entity_edges, at most
// hops edges out, HopFanout neighbours per entity, MaxContextEntities in all.
func walk(ctx context.Context, db *store.DB, sc scope, seeds []ReachedEntity, hops int) ([]ReachedEntity, error) {
	out := []ReachedEntity{}
	seen := map[int64]bool{}
	for _, s := range seeds {
		if len(out) < MaxContextEntities {
			seen[s.ID] = true
			out = append(out, s)
		}
	}
	frontier := append([]ReachedEntity(nil), out...)
	for hop := 1; hop <= hops && len(frontier) > 0; hop++ {
		var next []ReachedEntity
		for _, from := range frontier {
			conns, err := neighbours(ctx, db, sc, []int64{from.ID}, HopFanout)
			if err != nil {
				return nil, err
			}
			for _, c := range conns {
				if seen[c.ID] || len(out) >= MaxContextEntities || isSelf(ctx, db, c.ID) {
					continue
				}
				seen[c.ID] = true
				e := ReachedEntity{ID: c.ID, Name: c.Name, Type: c.Type, Hops: hop,
					Path: append(append([]string(nil), from.Path...), fmt.Sprintf("%s (strength %g) → %s (%s)", c.Relation, c.Strength, c.Name, c.Type))}
				out = append(out, e)
				next = append(next, e)
			}
		}
		frontier = next
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Hops < out[j].Hops })
	return out, nil
}

// RenderContext writes a context answer as text.
func RenderContext(w io.Writer, a ContextAnswer) {
	for _, n := range a.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if len(a.Facts) == 0 {
		fmt.Fprintf(w, "Nothing in knowledge relates to %q.\n", oneLine(a.Topic))
		return
	}
	arms := make([]string, len(a.Arms))
	for i, arm := range a.Arms {
		arms[i] = string(arm)
	}
	fmt.Fprintf(w, "Context for %q: %s (search arms: %s; then up to %d hops over the entity graph, %s reached)\n",
		oneLine(a.Topic), text.Plural(len(a.Facts), "fact"), strings.Join(arms, ", "), MaxHops, text.Plural(len(a.Entities), "entity"))
	for i, f := range a.Facts {
		fmt.Fprintf(w, "%d. [fact %d] %s\n", i+1, f.ID, quoted(f.Content))
		fmt.Fprintf(w, "   reached by: %s\n", strings.Join(f.Path, " → "))
		renderFactMeta(w, f.Hit)
	}
}

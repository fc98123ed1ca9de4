package integrate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/store"
)

// Relation is an explicit, directed relation between two entities of a
// fact, given by a model ("Alice" works_at "Acme"). Co-mention edges are
// undirected and need no model.
type Relation struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Relation string `json:"relation"`
}

const entitiesSystem = `You find the entities a fact names: people, organizations, places, projects, tools and other things. Give each its name as written, a type (person, organization, place, project, tool, thing), its role in the fact, and is_subject true for the one entity the fact is about. "The user" is the person whose memory this is. Add relations between listed entities only when the fact states them. Answer only with the JSON object.`

const entitiesSchema = `{"type":"object","properties":{"entities":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"type":{"type":"string"},"role":{"type":"string"},"is_subject":{"type":"boolean"}},"required":["name","type","role","is_subject"],"additionalProperties":false}},"relations":{"type":"array","items":{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"},"relation":{"type":"string"}},"required":["from","to","relation"],"additionalProperties":false}}},"required":["entities","relations"],"additionalProperties":false}`

// decideEntities takes the extract's entities when it gave them, else the
// entities stage, else the heuristic; then attributes the speaker.
func (in *Integrator) decideEntities(ctx context.Context, pf PendingFact, rep *Report) ([]Mention, []Relation, error) {
	var ms []Mention
	var rels []Relation
	if len(pf.Entities) > 0 {
		if err := json.Unmarshal(pf.Entities, &ms); err != nil || !validMentions(ms) {
			in.logger().Warn("session fact carries unusable entities; finding them again", "session_fact", pf.ID)
			ms = nil
		}
	}
	if len(ms) == 0 {
		var ans struct {
			Entities  []Mention  `json:"entities"`
			Relations []Relation `json:"relations"`
		}
		_, how, err := in.ask(ctx, stageCall{stage: "entities", system: entitiesSystem, prompt: "Fact: " + pf.Content,
			schemaName: "entities", schema: entitiesSchema, out: &ans, check: func() error {
				if !validMentions(ans.Entities) {
					return fmt.Errorf("an entity has an empty or overlong name")
				}
				names := map[string]bool{}
				for _, m := range ans.Entities {
					names[Fold(m.Name)] = true
				}
				for _, r := range ans.Relations {
					if !names[Fold(r.From)] || !names[Fold(r.To)] || CanonicalDomain(r.Relation) == "" {
						return fmt.Errorf("relation %q %s %q names an entity not listed", r.From, r.Relation, r.To)
					}
				}
				return nil
			}}, rep)
		if err != nil {
			return nil, nil, err
		}
		if how == byModel {
			ms, rels = ans.Entities, ans.Relations
		} else {
			ms = HeuristicMentions(pf.Content)
		}
	}
	return attribute(ms, pf), rels, nil
}

func validMentions(ms []Mention) bool {
	for _, m := range ms {
		if n := strings.TrimSpace(m.Name); n == "" || len(n) > 120 {
			return false
		}
	}
	return true
}

// attribute fixes who "I" is: the store's owner for user-channel speech
// without a named speaker, the named speaker when there is one, and nobody
// for the assistant's own first person. A mention of "the user" is the
// owner whoever says it. Unnamed user speech also links the owner as its
// speaker.
func attribute(ms []Mention, pf PendingFact) []Mention {
	out := make([]Mention, 0, len(ms)+1)
	hasSelf := false
	for _, m := range ms {
		switch {
		case isFirstPerson(m.Name) && pf.SpeakerRole == "assistant":
			continue
		case isFirstPerson(m.Name) && pf.Speaker != "":
			m.Name, m.Type = pf.Speaker, "person"
		case isSelfName(m.Name):
			m.Name, hasSelf = SelfName, true
		}
		out = append(out, m)
	}
	if pf.SpeakerRole == "user" && pf.Speaker == "" && !hasSelf {
		out = append(out, Mention{Name: SelfName, Type: "person", Role: "speaker"})
	}
	return out
}

// isFirstPerson is a speaker's own "I": who it is depends on who speaks.
func isFirstPerson(name string) bool {
	n := Canonical(name)
	return n == "i" || n == "me" || n == "we"
}

// linkEntities resolves the mentions, links them to the fact with their
// roles, strengthens undirected co-mention edges between the entities the
// fact names (its speaker is not named by it) and adds the explicit
// relations as directed edges (from → to).
func linkEntities(ctx context.Context, tx *store.Tx, factID int64, ms []Mention, rels []Relation) (int, error) {
	ms, rels, cut := boundLinks(ms, rels)
	if err := model.CountCuts(ctx, tx, "integrate", cut); err != nil {
		return 0, err
	}
	ids := map[string]int64{}
	var order []int64
	for _, m := range ms {
		id, err := ResolveEntity(ctx, tx, m.Name, m.Type)
		if err != nil {
			return 0, err
		}
		role := strings.TrimSpace(m.Role)
		if role == "" {
			role = "mention"
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO fact_entities(fact_id, entity_id, role, is_subject) VALUES (?,?,?,?)
			ON CONFLICT DO NOTHING`, factID, id, role, m.IsSubject); err != nil {
			return 0, fmt.Errorf("link entity %d to fact %d: %w", id, factID, err)
		}
		if _, seen := ids[Fold(m.Name)]; !seen && role != "speaker" {
			order = append(order, id)
		}
		ids[Fold(m.Name)] = id
	}
	seen := map[[2]int64]bool{}
	for i := range order {
		for j := i + 1; j < len(order); j++ {
			a, b := min(order[i], order[j]), max(order[i], order[j])
			if a == b || seen[[2]int64{a, b}] {
				continue
			}
			seen[[2]int64{a, b}] = true
			if err := addEdge(ctx, tx, a, b, "co_mention", factID); err != nil {
				return 0, err
			}
		}
	}
	for _, r := range rels {
		a, b := ids[Fold(r.From)], ids[Fold(r.To)]
		rel := strings.ReplaceAll(CanonicalDomain(r.Relation), "-", "_")
		if a == 0 || b == 0 || a == b || rel == "" || rel == "co_mention" {
			continue
		}
		if err := addEdge(ctx, tx, a, b, rel, factID); err != nil {
			return 0, err
		}
	}
	return len(order), nil
}

// boundLinks keeps the speaker and the first model.MaxEntitiesPerFact
// entities a fact names, and as many explicit relations as the edge budget
// (model.MaxEdgesPerFact) leaves after their co-mentions, counting what
// it cut: one fact naming 1,000 entities made 499,500 edges.
func boundLinks(ms []Mention, rels []Relation) ([]Mention, []Relation, map[string]int64) {
	cut := map[string]int64{}
	names := map[string]bool{}
	kept := ms[:0:0]
	for _, m := range ms {
		f := Fold(m.Name)
		if strings.TrimSpace(m.Role) != "speaker" && !names[f] {
			if len(names) == model.MaxEntitiesPerFact {
				cut[model.CutEntitiesOverCap]++
				continue
			}
			names[f] = true
		}
		kept = append(kept, m)
	}
	n := len(names)
	if budget := model.MaxEdgesPerFact - n*(n-1)/2; len(rels) > budget {
		cut[model.CutEdgesOverCap] += int64(len(rels) - budget)
		rels = rels[:budget]
	}
	return kept, rels, cut
}

// addEdge adds an edge or strengthens it by one.
func addEdge(ctx context.Context, tx *store.Tx, a, b int64, relation string, factID int64) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO entity_edges(a_id, b_id, relation, strength, fact_id, updated_at)
		VALUES (?,?,?,1,?,?)
		ON CONFLICT(a_id, b_id, relation) DO UPDATE SET strength = entity_edges.strength + 1, fact_id = excluded.fact_id, updated_at = excluded.updated_at`,
		a, b, relation, factID, store.Now()); err != nil {
		return fmt.Errorf("add edge %d-%d %s: %w", a, b, relation, err)
	}
	return nil
}

package inspect

import (
	"context"
	"database/sql"
	"sort"

	"github.com/recollect/recollect/store"
)

// readGraph reads every entity (or, with a scope, those its facts mention)
// as a node and every active fact as edges between each pair of the
// entities it names, its subject first. Nodes are ordered best connected first, so a cap keeps the
// middle of the graph.
func readGraph(ctx context.Context, db *store.DB, scope []int64, d *Data) error {
	where, args := inScope(scope)
	nodes := map[int64]*Node{}
	if scope == nil {
		err := each(ctx, db, `SELECT id, name, type FROM entities`, nil, func(r *sql.Rows) error {
			var n Node
			if err := r.Scan(&n.ID, &n.Name, &n.Type); err != nil {
				return err
			}
			nodes[n.ID] = &n
			return nil
		})
		if err != nil {
			return err
		}
	}
	type link struct {
		fact, entity int64
		content      string
		name, typ    string
	}
	var links []link
	err := each(ctx, db, `SELECT f.id, e.id, f.content, e.name, e.type FROM facts f
		JOIN (SELECT fact_id, entity_id, max(is_subject) AS subject FROM fact_entities GROUP BY fact_id, entity_id) fe ON fe.fact_id = f.id
		JOIN entities e ON e.id = fe.entity_id
		WHERE f.status = 'active' AND `+where+` ORDER BY f.id, fe.subject DESC, e.id`, args, func(r *sql.Rows) error {
		var l link
		if err := r.Scan(&l.fact, &l.entity, &l.content, &l.name, &l.typ); err != nil {
			return err
		}
		links = append(links, l)
		return nil
	})
	if err != nil {
		return err
	}
	d.Graph.Edges = []Edge{}
	for start := 0; start < len(links); {
		end := start
		for end < len(links) && links[end].fact == links[start].fact {
			end++
		}
		fact := links[start:end]
		label := snippet(fact[0].content, 80)
		for i, l := range fact {
			n, ok := nodes[l.entity]
			if !ok {
				n = &Node{ID: l.entity, Name: l.name, Type: l.typ}
				nodes[l.entity] = n
			}
			n.Degree++
			for _, o := range fact[:i] {
				d.Graph.Edges = append(d.Graph.Edges, Edge{From: o.entity, To: l.entity, FactID: l.fact, Label: label})
			}
		}
		start = end
	}
	d.Graph.Nodes = make([]Node, 0, len(nodes))
	for _, n := range nodes {
		d.Graph.Nodes = append(d.Graph.Nodes, *n)
	}
	sort.Slice(d.Graph.Nodes, func(i, j int) bool {
		a, b := d.Graph.Nodes[i], d.Graph.Nodes[j]
		if a.Degree != b.Degree {
			return a.Degree > b.Degree
		}
		return a.ID < b.ID
	})
	return nil
}

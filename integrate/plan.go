package integrate

import (
	"context"
	"fmt"
)

// action is what happens to a fact that resembles stored knowledge.
type action int

const (
	actAdd   action = iota // a new K fact
	actMerge               // provenance merged into the target
	actNoop                // the target already covers it
)

// plan is every decision about one fact, made before its transaction so
// model calls never hold the write lock.
type plan struct {
	domain     string
	mentions   []Mention
	relations  []Relation
	act        action
	target     int64
	reason     string
	actor      string
	supersedes []supersession
}

// plan decides the fact's domain, entities, whether it duplicates stored
// knowledge and what it supersedes.
func (in *Integrator) plan(ctx context.Context, pf PendingFact, st *runState, rep *Report) (plan, error) {
	p := plan{act: actAdd, actor: in.actor(), reason: "new fact"}
	var err error
	if p.domain, err = in.decideDomain(ctx, pf, st, rep); err != nil {
		return p, err
	}
	if p.mentions, p.relations, err = in.decideEntities(ctx, pf, rep); err != nil {
		return p, err
	}
	if id, ok, err := activeByDigest(ctx, in.DB, pf.Digest); err != nil {
		return p, err
	} else if ok {
		p.act, p.target, p.reason = actMerge, id, "exact duplicate (normalised digest)"
		return p, nil
	}
	near, err := nearDuplicates(ctx, in.DB, pf.Content, p.domain)
	if err != nil {
		return p, err
	}
	if len(near) > 0 {
		p.act, p.target, p.reason, p.actor, err = in.reconcile(ctx, pf.Content, near, rep)
		if err != nil {
			return p, err
		}
		if p.act != actAdd {
			return p, nil
		}
	}
	ents, err := in.knownEntities(ctx, p.mentions)
	if err != nil {
		return p, err
	}
	if p.supersedes, err = in.decideSupersession(ctx, pf, ents, st, rep); err != nil {
		return p, fmt.Errorf("decide supersession: %w", err)
	}
	closed, err := in.closedTasks(ctx, pf)
	if err != nil {
		return p, err
	}
	for _, c := range closed {
		if !supersedesTarget(p.supersedes, c.older) {
			p.supersedes = append(p.supersedes, c)
		}
	}
	return p, nil
}

// knownEntities are the stored entities the fact names, its speaker
// aside (a speaker is on most of their facts and says nothing of the
// topic).
func (in *Integrator) knownEntities(ctx context.Context, ms []Mention) ([]int64, error) {
	var out []int64
	for _, m := range ms {
		if m.Role == "speaker" {
			continue
		}
		id, ok, err := findEntity(ctx, in.DB, m.Name, m.Type)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, id)
		}
	}
	return out, nil
}

// supersedesTarget reports whether list already retires older.
func supersedesTarget(list []supersession, older int64) bool {
	for _, s := range list {
		if s.older == older {
			return true
		}
	}
	return false
}

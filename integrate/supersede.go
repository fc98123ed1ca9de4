package integrate

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store"
)

// supersession is one decision: the newer fact replaces the older. Zero
// stands for the fact being integrated.
type supersession struct {
	newer, older  int64
	reason, actor string
}

// laterThan reports whether a was said after b; an unknown time is not.
func laterThan(a, b string) bool { return a != "" && b != "" && a > b }

// speakerOf is who "I" is in a fact: its named speaker, else its channel.
func speakerOf(speaker, role string) string {
	if speaker != "" {
		return speaker
	}
	if role == "" {
		return "user"
	}
	return role
}

// supersedeCandidates lists the stored facts a fact could replace: those
// naming one of its entities (the thing or person it is about) and those
// sharing its distinctive words (its subject, values and the values it
// says it replaces) — active ones and those this run superseded. A fact
// that reads as claiming nothing has no candidates.
func (in *Integrator) supersedeCandidates(ctx context.Context, entities []int64, r reading, st *runState) ([]storedFact, error) {
	if !r.claimsSomething() {
		return nil, nil
	}
	var runIDs []string
	for old := range st.supersededBy {
		runIDs = append(runIDs, strconv.FormatInt(old, 10))
	}
	statusClause := "f.status = 'active'"
	if len(runIDs) > 0 {
		statusClause = "(f.status = 'active' OR f.id IN (" + strings.Join(runIDs, ",") + "))"
	}
	const cols = `SELECT f.id, f.content, COALESCE(f.said_at,''), f.status, COALESCE(f.speaker,''), COALESCE(f.speaker_role,'') FROM facts f`
	seen := map[int64]bool{}
	var out []storedFact
	collect := func(query string, args ...any) error {
		list, err := in.readCandidates(ctx, query, args...)
		for _, c := range list {
			if !seen[c.ID] {
				seen[c.ID] = true
				out = append(out, c)
			}
		}
		return err
	}
	if len(entities) > 0 {
		ids, err := in.newestNaming(ctx, entities, statusClause, 200)
		if err != nil {
			return nil, err
		}
		if len(ids) > 0 {
			marks := make([]string, len(ids))
			for i, id := range ids {
				marks[i] = strconv.FormatInt(id, 10)
			}
			if err := collect(cols + ` WHERE f.id IN (` + strings.Join(marks, ",") + `) ORDER BY f.id DESC`); err != nil {
				return nil, err
			}
		}
	}
	kw, err := in.keywordCandidates(ctx, r.distinctive(), cols, statusClause)
	if err != nil {
		return nil, err
	}
	for _, c := range kw {
		if !seen[c.ID] {
			seen[c.ID] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// KeywordCap bounds the stored facts each distinctive word of a new fact
// reads as supersession candidates: its newest KeywordCap (passing the
// status clause), taken from the full-text index in id order, unscored.
// The cost per new fact then follows its words, not the store: scoring
// every fact holding any of them by BM25 would read a tenth of a large
// store for a common word such as "use" or "version". An older
// fact is missed only when every word it shares with the new one is in
// more than KeywordCap newer facts.
const KeywordCap = 100

// keywordCandidates returns at most KeywordCap stored facts sharing words
// with a new fact, those whose shared words are rarer (in fewer of the
// lists read) first, the newest among equals.
func (in *Integrator) keywordCandidates(ctx context.Context, words []string, cols, statusClause string) ([]storedFact, error) {
	eng := in.DB.Engine()
	query := cols + ` JOIN ` + eng.TextHits(store.FactText) + ` k ON k.id = f.id WHERE ` + statusClause + `
		ORDER BY k.id DESC LIMIT ?`
	facts := map[int64]storedFact{}
	weight := map[int64]float64{}
	for _, w := range words {
		q := text.Analyze(w).Query()
		if len(q) == 0 {
			continue
		}
		list, err := in.readCandidates(ctx, query, eng.TextQuery(q), KeywordCap)
		if err != nil {
			return nil, err
		}
		for _, c := range list {
			facts[c.ID] = c
			weight[c.ID] += 1 / float64(len(list))
		}
	}
	ids := make([]int64, 0, len(facts))
	for id := range facts {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if weight[ids[i]] != weight[ids[j]] {
			return weight[ids[i]] > weight[ids[j]]
		}
		return ids[i] > ids[j]
	})
	out := make([]storedFact, 0, min(len(ids), KeywordCap))
	for _, id := range ids[:min(len(ids), KeywordCap)] {
		out = append(out, facts[id])
	}
	return out, nil
}

// readCandidates runs a candidate query (its columns are cols').
func (in *Integrator) readCandidates(ctx context.Context, query string, args ...any) ([]storedFact, error) {
	rows, err := in.DB.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("find supersession candidates: %w", err)
	}
	defer rows.Close()
	var out []storedFact
	for rows.Next() {
		var c storedFact
		if err := rows.Scan(&c.ID, &c.Content, &c.SaidAt, &c.Status, &c.Speaker, &c.Role); err != nil {
			return nil, fmt.Errorf("find supersession candidates: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// newestNaming returns the newest limit facts (by id, newest first) that
// name one of entities and pass statusClause. Each entity's facts are read
// newest first from the (entity_id, is_subject, fact_id) index, at most
// limit per entity and subject flag, so an entity named by a hundred
// thousand facts costs no more than one named by a few; the newest limit
// of the union are always among those read, so the answer is the same as
// ordering every fact naming the entities.
func (in *Integrator) newestNaming(ctx context.Context, entities []int64, statusClause string, limit int) ([]int64, error) {
	seen := map[int64]bool{}
	var ids []int64
	// CROSS JOIN keeps SQLite reading fact_entities first; the join
	// condition is in WHERE, as PostgreSQL takes no ON after CROSS JOIN.
	q := `SELECT DISTINCT fe.fact_id FROM fact_entities fe CROSS JOIN facts f
		WHERE f.id = fe.fact_id AND fe.entity_id = ? AND fe.is_subject = ? AND ` + statusClause + ` ORDER BY fe.fact_id DESC LIMIT ?`
	for _, e := range entities {
		// is_subject is written from a bool: 0 or 1.
		for _, subject := range []int{0, 1} {
			rows, err := in.DB.QueryContext(ctx, q, e, subject, limit)
			if err != nil {
				return nil, fmt.Errorf("find supersession candidates: %w", err)
			}
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return nil, fmt.Errorf("find supersession candidates: %w", err)
				}
				if !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				return nil, fmt.Errorf("find supersession candidates: %w", err)
			}
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] > ids[j] })
	if len(ids) > limit {
		ids = ids[:limit]
	}
	return ids, nil
}

// storedFact is a supersession candidate with who "I" is in it.
type storedFact struct {
	candidate
	Speaker, Role string
}

// distinctive are the words a fact it replaces would share with it: its
// subject, its values and the values it names as replaced.
func (r reading) distinctive() []string {
	ws := map[string]bool{}
	for _, c := range r {
		for w := range c.subject {
			ws[w] = true
		}
		if c.self != "" && c.speaker != "user" && c.speaker != "assistant" {
			for w := range wordSet(c.speaker) {
				ws[w] = true
			}
		}
		for _, cl := range c.claims {
			kind, _, _ := strings.Cut(cl.slot, ":")
			for _, w := range slotWords()[kind] {
				ws[w] = true
			}
			for w := range cl.val.words {
				ws[w] = true
			}
			for w := range cl.owner {
				ws[w] = true
			}
		}
		for _, v := range c.replaced {
			for w := range v.words {
				ws[w] = true
			}
		}
	}
	out := make([]string, 0, len(ws))
	for w := range ws {
		if !strings.Contains(w, ":") {
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

const supersedeSystem = `You keep a user's memory current. Given a new fact and stored facts, list the stored facts the new fact makes no longer true (the user moved, changed a preference, switched a tool, a plan changed). Do not list facts that are merely related or still true alongside the new one. Give a short reason for each. Answer only with the JSON object; an empty list is a fine answer.`

const supersedeSchema = `{"type":"object","properties":{"supersedes":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"reason":{"type":"string"}},"required":["id","reason"],"additionalProperties":false}}},"required":["supersedes"],"additionalProperties":false}`

// decideSupersession decides which stored facts the fact replaces. Only
// candidates the heuristic's rule accepts (same subject, same attribute;
// see supersedesReading) go further: on the heuristic they are the answer;
// with a model, the supersede stage chooses among them, so a model can
// never replace a fact about something else.
func (in *Integrator) decideSupersession(ctx context.Context, pf PendingFact, entities []int64, st *runState, rep *Report) ([]supersession, error) {
	mine := readStatement(pf.Content, speakerOf(pf.Speaker, pf.SpeakerRole))
	all, err := in.supersedeCandidates(ctx, entities, mine, st)
	if err != nil || len(all) == 0 {
		return nil, err
	}
	// cands go to the model; the heuristic's answer is the subset with a
	// reason.
	var cands []candidate
	reasons := map[int64]string{}
	filter := newCandidateFilter(mine)
	for _, c := range all {
		later := laterThan(c.SaidAt, pf.SaidAt)
		if !filter.admits(c.Content, later) {
			continue // its reading would be turned down below
		}
		theirs := st.reading(c.Content, speakerOf(c.Speaker, c.Role))
		newer, older := mine, theirs
		if later {
			newer, older = theirs, mine
		}
		if ok, why := supersedesReading(newer, older); ok {
			reasons[c.ID] = why
		} else if in.Model == nil || !mayReplace(newer, older) {
			continue
		}
		cands = append(cands, c.candidate)
	}
	if len(cands) == 0 {
		return nil, nil
	}
	var ans struct {
		Supersedes []struct {
			ID     string `json:"id"`
			Reason string `json:"reason"`
		} `json:"supersedes"`
	}
	offered := map[string]int64{}
	var b strings.Builder
	fmt.Fprintf(&b, "New fact (said %s): %s\n\nStored facts:\n", orUnknown(pf.SaidAt), pf.Content)
	for _, c := range cands {
		note := ""
		if c.Status != "active" {
			note = " [already replaced in this run]"
		}
		fmt.Fprintf(&b, "- id %d (said %s)%s: %s\n", c.ID, orUnknown(c.SaidAt), note, c.Content)
		offered[strconv.FormatInt(c.ID, 10)] = c.ID
	}
	actor, how, err := in.ask(ctx, stageCall{stage: "supersede", system: supersedeSystem, prompt: b.String(),
		schemaName: "supersede", schema: supersedeSchema, out: &ans, check: func() error {
			for _, s := range ans.Supersedes {
				if _, ok := offered[strings.TrimSpace(s.ID)]; !ok {
					return fmt.Errorf("id %q was not offered", s.ID)
				}
			}
			return nil
		}}, rep)
	if err != nil {
		return nil, err
	}
	var out []supersession
	switch how {
	case failed:
		return nil, nil // nothing superseded on an answer we cannot trust
	case byModel:
		for _, s := range ans.Supersedes {
			reason := strings.TrimSpace(s.Reason)
			if reason == "" {
				reason = "the supersede stage gave no reason"
			}
			out = append(out, orient(pf, cands, offered[strings.TrimSpace(s.ID)], reason, actor))
		}
		return out, nil
	}
	for _, c := range cands {
		if c.Status == "active" && reasons[c.ID] != "" {
			out = append(out, orient(pf, cands, c.ID, reasons[c.ID], in.actor()))
		}
	}
	return out, nil
}

// orient puts the later-said statement in front: a fact said before a
// stored one it conflicts with arrives as history.
func orient(pf PendingFact, cands []candidate, id int64, reason, actor string) supersession {
	for _, c := range cands {
		if c.ID == id && laterThan(c.SaidAt, pf.SaidAt) {
			return supersession{newer: id, older: 0, reason: reason, actor: actor}
		}
	}
	return supersession{newer: 0, older: id, reason: reason, actor: actor}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// sameSubject: both first person of one speaker, or both name the same
// thing — one subject's words hold all of the other's ("the dev server",
// "our local dev server").
func sameSubject(a, b clause) bool {
	if a.self != b.self {
		return false
	}
	if a.self != "" && len(a.subject) == 0 && len(b.subject) == 0 {
		return true
	}
	return subset(a.subject, b.subject) || subset(b.subject, a.subject)
}

func subset(a, b map[string]bool) bool {
	if len(a) == 0 {
		return false
	}
	for w := range a {
		if !b[w] {
			return false
		}
	}
	return true
}

// sameValue: one value's words hold all of the other's ("Acme" and "Acme
// Corp"; not "payments team" and "platform team").
func sameValue(a, b value) bool { return subset(a.words, b.words) || subset(b.words, a.words) }

func overlaps(a, b map[string]bool) bool {
	for w := range a {
		if b[w] {
			return true
		}
	}
	return false
}

// supersedesReading decides whether newer replaces older and says why, in
// a sentence a user can check. It is the heuristic's whole rule:
//   - the same subject (the same speaker's "I", or the same named thing), and
//   - either the later statement names the older one's value as replaced
//     ("instead of 4001", "from Fly.io to Render") — for a first-person
//     subject only a value the older statement gives an attribute, as the
//     speaker's "I" is the subject of everything they say — or it says the same
//     attribute no longer holds, or it gives the same attribute a different
//     value — for attributes with one value at a time (where one lives,
//     works, a port, a version, a host, an owner) plainly, for the others
//     (preferences, tools for a purpose) only with a word of change.
func supersedesReading(newer, older reading) (bool, string) {
	for _, n := range newer {
		for _, o := range older {
			if ok, why := supersedesClause(n, o); ok {
				return true, why
			}
		}
	}
	return false, ""
}

func supersedesClause(n, o clause) (bool, string) {
	same := sameSubject(n, o)
	for _, nc := range n.claims {
		for _, oc := range o.claims {
			if !slotsMatch(nc.slot, oc.slot) || !sameAbout(n, nc, o, oc, same) ||
				nc.scope != "" && oc.scope != "" && nc.scope != oc.scope {
				continue
			}
			name := slotName(nc.slot)
			switch {
			case nc.negated && !oc.negated && sameValue(nc.val, oc.val):
				return true, fmt.Sprintf("same subject and %s; the later statement says it no longer holds", name)
			case nc.negated || oc.negated || n.additive || len(nc.val.words) == 0 || sameValue(nc.val, oc.val):
				continue
			case nc.single:
				return true, fmt.Sprintf("same subject and %s: %q replaces %q", name, nc.val.text, oc.val.text)
			case n.marker != "" && (usePurposeKnown(nc.slot) || usePurposeKnown(oc.slot)):
				return true, fmt.Sprintf("same subject and %s, and the later statement says %q: %q replaces %q", name, n.marker, nc.val.text, oc.val.text)
			}
		}
	}
	if !same {
		return false, ""
	}
	for _, r := range n.replaced {
		if subset(r.words, o.words) && !replacedToo(o, r) && (o.self == "" || claimsValue(o, r)) {
			return true, fmt.Sprintf("same subject; the later statement replaces %q", r.text)
		}
	}
	return false, ""
}

// claimsValue reports whether one of the clause's claims gives r as its
// value: "I use Vim" claims Vim, "I'm planning a trip to Miami" claims
// nothing, so "Fort Lauderdale instead of Miami" replaces the first only.
func claimsValue(c clause, r value) bool {
	for _, cl := range c.claims {
		if sameValue(cl.val, r) {
			return true
		}
	}
	return false
}

// mayReplace is the looser test a model's answer is held to: the same
// subject and the same kind of attribute ("use" whatever the purpose), or
// the strict rule. A model may judge that "I switched to Neovim" replaces
// "I use VS Code"; it is never offered a fact about something else.
func mayReplace(newer, older reading) bool {
	if ok, _ := supersedesReading(newer, older); ok {
		return true
	}
	for _, n := range newer {
		for _, o := range older {
			same := sameSubject(n, o)
			for _, nc := range n.claims {
				for _, oc := range o.claims {
					nk, _, _ := strings.Cut(nc.slot, ":")
					ok, _, _ := strings.Cut(oc.slot, ":")
					if nk == ok && sameAbout(n, nc, o, oc, same) {
						return true
					}
				}
			}
		}
	}
	return false
}

// sameAbout: two claims are about one thing — for ownership the thing
// owned, for the rest the clauses' subject.
func sameAbout(n clause, nc claim, o clause, oc claim, same bool) bool {
	if nc.owner == nil && oc.owner == nil {
		return same
	}
	a, b := nc.owner, oc.owner
	if a == nil {
		a = n.subject
	}
	if b == nil {
		b = o.subject
	}
	return subset(a, b) || subset(b, a)
}

// slotsMatch: the same attribute; a tool "for everything" is the tool for
// any purpose, so a new tool with no purpose given can replace it.
func slotsMatch(a, b string) bool {
	if a == b {
		return true
	}
	qa, okA := strings.CutPrefix(a, "use:")
	qb, okB := strings.CutPrefix(b, "use:")
	return okA && okB && (qa == "" && universal()[qb] || qb == "" && universal()[qa])
}

var universal = sync.OnceValue(func() map[string]bool {
	return set("everything", "all", "anything")
})

// usePurposeKnown: a tool replaces another only for a stated purpose; "we
// now use Docker" says nothing about "we use MySQL".
func usePurposeKnown(slot string) bool {
	return !strings.HasPrefix(slot, "use:") || strings.TrimPrefix(slot, "use:") != ""
}

func replacedToo(o clause, r value) bool {
	for _, x := range o.replaced {
		if overlaps(x.words, r.words) {
			return true
		}
	}
	return false
}

// slotName is a slot in words for a reason.
func slotName(slot string) string {
	kind, qual, _ := strings.Cut(slot, ":")
	switch kind {
	case "is":
		return "attribute"
	case "use":
		if qual != "" {
			return "tool for " + qual
		}
		return "tool"
	case "host":
		return "deploy target"
	case "version":
		if qual != "" {
			return qual + " version"
		}
		return "version"
	}
	return kind
}

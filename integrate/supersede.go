package integrate

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/recollect/recollect/graph"
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
		rows, err := in.DB.QueryContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("find supersession candidates: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var c storedFact
			if err := rows.Scan(&c.ID, &c.Content, &c.SaidAt, &c.Status, &c.Speaker, &c.Role); err != nil {
				return fmt.Errorf("find supersession candidates: %w", err)
			}
			if !seen[c.ID] {
				seen[c.ID] = true
				out = append(out, c)
			}
		}
		return rows.Err()
	}
	if len(entities) > 0 {
		marks := strings.TrimSuffix(strings.Repeat("?,", len(entities)), ",")
		args := make([]any, len(entities))
		for i, id := range entities {
			args[i] = id
		}
		if err := collect(cols+` WHERE `+statusClause+` AND f.id IN (SELECT fact_id FROM fact_entities WHERE entity_id IN (`+marks+`))
			ORDER BY f.id DESC LIMIT 200`, args...); err != nil {
			return nil, err
		}
	}
	if match := graph.Sanitize(strings.Join(r.distinctive(), " ")); match != "" {
		if err := collect(cols+` JOIN facts_fts ON facts_fts.rowid = f.id WHERE facts_fts MATCH ? AND `+statusClause+`
			ORDER BY bm25(facts_fts) LIMIT 100`, match); err != nil {
			return nil, err
		}
	}
	return out, nil
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
			for _, w := range slotWords[kind] {
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
	for _, c := range all {
		theirs := readStatement(c.Content, speakerOf(c.Speaker, c.Role))
		newer, older := mine, theirs
		if laterThan(c.SaidAt, pf.SaidAt) {
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

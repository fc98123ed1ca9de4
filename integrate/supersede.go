package integrate

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// supersession is one decision: the newer fact replaces the older. Zero
// stands for the fact being integrated.
type supersession struct {
	newer, older  int64
	reason, actor string
}

// ChangeMarker finds the explicit words of change the heuristic needs
// before it lets a newer statement replace an older one.
var ChangeMarker = regexp.MustCompile(`(?i)\b(moved to|no longer|now prefers?|switched to|instead)\b`)

// slotFamilies name what a statement is about, so "I moved to Porto" meets
// "I live in Lisbon" (where one lives) but not "I like Lisbon".
var slotFamilies = []struct {
	name string
	re   *regexp.Regexp
}{
	{"residence", regexp.MustCompile(`(?i)\b(live|lives|living|lived|reside|resides|residing|based in|(moved|moving|relocated|relocating) to|home is)\b`)},
	{"work", regexp.MustCompile(`(?i)\b(work|works|working|worked|employed|employer|job|joined|hired)\b`)},
	{"preference", regexp.MustCompile(`(?i)\b(prefer|prefers|preferred|favou?rite|like|likes|love|loves)\b`)},
	{"tooling", regexp.MustCompile(`(?i)\b(use|uses|using|switched to|editor|ide|shell|stack)\b`)},
}

var noLonger = regexp.MustCompile(`(?i)\bno longer\s+(\p{L}+)`)

// slots are the families a statement touches, plus the verb of a "no
// longer <verb>" clause.
func slots(s string) map[string]bool {
	out := map[string]bool{}
	for _, f := range slotFamilies {
		if f.re.MatchString(s) {
			out[f.name] = true
		}
	}
	return out
}

// sameSlot reports whether newer, which carries a change marker, speaks of
// the same thing as older.
func sameSlot(newer, older string) bool {
	a, b := slots(newer), slots(older)
	for k := range a {
		if b[k] {
			return true
		}
	}
	if m := noLonger.FindStringSubmatch(newer); m != nil {
		verb := strings.ToLower(m[1])
		for w := range contentWords(older) {
			if w == verb || strings.TrimSuffix(w, "s") == verb {
				return true
			}
		}
	}
	return false
}

// HeuristicSupersedes reports whether the newer statement replaces the
// older one about the same subject: both speak of one slot and the newer
// says explicitly that something changed.
func HeuristicSupersedes(newer, older string) bool {
	return ChangeMarker.MatchString(newer) && sameSlot(newer, older) && Overlap(newer, older) < 1
}

// laterThan reports whether a was said after b; an unknown time is not.
func laterThan(a, b string) bool { return a != "" && b != "" && a > b }

// supersedeCandidates lists facts sharing the subject entity (when known)
// or, for the model, the domain: active ones and those this run superseded,
// newest first.
func (in *Integrator) supersedeCandidates(ctx context.Context, subject int64, domain string, withDomain bool, st *runState) ([]candidate, error) {
	var runIDs []string
	for old := range st.supersededBy {
		runIDs = append(runIDs, strconv.FormatInt(old, 10))
	}
	statusClause := "f.status = 'active'"
	if len(runIDs) > 0 {
		statusClause = "(f.status = 'active' OR f.id IN (" + strings.Join(runIDs, ",") + "))"
	}
	var ors []string
	var args []any
	if subject != 0 {
		ors = append(ors, "f.id IN (SELECT fact_id FROM fact_entities WHERE entity_id = ? AND is_subject = 1)")
		args = append(args, subject)
	}
	if withDomain {
		ors = append(ors, "f.domain = ?")
		args = append(args, domain)
	}
	if len(ors) == 0 {
		return nil, nil
	}
	rows, err := in.DB.QueryContext(ctx, `SELECT f.id, f.content, COALESCE(f.said_at,''), f.status FROM facts f
		WHERE `+statusClause+` AND (`+strings.Join(ors, " OR ")+`) ORDER BY f.id DESC LIMIT 30`, args...)
	if err != nil {
		return nil, fmt.Errorf("find supersession candidates: %w", err)
	}
	defer rows.Close()
	var out []candidate
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.ID, &c.Content, &c.SaidAt, &c.Status); err != nil {
			return nil, fmt.Errorf("find supersession candidates: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

const supersedeSystem = `You keep a user's memory current. Given a new fact and stored facts, list the stored facts the new fact makes no longer true (the user moved, changed a preference, switched a tool, a plan changed). Do not list facts that are merely related or still true alongside the new one. Give a short reason for each. Answer only with the JSON object; an empty list is a fine answer.`

const supersedeSchema = `{"type":"object","properties":{"supersedes":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"reason":{"type":"string"}},"required":["id","reason"],"additionalProperties":false}}},"required":["supersedes"],"additionalProperties":false}`

// decideSupersession asks the supersede stage which candidates the fact
// replaces; on the heuristic it needs the same subject, the same slot and
// an explicit change marker in the later statement.
func (in *Integrator) decideSupersession(ctx context.Context, pf PendingFact, domain string, subject int64, st *runState, rep *Report) ([]supersession, error) {
	cands, err := in.supersedeCandidates(ctx, subject, domain, in.Model != nil, st)
	if err != nil || len(cands) == 0 {
		return nil, err
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
		if c.Status != "active" {
			continue
		}
		newer, older := pf.Content, c.Content
		if laterThan(c.SaidAt, pf.SaidAt) {
			newer, older = older, newer
		}
		if HeuristicSupersedes(newer, older) {
			m := ChangeMarker.FindString(newer)
			out = append(out, orient(pf, cands, c.ID, fmt.Sprintf("same subject and slot; the later statement says %q", strings.ToLower(m)), in.actor()))
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

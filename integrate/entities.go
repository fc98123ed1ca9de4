package integrate

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/recollect/recollect/store"
)

// Mention is an entity named by a fact.
type Mention struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	Role      string `json:"role,omitempty"`
	IsSubject bool   `json:"is_subject,omitempty"`
}

// SelfName is the display name of the entity that stands for the store's
// owner.
const SelfName = "the user"

// Canonical is an entity's canonical name: lower(trim(name)).
func Canonical(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// Fold is the comparison key that treats case, whitespace, hyphens,
// underscores and stray punctuation alike ("Acme Corp" = "acme-corp").
func Fold(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// CanonicalDomain spells a domain the one way: lowercase, trimmed, inner
// whitespace and punctuation as single hyphens.
func CanonicalDomain(d string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(strings.TrimSpace(d)) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

var (
	capRun      = regexp.MustCompile(`\b[A-Z][\p{L}0-9]*(?:[ -][A-Z][\p{L}0-9]*)*\b`)
	firstPerson = regexp.MustCompile(`(?i)^(i|i'm|i've|i'd|my|me|we|our)\b`)
	personCue   = regexp.MustCompile(`(?i)\b(colleague|friend|manager|boss|wife|husband|partner|sister|brother|mother|father|son|daughter|teammate|coworker|co-worker|named|called|mr\.?|mrs\.?|ms\.?|dr\.?)\s+$`)
	orgSuffix   = regexp.MustCompile(`(?i)^\s+(corp|corporation|inc|ltd|llc|gmbh|labs|university)\b`)
	orgCue      = regexp.MustCompile(`(?i)\b(at|for|joined)\s+$`)
	placeCue    = regexp.MustCompile(`(?i)\b(in|to|from|live in|moved to)\s+$`)
	projectNext = regexp.MustCompile(`(?i)^\s+(migration|project|service|app|team|release|launch)\b`)
)

var notNames = map[string]bool{"I": true, "The": true, "A": true, "An": true, "My": true, "We": true, "Our": true, "It": true, "This": true, "That": true, "These": true, "Those": true, "He": true, "She": true, "They": true, "His": true, "Her": true, "Their": true, "In": true, "On": true, "At": true, "But": true, "And": true, "Or": true, "If": true, "So": true, "Yesterday": true, "Today": true, "Tomorrow": true}

// HeuristicMentions finds entities by capitalised names with small rules for
// their type (person, organization, place, project; else thing). A
// first-person statement names the store's owner as its subject.
func HeuristicMentions(content string) []Mention {
	var out []Mention
	seen := map[string]bool{}
	if firstPerson.MatchString(strings.TrimSpace(content)) {
		out = append(out, Mention{Name: SelfName, Type: "person", Role: "subject", IsSubject: true})
	}
	for _, loc := range capRun.FindAllStringIndex(content, -1) {
		name := content[loc[0]:loc[1]]
		words := strings.Fields(strings.ReplaceAll(name, "-", " "))
		for len(words) > 0 && notNames[words[0]] {
			words = words[1:]
			name = strings.TrimSpace(strings.TrimPrefix(name, name[:strings.IndexAny(name, " -")+1]))
		}
		if len(words) == 0 || name == "" || seen[Fold(name)] {
			continue
		}
		// A lone sentence-initial word is usually not a name ("Coffee is…").
		if loc[0] == 0 && len(words) == 1 {
			continue
		}
		before, after := content[:loc[0]], content[loc[1]:]
		typ := "thing"
		switch {
		case personCue.MatchString(before):
			typ = "person"
		case orgSuffix.MatchString(after):
			typ = "organization"
		case projectNext.MatchString(after):
			typ = "project"
		case orgCue.MatchString(before):
			typ = "organization"
		case placeCue.MatchString(before):
			typ = "place"
		}
		seen[Fold(name)] = true
		m := Mention{Name: name, Type: typ, Role: "mention"}
		if len(out) == 0 && loc[0] == 0 {
			m.Role, m.IsSubject = "subject", true
		}
		out = append(out, m)
	}
	return out
}

// linkEntities resolves the fact's entities (from extract, else the
// heuristic), links them to the fact and strengthens co-mention edges.
func linkEntities(ctx context.Context, tx *sql.Tx, factID int64, pf PendingFact) (int, error) {
	var ms []Mention
	if len(pf.Entities) > 0 {
		if err := json.Unmarshal(pf.Entities, &ms); err != nil {
			ms = nil // junk from a model: fall back to the heuristic
		}
	}
	if len(ms) == 0 {
		ms = HeuristicMentions(pf.Content)
	}
	var ids []int64
	for _, m := range ms {
		id, err := ResolveEntity(ctx, tx, m.Name, m.Type)
		if err != nil {
			return 0, err
		}
		role := m.Role
		if role == "" {
			role = "mention"
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO fact_entities(fact_id, entity_id, role, is_subject) VALUES (?,?,?,?)
			ON CONFLICT DO NOTHING`, factID, id, role, m.IsSubject); err != nil {
			return 0, fmt.Errorf("link entity %d to fact %d: %w", id, factID, err)
		}
		ids = append(ids, id)
	}
	for i := range ids {
		for j := i + 1; j < len(ids); j++ {
			a, b := min(ids[i], ids[j]), max(ids[i], ids[j])
			if a == b {
				continue
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO entity_edges(a_id, b_id, relation, strength, fact_id, updated_at)
				VALUES (?,?, 'co_mention', 1, ?, ?)
				ON CONFLICT(a_id, b_id, relation) DO UPDATE SET strength = strength + 1, updated_at = excluded.updated_at`,
				a, b, factID, store.Now()); err != nil {
				return 0, fmt.Errorf("add edge %d-%d: %w", a, b, err)
			}
		}
	}
	return len(ids), nil
}

// ResolveEntity finds or creates the entity row for (name, type). An exact
// canonical match wins; otherwise a fold match binds only when exactly one
// row of a compatible type has that fold, so two rows already stored apart
// are never joined.
func ResolveEntity(ctx context.Context, tx *sql.Tx, name, typ string) (int64, error) {
	name = strings.TrimSpace(name)
	if typ == "" {
		typ = "thing"
	}
	typ = strings.ToLower(typ)
	if Canonical(name) == SelfName || strings.EqualFold(name, "user") || strings.EqualFold(name, "me") {
		return selfEntity(ctx, tx)
	}
	canon, fold := Canonical(name), Fold(name)
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM entities WHERE canonical = ? AND type = ?`, canon, typ).Scan(&id)
	if err == nil {
		return id, nil
	}
	if err != sql.ErrNoRows {
		return 0, fmt.Errorf("resolve entity %q: %w", name, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, type FROM entities WHERE fold = ? AND is_self = 0`, fold)
	if err != nil {
		return 0, fmt.Errorf("resolve entity %q: %w", name, err)
	}
	var cands []int64
	for rows.Next() {
		var cid int64
		var ctype string
		if err := rows.Scan(&cid, &ctype); err != nil {
			rows.Close()
			return 0, fmt.Errorf("resolve entity %q: %w", name, err)
		}
		if ctype == typ || ctype == "thing" || typ == "thing" {
			cands = append(cands, cid)
		}
	}
	rows.Close()
	if len(cands) == 1 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO entity_aliases(entity_id, alias, fold) VALUES (?,?,?) ON CONFLICT DO NOTHING`, cands[0], name, fold); err != nil {
			return 0, fmt.Errorf("add alias %q: %w", name, err)
		}
		return cands[0], nil
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO entities(type, name, canonical, fold, is_self, created_at) VALUES (?,?,?,?,0,?)`,
		typ, name, canon, fold, store.Now())
	if err != nil {
		return 0, fmt.Errorf("create entity %q: %w", name, err)
	}
	return res.LastInsertId()
}

func selfEntity(ctx context.Context, tx *sql.Tx) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM entities WHERE is_self = 1`).Scan(&id)
	if err == nil {
		return id, nil
	}
	if err != sql.ErrNoRows {
		return 0, fmt.Errorf("find self entity: %w", err)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO entities(type, name, canonical, fold, is_self, created_at) VALUES ('person', ?, ?, ?, 1, ?)`,
		SelfName, Canonical(SelfName), Fold(SelfName), store.Now())
	if err != nil {
		return 0, fmt.Errorf("create self entity: %w", err)
	}
	return res.LastInsertId()
}

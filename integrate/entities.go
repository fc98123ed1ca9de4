package integrate

import (
	"context"
	"database/sql"
	"errors"
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

var (
	capRun      = regexp.MustCompile(`\b[A-Z][\p{L}0-9]*(?:[ -][A-Z][\p{L}0-9]*)*\b`)
	firstPerson = regexp.MustCompile(`(?i)^(i|i'm|i've|i'd|my|me|we|our)\b`)
	personCue   = regexp.MustCompile(`(?i)\b(colleague|friend|manager|boss|wife|husband|partner|sister|brother|mother|father|son|daughter|teammate|coworker|co-worker|named|called|mr\.?|mrs\.?|ms\.?|dr\.?)\s+$`)
	orgSuffix   = regexp.MustCompile(`(?i)^\s+(corp|corporation|inc|ltd|llc|gmbh|labs|university)\b`)
	orgCue      = regexp.MustCompile(`(?i)\b(at|for|joined)\s+$`)
	placeCue    = regexp.MustCompile(`(?i)\b(in|from|moved to|moving to|relocated to|flew to|travel(?:l?ed|ling)? to)\s+$`)
	projectNext = regexp.MustCompile(`(?i)^\s+(migration|project|service|app|team|release|launch)\b`)
)

var notNames = map[string]bool{"I": true, "The": true, "A": true, "An": true, "My": true, "We": true, "Our": true, "It": true, "This": true, "That": true, "These": true, "Those": true, "He": true, "She": true, "They": true, "His": true, "Her": true, "Their": true, "In": true, "On": true, "At": true, "But": true, "And": true, "Or": true, "If": true, "So": true, "Yesterday": true, "Today": true, "Tomorrow": true,
	// A redaction marker ([REDACTED:github_token]) is not a name.
	"REDACTED": true}

// HeuristicMentions finds entities by capitalised names with small rules for
// their type (person, organization, place, project; else thing). A
// first-person statement names its speaker ("I") as its subject.
func HeuristicMentions(content string) []Mention {
	var out []Mention
	seen := map[string]bool{}
	if firstPerson.MatchString(strings.TrimSpace(content)) {
		out = append(out, Mention{Name: "I", Type: "person", Role: "subject", IsSubject: true})
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

// ResolveEntity finds or creates the entity row for (name, type). An exact
// canonical match wins; otherwise a fold match binds only when exactly one
// row of a compatible type has that fold, so two rows already stored apart
// are never joined. A fold match records the spelling as an alias.
func ResolveEntity(ctx context.Context, tx *sql.Tx, name, typ string) (int64, error) {
	name, typ = strings.TrimSpace(name), entityType(typ)
	if isSelfName(name) {
		return selfEntity(ctx, tx)
	}
	id, how, err := lookupEntity(ctx, tx, name, typ)
	if err != nil {
		return 0, err
	}
	switch how {
	case matchExact:
		return id, nil
	case matchFold:
		res, err := tx.ExecContext(ctx, `INSERT INTO entity_aliases(entity_id, alias, fold) VALUES (?,?,?) ON CONFLICT DO NOTHING`, id, name, Fold(name))
		if err != nil {
			return 0, fmt.Errorf("add alias %q: %w", name, err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			if err := store.LogMutation(ctx, tx, "alias", fmt.Sprintf("entity:%d", id), "integrate/resolve",
				fmt.Sprintf("%q folds to the one stored %s of that spelling", name, typ), ""); err != nil {
				return 0, err
			}
		}
		return id, nil
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO entities(type, name, canonical, fold, is_self, created_at) VALUES (?,?,?,?,0,?)`,
		typ, name, Canonical(name), Fold(name), store.Now())
	if err != nil {
		return 0, fmt.Errorf("create entity %q: %w", name, err)
	}
	return res.LastInsertId()
}

type entityMatch int

const (
	matchNone entityMatch = iota
	matchExact
	matchFold
)

func entityType(typ string) string {
	typ = strings.ToLower(strings.TrimSpace(typ))
	if typ == "" {
		return "thing"
	}
	return typ
}

func isSelfName(name string) bool {
	return Canonical(name) == SelfName || strings.EqualFold(name, "user") || isFirstPerson(name)
}

// lookupEntity applies the resolution rules without writing.
func lookupEntity(ctx context.Context, q querier, name, typ string) (int64, entityMatch, error) {
	canon, fold := Canonical(name), Fold(name)
	var id int64
	err := q.QueryRowContext(ctx, `SELECT id FROM entities WHERE canonical = ? AND type = ?`, canon, typ).Scan(&id)
	if err == nil {
		return id, matchExact, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, matchNone, fmt.Errorf("resolve entity %q: %w", name, err)
	}
	if fold == "" {
		return 0, matchNone, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT id, type FROM entities WHERE fold = ? AND is_self = 0
		UNION SELECT e.id, e.type FROM entity_aliases a JOIN entities e ON e.id = a.entity_id WHERE a.fold = ? AND e.is_self = 0`, fold, fold)
	if err != nil {
		return 0, matchNone, fmt.Errorf("resolve entity %q: %w", name, err)
	}
	defer rows.Close()
	var cands []int64
	for rows.Next() {
		var cid int64
		var ctype string
		if err := rows.Scan(&cid, &ctype); err != nil {
			return 0, matchNone, fmt.Errorf("resolve entity %q: %w", name, err)
		}
		if ctype == typ || ctype == "thing" || typ == "thing" {
			cands = append(cands, cid)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, matchNone, fmt.Errorf("resolve entity %q: %w", name, err)
	}
	if len(cands) == 1 {
		return cands[0], matchFold, nil
	}
	return 0, matchNone, nil
}

// findEntity is ResolveEntity without writing: ok is false when the name
// would create a new row.
func findEntity(ctx context.Context, q querier, name, typ string) (int64, bool, error) {
	name, typ = strings.TrimSpace(name), entityType(typ)
	if isSelfName(name) {
		var id int64
		err := q.QueryRowContext(ctx, `SELECT id FROM entities WHERE is_self = 1`).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, fmt.Errorf("find self entity: %w", err)
		}
		return id, true, nil
	}
	id, how, err := lookupEntity(ctx, q, name, typ)
	return id, how != matchNone, err
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

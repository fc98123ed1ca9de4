package integrate_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

func resolve(t *testing.T, db *store.DB, name, typ string) int64 {
	t.Helper()
	var id int64
	err := db.Tx(context.Background(), func(tx *store.Tx) error {
		var err error
		id, err = integrate.ResolveEntity(context.Background(), tx, name, typ)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestEntityResolution(t *testing.T) {
	storetest.Run(t, "spellings of one name bind to one row", func(t *testing.T, db *store.DB) {
		a := resolve(t, db, "Acme Corp", "organization")
		for _, n := range []string{"acme-corp", "ACME_corp", "  Acme   Corp. "} {
			if got := resolve(t, db, n, "organization"); got != a {
				t.Errorf("%q → entity %d, want %d", n, got, a)
			}
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM entities`); n != 1 {
			t.Errorf("%d entity rows, want 1", n)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM entity_aliases WHERE entity_id = ?`, a); n != 3 {
			t.Errorf("%d aliases recorded, want 3", n)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM mutation_log WHERE op = 'alias' AND target = ?`, fmt.Sprintf("entity:%d", a)); n != 3 {
			t.Errorf("%d alias decisions logged, want 3", n)
		}
	})
	storetest.Run(t, "one name, two kinds, two rows", func(t *testing.T, db *store.DB) {
		person := resolve(t, db, "Mercury", "person")
		project := resolve(t, db, "Mercury", "project")
		if person == project {
			t.Fatal("Mercury the person and Mercury the project share a row")
		}
		if got := resolve(t, db, "mercury", "project"); got != project {
			t.Errorf("mercury (project) → %d, want %d", got, project)
		}
		// An untyped mention fits both: ambiguous, so it joins neither.
		if got := resolve(t, db, "MERCURY", "thing"); got == person || got == project {
			t.Errorf("an ambiguous fold bound to existing row %d", got)
		}
	})
	storetest.Run(t, "a fold never joins two rows stored apart", func(t *testing.T, db *store.DB) {
		for _, n := range []string{"Data Dog", "DataDog"} {
			if _, err := db.ExecContext(context.Background(), `INSERT INTO entities(type, name, canonical, fold, created_at) VALUES ('organization', ?, ?, ?, ?)`,
				n, integrate.Canonical(n), integrate.Fold(n), store.Now()); err != nil {
				t.Fatal(err)
			}
		}
		got := resolve(t, db, "data-dog", "organization")
		var name string
		if err := db.QueryRowContext(context.Background(), `SELECT name FROM entities WHERE id = ?`, got).Scan(&name); err != nil {
			t.Fatal(err)
		}
		if name != "data-dog" {
			t.Errorf("data-dog bound to %q, one of two rows stored apart", name)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM entity_aliases`); n != 0 {
			t.Errorf("%d aliases written for an ambiguous fold", n)
		}
	})
	storetest.Run(t, "one self", func(t *testing.T, db *store.DB) {
		a, b, c := resolve(t, db, "the user", "person"), resolve(t, db, "User", "person"), resolve(t, db, "me", "")
		if a != b || b != c {
			t.Errorf("self resolved to %d, %d, %d", a, b, c)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM entities WHERE is_self = 1`); n != 1 {
			t.Errorf("%d self entities", n)
		}
	})
}

func TestGraphLinksAndStrengthens(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ents := `[{"name":"Alice","type":"person","role":"subject","is_subject":true},{"name":"Acme Corp","type":"organization","role":"employer"}]`
		say(t, db, statement{text: "Alice works at Acme Corp", day: 1, entities: ents})
		say(t, db, statement{session: "s2", text: "Alice leads the payments team at Acme Corp", day: 2,
			entities: `[{"name":"alice","type":"person","role":"subject","is_subject":true},{"name":"ACME-corp","type":"organization","role":"employer"}]`})
		run(t, newIntegrator(db, day(2)))
		if n := storetest.Count(t, db, `SELECT count(*) FROM entities WHERE is_self = 0`); n != 2 {
			t.Errorf("%d entities, want Alice and Acme Corp", n)
		}
		var strength float64
		if err := db.QueryRowContext(context.Background(), `SELECT strength FROM entity_edges WHERE relation = 'co_mention'`).Scan(&strength); err != nil {
			t.Fatal(err)
		}
		if strength != 2 {
			t.Errorf("co-mention strength %v after two facts, want 2", strength)
		}
		if n := storetest.Count(t, db, `SELECT count(*) FROM fact_entities fe JOIN entities e ON e.id = fe.entity_id
		WHERE e.name = 'Alice' AND fe.is_subject = 1 AND fe.role = 'subject'`); n != 2 {
			t.Errorf("Alice is the subject of %d facts, want 2", n)
		}
		// Unnamed user-channel speech is attributed to the store's owner.
		if n := storetest.Count(t, db, `SELECT count(*) FROM fact_entities fe JOIN entities e ON e.id = fe.entity_id
		WHERE e.is_self = 1 AND fe.role = 'speaker'`); n != 2 {
			t.Errorf("the owner spoke %d facts, want 2", n)
		}
	})
}

func TestAssistantFirstPersonIsNotTheUser(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{text: "I prefer to run the tests before committing", day: 1, role: "assistant"})
		run(t, newIntegrator(db, day(1)))
		if n := storetest.Count(t, db, `SELECT count(*) FROM fact_entities fe JOIN entities e ON e.id = fe.entity_id WHERE e.is_self = 1`); n != 0 {
			t.Errorf("the assistant's \"I\" was linked to the user %d times", n)
		}
	})
}

func TestDomains(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{text: "I take a Cooking class on Mondays", day: 1, domain: "Cooking"})
		say(t, db, statement{text: "I bake sourdough bread every weekend", day: 2, domain: "cookings"})
		say(t, db, statement{text: "My cooking knives are Japanese", day: 3})
		say(t, db, statement{text: "I have a dentist appointment on Friday", day: 4})
		run(t, newIntegrator(db, day(4)))
		for content, want := range map[string]string{
			"I take a Cooking class on Mondays":      "cooking",
			"I bake sourdough bread every weekend":   "cooking",
			"My cooking knives are Japanese":         "cooking",
			"I have a dentist appointment on Friday": integrate.DefaultDomain,
		} {
			if got := factNamed(t, db, content).Domain; got != want {
				t.Errorf("%q filed under %q, want %q", content, got, want)
			}
		}
	})
}

func TestAttribution(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		say(t, db, statement{text: "I prefer to run the tests before committing", day: 1, role: "assistant"})
		say(t, db, statement{text: "The user prefers small commits", day: 2, role: "assistant",
			entities: `[{"name":"the user","type":"person","role":"subject","is_subject":true}]`})
		say(t, db, statement{text: "I prefer rebasing over merging", day: 3})
		run(t, newIntegrator(db, day(3)))
		subjectIsSelf := func(content string) bool {
			return storetest.Count(t, db, `SELECT count(*) FROM fact_entities fe JOIN entities e ON e.id = fe.entity_id JOIN facts f ON f.id = fe.fact_id
			WHERE f.content = ? AND e.is_self = 1 AND fe.is_subject = 1`, content) == 1
		}
		for content, want := range map[string]bool{
			"I prefer to run the tests before committing": false, // the assistant's own "I"
			"The user prefers small commits":              true,  // the user, whoever says it
			"I prefer rebasing over merging":              true,  // the user's own "I"
		} {
			if got := subjectIsSelf(content); got != want {
				t.Errorf("%q: subject is the user = %v, want %v", content, got, want)
			}
		}
	})
}

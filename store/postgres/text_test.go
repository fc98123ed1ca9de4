package postgres

import (
	"context"
	"fmt"
	"testing"

	"github.com/recollect/recollect/store/postgres/pgtest"
)

// TestTextMatchesRanksLikeBM25 checks the keyword ranking on a real
// server: stems match (deployed ~ deploy), a phrase matches its words in
// order only, a rare word outranks a common one, a shorter row outranks a
// longer one with the same match, quotes and operators in a word are text,
// and a row matches on any one term.
func TestTextMatchesRanksLikeBM25(t *testing.T) {
	ctx := context.Background()
	url, schema := pgtest.Schema(t)
	db, err := Open(ctx, url, schema)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	facts := []string{
		/*1*/ "the team deployed the service on Friday",
		/*2*/ "the kubernetes cluster runs in Frankfurt",
		/*3*/ "the cat sat on the mat and the dog sat on the rug and nobody deployed anything at all that week",
		/*4*/ "we deploy with the Render dashboard",
		/*5*/ "one cluster kubernetes node",
		/*6*/ "it's done | !really",
	}
	for i := 0; i < 20; i++ {
		facts = append(facts, fmt.Sprintf("the filler row %d says the same thing", i))
	}
	for _, f := range facts {
		if _, err := db.ExecContext(ctx, `INSERT INTO facts(content, digest, producer, recorded_at) VALUES ($1, $1, 'heuristic', 'now')`, f); err != nil {
			t.Fatal(err)
		}
	}
	search := func(q ...string) []int64 {
		t.Helper()
		rows, err := db.QueryContext(ctx, Rebind(`SELECT k.id FROM `+textMatches(0)+` k ORDER BY k.score DESC, k.id`), renderTerms(q))
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	for _, c := range []struct {
		q    []string
		want string
	}{
		{[]string{"deployment"}, "[4 1 3]"},       // stem; shortest first
		{[]string{"kubernetes cluster"}, "[2]"},   // phrase in order
		{[]string{"cluster kubernetes"}, "[5]"},   // the other order
		{[]string{"the", "frankfurt"}, "[2"},      // the rare word decides the top
		{[]string{"it's", "|", "!really"}, "[6]"}, // operators are text
		{[]string{"zebra"}, "[]"},
		{[]string{"!!"}, "[]"},
	} {
		got := fmt.Sprint(search(c.q...))
		if len(got) < len(c.want) || got[:len(c.want)] != c.want {
			t.Errorf("search %q = %s, want %s…", c.q, got, c.want)
		}
	}
	if renderTerms([]string{" ", ""}) != "" {
		t.Errorf("an empty query renders as %q, want \"\"", renderTerms([]string{" "}))
	}
	var top []int64
	rows, err := db.QueryContext(ctx, Rebind(rawTextTop(0)), renderTSQuery([]string{"kubernetes", "render"}), 5)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		_ = rows.Scan(&id)
		top = append(top, id)
	}
	rows.Close()
	if len(top) != 3 {
		t.Errorf("raw top for kubernetes|render = %v, want 3 rows", top)
	}
}

package integrate

import "testing"

func TestHeuristicMentionTypes(t *testing.T) {
	cases := []struct {
		content, name, typ string
	}{
		{"My colleague Robin at Acme is leading the Atlas migration to Postgres.", "Robin", "person"},
		{"My colleague Robin at Acme is leading the Atlas migration to Postgres.", "Acme", "organization"},
		{"My colleague Robin at Acme is leading the Atlas migration to Postgres.", "Atlas", "project"},
		// "to" alone is a direction, not a place: a migration to a database.
		{"My colleague Robin at Acme is leading the Atlas migration to Postgres.", "Postgres", "thing"},
		{"Last spring I moved to Porto with my family.", "Porto", "place"},
		{"I grew up in Lisbon.", "Lisbon", "place"},
	}
	for _, c := range cases {
		var got string
		for _, m := range HeuristicMentions(c.content) {
			if m.Name == c.name {
				got = m.Type
			}
		}
		if got != c.typ {
			t.Errorf("%q: %s typed %q, want %q", c.content, c.name, got, c.typ)
		}
	}
}

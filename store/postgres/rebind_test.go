package postgres

import "testing"

func TestRebind(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE x = ? AND y = ?`, `SELECT a FROM t WHERE x = $1 AND y = $2`},
		{`VALUES (?,?,?)`, `VALUES ($1,$2,$3)`},
		{`WHERE a = ?2 OR b = ?1 OR c = ?`, `WHERE a = $2 OR b = $1 OR c = $3`},
		{`SELECT '?' , "a?b", ? -- why?` + "\n" + `, ?`, `SELECT '?' , "a?b", $1 -- why?` + "\n" + `, $2`},
		{`SELECT 'it''s ?', ? /* ? */ , ?`, `SELECT 'it''s ?', $1 /* ? */ , $2`},
		{`SELECT instr(s.content, '?') > 0 FROM facts s WHERE s.id = ?`, `SELECT instr(s.content, '?') > 0 FROM facts s WHERE s.id = $1`},
		{`LIMIT ?12`, `LIMIT $12`},
	} {
		if got := Rebind(c.in); got != c.want {
			t.Errorf("Rebind(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

package extract

import (
	"strings"
	"testing"
)

func TestHeuristicFacts(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"declarative sentence kept verbatim", "I am allergic to shellfish.", []string{"I am allergic to shellfish."}},
		{"question", "Can you remind me what we decided about the Atlas rollout?", nil},
		{"question without auxiliary", "Where does Robin work these days?", nil},
		{"command", "Run the test suite again please.", nil},
		{"polite command", "Please fix the failing migration test.", nil},
		{"code block", "```go\nfunc main() { fmt.Println(\"x\") }\n```", nil},
		{"code line", "x := db.Open(path); defer x.Close()", nil},
		{"pasted log", "2026-01-02 10:11:12 ERROR connection refused to db-primary", nil},
		{"chatter", "Thanks, that looks great to me!", nil},
		{"too short", "I agree.", nil},
		{"mixed message keeps only the statement", "My colleague Robin at Acme is leading the Atlas migration. Can you draft an email to him?",
			[]string{"My colleague Robin at Acme is leading the Atlas migration."}},
		{"two statements", "I live in Lisbon. My editor is Neovim and I use it daily.",
			[]string{"I live in Lisbon.", "My editor is Neovim and I use it daily."}},
		{"prose around a code block", "We deploy with Terraform on AWS.\n```\nterraform apply\n```\nWhat do you think?",
			[]string{"We deploy with Terraform on AWS."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := HeuristicFacts(c.in)
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Fatalf("HeuristicFacts(%q) = %q, want %q", c.in, got, c.want)
			}
			for _, s := range got {
				if !strings.Contains(c.in, s) {
					t.Errorf("%q is not verbatim from the input", s)
				}
			}
		})
	}
}

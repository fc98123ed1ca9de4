package text_test

import (
	"testing"

	"github.com/recollect/recollect/graph/text"
)

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n          int
		noun, want string
	}{
		{1, "fact", "1 fact"}, {0, "fact", "0 facts"}, {2, "fact", "2 facts"}, {1, "entity", "1 entity"},
		{3, "entity", "3 entities"}, {2, "day", "2 days"}, {2, "process", "2 processes"}, {1, "domain", "1 domain"},
	} {
		if got := text.Plural(c.n, c.noun); got != c.want {
			t.Errorf("text.Plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}

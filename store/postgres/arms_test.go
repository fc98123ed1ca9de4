package postgres

import (
	"fmt"
	"testing"
)

// TestCarriedColumns: the keyword pool carries the columns of alias f a
// filter reads, each once, and nothing of another alias.
func TestCarriedColumns(t *testing.T) {
	for cond, want := range map[string]string{
		`f.status != 'rejected'`: "[session_id speaker content status]",
		`f.status != 'rejected' AND f.recorded_at <= ? AND COALESCE(f.retracted_at,
		(SELECT n.recorded_at FROM facts n WHERE n.id = f.superseded_by), '9999') > ?`: "[session_id speaker content status recorded_at retracted_at superseded_by]",
		`1 = 1`:                  "[session_id speaker content]",
		`f.id > 3 AND elf.x = 1`: "[session_id speaker content]",
		`f.speaker = 'a' AND f.status = 'active'`: "[session_id speaker content status]",
	} {
		if got := fmt.Sprint(carriedColumns(cond)); got != want {
			t.Errorf("carriedColumns(%q) = %s, want %s", cond, got, want)
		}
	}
}

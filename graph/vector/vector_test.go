package vector_test

import (
	"slices"
	"testing"

	"github.com/recollect/recollect/graph/vector"
)

// TestSignCode: one bit per component, set when it is positive, low bit
// first.
func TestSignCode(t *testing.T) {
	got := vector.SignCode([]float32{1, -1, 0, 2, -0.5, 3, 4, -1, 0.1})
	if want := []byte{0b01101001, 0b1}; !slices.Equal(got, want) {
		t.Fatalf("SignCode = %08b, want %08b", got, want)
	}
}

// TestCodeFileDue: the code file is written again once the codes outside
// it reach CodeFileTail or an eighth of the space, never for none.
func TestCodeFileDue(t *testing.T) {
	for _, c := range []struct {
		fromTable, codes int
		due              bool
	}{
		{0, 0, false}, {0, 5000, false},
		{10, 10, true}, {1000, 1000, true},
		{124, 1000, false}, {125, 1000, true},
		{1023, 100_000, false}, {vector.CodeFileTail, 100_000, true},
	} {
		if got := vector.CodeFileDue(c.fromTable, c.codes); got != c.due {
			t.Errorf("CodeFileDue(%d, %d) = %v, want %v", c.fromTable, c.codes, got, c.due)
		}
	}
}

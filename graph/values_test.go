package graph

import (
	"testing"
	"time"
)

// TestValuesReadWhatEitherDriverGives pins the accessors over the types
// SQLite's and PostgreSQL's drivers hand over for a column.
func TestValuesReadWhatEitherDriverGives(t *testing.T) {
	at := time.Date(2026, 12, 3, 12, 0, 0, 5, time.UTC)
	tests := []struct {
		in    any
		i     int64
		f     float64
		s     string
		wnull bool
	}{
		{in: int64(42), i: 42, f: 42, s: "42"},
		{in: float64(2.5), i: 2, f: 2.5, s: "2.5"},
		{in: "17", i: 17, f: 17, s: "17"},
		{in: []byte("0.25"), i: 0, f: 0.25, s: "0.25"},
		{in: true, i: 1, f: 0, s: "true"},
		{in: false, i: 0, f: 0, s: "false"},
		{in: nil, i: 0, f: 0, s: "", wnull: true},
		{in: at, i: 0, f: 0, s: "2026-12-03T12:00:00.000000005Z"},
	}
	for _, tt := range tests {
		x := newValues(1)
		x.v[0] = tt.in
		if got := x.int(0); got != tt.i {
			t.Errorf("int(%#v) = %d, want %d", tt.in, got, tt.i)
		}
		if got := x.float(0); got != tt.f {
			t.Errorf("float(%#v) = %g, want %g", tt.in, got, tt.f)
		}
		if got := x.str(0); got != tt.s {
			t.Errorf("str(%#v) = %q, want %q", tt.in, got, tt.s)
		}
		if got := x.null(0); got != tt.wnull {
			t.Errorf("null(%#v) = %v, want %v", tt.in, got, tt.wnull)
		}
	}
}

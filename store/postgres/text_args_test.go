package postgres_test

import (
	"slices"
	"testing"

	"github.com/recollect/recollect/store/postgres"
)

// TestArgsMakeTextStorable pins what PostgreSQL's text is given for the
// bytes it cannot hold, and that everything else passes untouched.
func TestArgsMakeTextStorable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"naïve 東京 ✓", "naïve 東京 ✓"},
		{"a\x00b", "a\uFFFDb"},
		{"\x00\x00", "\uFFFD\uFFFD"},
		{"bad \xff\xfe bytes", "bad \uFFFD bytes"},
		{"cut \xe6\x9d", "cut \uFFFD"},
		{"", ""},
	} {
		if got := postgres.StorableText(tc.in); got != tc.want {
			t.Errorf("StorableText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	blob := []byte{0, 0xff}
	args := []any{"clean", int64(7), nil, blob, "dirty\x00"}
	got := postgres.Engine{}.Args(args)
	if want := []any{"clean", int64(7), nil, blob, "dirty\uFFFD"}; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != nil ||
		!slices.Equal(got[3].([]byte), blob) || got[4] != want[4] {
		t.Errorf("Args = %#v, want %#v", got, want)
	}
	if args[4] != "dirty\x00" {
		t.Error("Args changed the caller's slice")
	}
	clean := []any{"a", "b"}
	if got := (postgres.Engine{}).Args(clean); &got[0] != &clean[0] {
		t.Error("Args copied arguments that needed nothing")
	}
}

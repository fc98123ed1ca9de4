package store_test

import (
	"testing"
	"time"

	"github.com/recollect/recollect/store"
)

// TestTimeFormatOrdersAsText: the store's time format orders as text as
// the times do, and reads back to the same text.
func TestTimeFormatOrdersAsText(t *testing.T) {
	a := store.FormatTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	b := store.FormatTime(time.Date(2026, 1, 2, 3, 4, 5, 1, time.UTC))
	if !(a < b) {
		t.Fatalf("%s !< %s", a, b)
	}
	got, err := store.ParseTime(a)
	if err != nil || store.FormatTime(got) != a {
		t.Fatalf("round trip %s -> %v, %v", a, got, err)
	}
}

package pipeline

import (
	"context"
	"testing"
	"time"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/store"
)

// TestCaptureTakesStatedDate pins that a captured fact opening with a date
// is said on that date, through consolidation into the fact itself, and
// that an undated one gets no date.
func TestCaptureTakesStatedDate(t *testing.T) {
	ctx := context.Background()
	p := openTest(t)
	if _, err := p.Capture(ctx, "s1", extract.Candidate{Content: "[2023/05/21] user: I adopted a cat named Miso.", Confidence: 0.8, Importance: 0.5}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Capture(ctx, "s1", extract.Candidate{Content: "The user drinks oat milk.", Confidence: 0.8, Importance: 0.5}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(ctx, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	var said string
	if err := p.db.QueryRowContext(ctx, `SELECT COALESCE(said_at, '') FROM facts WHERE content LIKE '%Miso%'`).Scan(&said); err != nil {
		t.Fatal(err)
	}
	if got, err := store.ParseTime(said); err != nil || !got.Equal(time.Date(2023, 5, 21, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("said_at of the dated capture = %q; want 2023-05-21", said)
	}
	if err := p.db.QueryRowContext(ctx, `SELECT COALESCE(said_at, '') FROM facts WHERE content LIKE '%oat milk%'`).Scan(&said); err != nil {
		t.Fatal(err)
	}
	if said != "" {
		t.Errorf("said_at of an undated capture = %q; want none", said)
	}
}

package integrate_test

import (
	"context"
	"slices"
	"testing"

	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// TestForgetLookups: what forget reads of the knowledge rows before it
// deletes — a fact's origin, which ids are stored, a fact with the same
// wording, whether an event is cited, and which facts an event range or an
// entity picks — answers from integrate's tables on both engines.
func TestForgetLookups(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		say(t, db, statement{session: "s1", text: "Robin from Initech is leading the Atlas migration", day: 1,
			entities: `[{"name":"Robin","type":"person","role":"subject"}]`})
		say(t, db, statement{session: "s1", text: "The staging database moved to port 5433", day: 2})
		say(t, db, statement{session: "s2", text: "Robin prefers green tea in the afternoon", day: 5,
			entities: `[{"name":"Robin","type":"person","role":"subject"}]`})
		run(t, newIntegrator(db, day(6)))
		atlas := factNamed(t, db, "Robin from Initech is leading the Atlas migration").ID
		port := factNamed(t, db, "The staging database moved to port 5433").ID
		tea := factNamed(t, db, "Robin prefers green tea in the afternoon").ID

		o, ok, err := integrate.FactOrigin(ctx, db, atlas)
		if err != nil || !ok || o.Content != "Robin from Initech is leading the Atlas migration" || o.Digest != store.Digest(o.Content) || o.RecordedAt == "" || len(o.Events) != 1 {
			t.Fatalf("FactOrigin(%d) = %+v, %v, %v; want its wording, digest, time and one event", atlas, o, ok, err)
		}
		if cited, err := integrate.EventCited(ctx, db, o.Events[0]); err != nil || !cited {
			t.Errorf("EventCited(%d) = %v, %v; want true", o.Events[0], cited, err)
		}
		if cited, err := integrate.EventCited(ctx, db, 9999); err != nil || cited {
			t.Errorf("EventCited(9999) = %v, %v; want false", cited, err)
		}
		if _, ok, err := integrate.FactOrigin(ctx, db, 9999); err != nil || ok {
			t.Errorf("FactOrigin(9999) found = %v (%v); want not found", ok, err)
		}
		if id, missing, err := integrate.MissingFact(ctx, db, []int64{atlas, 9999, port}); err != nil || !missing || id != 9999 {
			t.Errorf("MissingFact = %d, %v, %v; want 9999", id, missing, err)
		}
		if _, missing, err := integrate.MissingFact(ctx, db, []int64{atlas, port, tea}); err != nil || missing {
			t.Errorf("MissingFact of stored ids says missing (%v)", err)
		}
		if id, ok, err := integrate.FactWithDigest(ctx, db, o.Digest); err != nil || !ok || id != atlas {
			t.Errorf("FactWithDigest = %d, %v, %v; want %d", id, ok, err, atlas)
		}
		if content, err := integrate.FactContent(ctx, db, port); err != nil || content != "The staging database moved to port 5433" {
			t.Errorf("FactContent(%d) = %q, %v", port, content, err)
		}
		for _, tc := range []struct {
			name string
			pick func() ([]int64, error)
			want []int64
		}{
			{"before day 3", func() ([]int64, error) { return integrate.FactsWithin(ctx, db, integrate.EventRange{Before: day(3)}) }, []int64{atlas, port}},
			{"session s2", func() ([]int64, error) { return integrate.FactsWithin(ctx, db, integrate.EventRange{Session: "s2"}) }, []int64{tea}},
			{"s1 before day 2", func() ([]int64, error) {
				return integrate.FactsWithin(ctx, db, integrate.EventRange{Before: day(2), Session: "s1"})
			}, []int64{atlas}},
			{"naming robin", func() ([]int64, error) { return integrate.FactsNaming(ctx, db, "ROBIN") }, []int64{atlas, tea}},
		} {
			got, err := tc.pick()
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("%s: %v (%v), want %v", tc.name, got, err, tc.want)
			}
		}
		if _, err := integrate.FactsWithin(ctx, db, integrate.EventRange{}); err == nil {
			t.Error("FactsWithin with an empty range picked facts; want an error")
		}

		if gone, err := integrate.Tombstoned(ctx, db, o.Digest); err != nil || gone {
			t.Errorf("Tombstoned before forget = %v, %v; want false", gone, err)
		}
		err = db.Tx(ctx, func(tx *store.Tx) error {
			_, err := integrate.ForgetFact(ctx, tx, atlas, []string{o.Digest}, integrate.Forgetter{Actor: "test"}, map[string]int{})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if gone, err := integrate.Tombstoned(ctx, db, o.Digest); err != nil || !gone {
			t.Errorf("Tombstoned after forget = %v, %v; want true", gone, err)
		}
		if _, ok, err := integrate.FactWithDigest(ctx, db, o.Digest); err != nil || ok {
			t.Errorf("FactWithDigest after forget found one (%v)", err)
		}
	})
}

// TestSummariesBefore: the consolidation summaries written before a time
// are counted and deleted, the later ones kept.
func TestSummariesBefore(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		for _, d := range []int{1, 2, 5} {
			if _, err := db.ExecContext(ctx, `INSERT INTO summaries(summary, open_threads, created_at) VALUES ('s', '[]', ?)`, store.FormatTime(day(d))); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := integrate.SummariesBefore(ctx, db, day(3)); err != nil || n != 2 {
			t.Errorf("SummariesBefore(day 3) = %d, %v; want 2", n, err)
		}
		var n int
		err := db.Tx(ctx, func(tx *store.Tx) error {
			var err error
			n, err = integrate.ForgetSummariesBefore(ctx, tx, day(3))
			return err
		})
		if err != nil || n != 2 {
			t.Errorf("ForgetSummariesBefore(day 3) = %d, %v; want 2", n, err)
		}
		if left := storetest.Count(t, db, `SELECT count(*) FROM summaries`); left != 1 {
			t.Errorf("%d summaries left, want the one of day 5", left)
		}
	})
}

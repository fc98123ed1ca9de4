package integrate

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// keywordCandidates reads each distinctive word's newest KeywordCap facts,
// not the best of every fact holding it: a word in 1,500 facts yields its
// newest active ones, and the few old facts sharing a rarer word come
// first whatever their age.
func TestKeywordCandidatesAreEachWordsNewest(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		err := db.Tx(ctx, func(tx *store.Tx) error {
			for i := 1; i <= 1500; i++ {
				status, content := "active", fmt.Sprintf("we use tool%d for the build", i)
				if i%7 == 0 {
					status = "superseded"
				}
				if i <= 3 {
					content = fmt.Sprintf("we use Zanzibar%d for the build on Zanzibar", i)
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO facts(id, content, digest, status, producer, recorded_at) VALUES (?,?,?,?, 'test', ?)`,
					i, content, fmt.Sprint("d", i), status, store.Now()); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		in := &Integrator{DB: db}
		const cols = `SELECT f.id, f.content, COALESCE(f.said_at,''), f.status, COALESCE(f.speaker,''), COALESCE(f.speaker_role,'') FROM facts f`
		ids := func(words ...string) []int64 {
			t.Helper()
			got, err := in.keywordCandidates(ctx, words, cols, "f.status = 'active'")
			if err != nil {
				t.Fatal(err)
			}
			var out []int64
			for _, c := range got {
				out = append(out, c.ID)
			}
			return out
		}
		var newest []int64
		for i := int64(1500); len(newest) < KeywordCap; i-- {
			if i%7 != 0 {
				newest = append(newest, i)
			}
		}
		if got := ids("use"); !slices.Equal(got, newest) {
			t.Errorf("a word in every fact: got %d ids %v…, want the newest %d active %v…", len(got), head(got), len(newest), head(newest))
		}
		got := ids("use", "zanzibar")
		if len(got) != KeywordCap || !slices.Equal(got[:3], []int64{3, 2, 1}) || !slices.Equal(got[3:], newest[:KeywordCap-3]) {
			t.Errorf("with a rare word: got %d ids %v…, want 3, 2, 1 and then the newest active", len(got), head(got))
		}
	})
}

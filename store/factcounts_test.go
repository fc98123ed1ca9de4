package store_test

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// checkFactCounts checks that fact_counts (v20) sums to the facts' count
// by status.
func checkFactCounts(t *testing.T, q store.Querier, step string) {
	t.Helper()
	kept := storetest.Map[string, int64](t, q, `SELECT status, CAST(sum(n) AS BIGINT) FROM fact_counts GROUP BY status HAVING sum(n) <> 0`)
	counted := storetest.Map[string, int64](t, q, `SELECT status, count(*) FROM facts GROUP BY status`)
	if !maps.Equal(kept, counted) {
		t.Errorf("after %s: fact_counts holds %v, the facts are %v", step, kept, counted)
	}
}

// checkFactWords checks, on PostgreSQL, that fact_words (v22) sums to the
// number of facts holding each word of the facts' full-text index, and
// that no word holds more than most rows.
func checkFactWords(t *testing.T, db *store.DB, step string, most int) {
	t.Helper()
	if db.Engine().Name() != "postgres" {
		return
	}
	kept := storetest.Map[string, int64](t, db, `SELECT word, CAST(sum(n) AS BIGINT) FROM fact_words GROUP BY word HAVING sum(n) <> 0`)
	counted := storetest.Map[string, int64](t, db, `SELECT w, count(*) FROM facts, unnest(tsvector_to_array(content_tsv)) w GROUP BY w`)
	if !maps.Equal(kept, counted) {
		t.Errorf("after %s: fact_words holds %d words, the facts %d; they differ (%v against %v)", step, len(kept), len(counted), kept, counted)
	}
	var rows int
	if err := db.QueryRowContext(context.Background(), `SELECT COALESCE(max(c), 0) FROM (SELECT count(*) AS c FROM fact_words GROUP BY word) r`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows > most {
		t.Errorf("after %s: a word holds %d rows of fact_words; they should have been folded to %d", step, rows, most)
	}
}

// TestFactCountsFollowFacts writes facts one statement at a time and many
// at once, in transactions of one statement and of many, moves them
// between statuses and deletes them: after each step the counts kept by
// status equal the facts counted, and on PostgreSQL each word's count of
// facts (fact_words) the facts holding it, folded to one row a word when
// the writing transaction commits.
func TestFactCountsFollowFacts(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		checkFactCounts(t, db, "nothing")
		checkFactWords(t, db, "nothing", 0)
		var ids []int64
		for i := range 150 {
			ids = append(ids, addFacts(t, db, fmt.Sprintf("fact number %d", i))...)
		}
		checkFactCounts(t, db, "150 inserts")
		checkFactWords(t, db, "150 inserts", 1)
		err := db.Tx(ctx, func(tx *store.Tx) error {
			for i := range 100 {
				if _, err := tx.ExecContext(ctx, `INSERT INTO facts(content, digest, producer, recorded_at) VALUES (?, ?, 'cli', 'a')`,
					fmt.Sprintf("fact number %d again", i), fmt.Sprintf("again-%d", i)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		checkFactCounts(t, db, "one transaction of 100 inserts")
		checkFactWords(t, db, "one transaction of 100 inserts", 1)
		if _, err := db.ExecContext(ctx, `INSERT INTO facts(content, digest, producer, recorded_at, status)
			SELECT 'bulk ' || content, 'bulk-' || content, 'cli', 'a', CASE WHEN id % 3 = 0 THEN 'rejected' ELSE 'active' END
			FROM facts WHERE id <= 30`); err != nil {
			t.Fatal(err)
		}
		checkFactCounts(t, db, "one statement inserting 30")
		checkFactWords(t, db, "one statement inserting 30", 1)
		for _, id := range ids[:40] {
			if _, err := db.ExecContext(ctx, `UPDATE facts SET status = 'superseded', superseded_by = ? WHERE id = ?`, ids[len(ids)-1], id); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.ExecContext(ctx, `UPDATE facts SET importance = 0.9 WHERE id <= 60`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `UPDATE facts SET status = 'rejected' WHERE id > 130 AND id <= 140`); err != nil {
			t.Fatal(err)
		}
		checkFactCounts(t, db, "status changes")
		if _, err := db.ExecContext(ctx, `DELETE FROM facts WHERE id > 100 AND id <= 120`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `DELETE FROM facts WHERE id = ?`, ids[0]); err != nil {
			t.Fatal(err)
		}
		checkFactCounts(t, db, "deletes")
		checkFactWords(t, db, "deletes", 1)
		var rows int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM fact_counts`).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if rows > 65+2 {
			t.Errorf("fact_counts holds %d rows after 200 writes; they should have been folded", rows)
		}
	})
}

// TestFactCountsDoNotSerialiseWriters holds one transaction that has
// written facts open while a second writer writes and commits hundreds of
// facts on PostgreSQL, words of both stored before: the second never waits
// on the first's status counts or word counts (fact_words), and once both
// commit the counts are exact.
func TestFactCountsDoNotSerialiseWriters(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, "postgres")
	// Words both writers write, stored before: each writer folds their rows.
	addFacts(t, db, "first second 1 2 3 4 5")
	first, err := db.BeginTx(ctx, nil) // the plain handle: $n placeholders
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback()
	for i := range 70 {
		if _, err := first.ExecContext(ctx, `INSERT INTO facts(content, digest, producer, recorded_at) VALUES ($1, $2, 'cli', 'a')`,
			fmt.Sprintf("first %d", i), fmt.Sprintf("first-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := first.ExecContext(ctx, `UPDATE facts SET status = 'rejected' WHERE content = 'first 1'`); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	err = db.Tx(wctx, func(tx *store.Tx) error {
		for i := range 200 {
			if _, err := tx.ExecContext(wctx, `INSERT INTO facts(content, digest, producer, recorded_at) VALUES (?, ?, 'cli', 'a')`,
				fmt.Sprintf("second %d", i), fmt.Sprintf("second-%d", i)); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(wctx, `DELETE FROM facts WHERE content = 'second 7'`)
		return err
	})
	if err != nil {
		t.Fatalf("the second writer, beside an open transaction that wrote facts: %v", err)
	}
	checkFactCounts(t, db, "the second writer's commit")
	checkFactWords(t, db, "the second writer's commit", 3)
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	checkFactCounts(t, db, "both commits")
	checkFactWords(t, db, "both commits", 3)
	if _, err := db.ExecContext(ctx, `INSERT INTO facts(content, digest, producer, recorded_at) VALUES ('last', 'last', 'cli', 'a')`); err != nil {
		t.Fatal(err)
	}
	checkFactCounts(t, db, "a fold after both")
	checkFactWords(t, db, "a fold after both", 3)
}

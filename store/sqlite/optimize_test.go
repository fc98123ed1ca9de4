package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/sqlite"
	"github.com/recollect/recollect/store/storetest"
)

// addEvents stores events [from, to) of one session, each a different
// sentence, in one transaction.
func addEvents(t *testing.T, db *store.DB, from, to int) {
	t.Helper()
	ctx := context.Background()
	err := db.Tx(ctx, func(tx *store.Tx) error {
		for i := from; i < to; i++ {
			ev := store.Event{SessionID: "s", Source: "record", Role: "user", EventType: "message", ContentType: "text",
				Content: fmt.Sprintf("line %d: the deploy of service%d moved to host%d after review %d", i, i%97, i%31, i*7), DedupeKey: fmt.Sprint("k", i)}
			if _, _, err := store.InsertEvent(ctx, tx, &ev); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// segmentDeletePlan is how SQLite would run, on conn, the statement FTS5
// removes merged segments of the event index with.
func segmentDeletePlan(t *testing.T, conn *sql.Conn) string {
	t.Helper()
	return storetest.QueryPlan(t, conn, `DELETE FROM events_fts_data WHERE id >= 1 AND id <= 5`)
}

// plan opens a connection of the store's (which loads the statistics as
// they are now) and returns segmentDeletePlan on it.
func plan(t *testing.T, db *store.DB) string {
	t.Helper()
	conn, err := db.DB.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return segmentDeletePlan(t, conn)
}

// TestOptimizeHealsStaleStatistics: statistics taken on an empty store (a
// user's ANALYZE) made FTS5's segment delete scan the whole index once the
// store grew — a copy five times slower. Optimize leaves the statement its
// key lookup, on the connections the pool opens next and on those it
// already held, and keeps the statistics of tables large enough to use.
func TestOptimizeHealsStaleStatistics(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	addEvents(t, db, 0, 12_000)
	// Two connections that loaded the stale statistics go back to the
	// pool: Optimize runs on one of them.
	var held []*sql.Conn
	for range 2 {
		c, err := db.DB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p := segmentDeletePlan(t, c); !strings.HasPrefix(p, "SCAN") {
			t.Fatalf("setup: statistics of the empty store should make the delete scan; plan %q", p)
		}
		held = append(held, c)
	}
	for _, c := range held {
		c.Close()
	}
	if err := db.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // the pool's connections, both at once
		c, err := db.DB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if p := segmentDeletePlan(t, c); !strings.HasPrefix(p, "SEARCH") {
			t.Fatalf("connection %d after Optimize: plan %q, want a search by key", i, p)
		}
	}
	var kept, small int
	err = db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'session_events'),
		(SELECT count(*) FROM sqlite_stat1 WHERE CAST(substr(stat, 1, instr(stat || ' ', ' ') - 1) AS INTEGER) < 10000)`).Scan(&kept, &small)
	if err != nil {
		t.Fatal(err)
	}
	if kept == 0 || small != 0 {
		t.Fatalf("statistics: %d rows for session_events (12,000 events: want them), %d for tables under 10,000 rows (want none)", kept, small)
	}
}

// TestOptimizeOnANewStoreKeepsNoSmallStatistics: the daemon optimizes as
// it starts, when a new store is nearly empty; the statistics of that
// moment must not outlive the store's growth (an import right after).
func TestOptimizeOnANewStoreKeepsNoSmallStatistics(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	addEvents(t, db, 0, 10)
	if err := db.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	addEvents(t, db, 10, 3000)
	if p := plan(t, db); !strings.HasPrefix(p, "SEARCH") {
		t.Fatalf("plan %q after the store grew: the statistics of its first moments are still used", p)
	}
}

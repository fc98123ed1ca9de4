package sqlite

import (
	"context"
	"database/sql"
	"testing"
)

// TestPoolKeepsASearchsConnections: a search with a query vector reads on
// idleConns connections at once; when they are handed back the pool keeps
// every one, so the next search opens none (database/sql's default keeps
// two and closed the rest), and Optimize's reset keeps the same number.
func TestPoolKeepsASearchsConnections(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	hold := func() {
		t.Helper()
		conns := make([]*sql.Conn, idleConns)
		for i := range conns {
			c, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.ExecContext(ctx, `SELECT 1`); err != nil {
				t.Fatal(err)
			}
			conns[i] = c
		}
		for _, c := range conns {
			c.Close()
		}
	}
	if idleConns < 4 {
		t.Fatalf("idleConns = %d: a search with a vector holds 3 connections and then 2 beside each other's", idleConns)
	}
	hold()
	if st := db.Stats(); st.Idle != idleConns || st.MaxIdleClosed != 0 {
		t.Fatalf("after %d connections at once: %d idle, %d closed for want of room; want all kept", idleConns, st.Idle, st.MaxIdleClosed)
	}
	if err := db.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	hold()
	hold()
	if st := db.Stats(); st.Idle != idleConns {
		t.Fatalf("after Optimize: %d idle, want %d", st.Idle, idleConns)
	}
}

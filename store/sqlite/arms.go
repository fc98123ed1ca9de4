package sqlite

import (
	"context"

	"github.com/recollect/recollect/store"
)

// EntityFacts reads the entity arm's rows a statement per step
// (store.EntityFactsInSteps): in this process plain statements in turn
// cost less than one that must sort to fold them, and SQLite has no
// LATERAL join for the limit per entity. Through the store's own pool,
// each entity's list of facts is kept while nothing commits (listCache).
func (e sqliteEngine) EntityFacts(ctx context.Context, c store.Conn, a store.EntityQuery) (store.EntityRows, error) {
	if kept := e.lists.view(c); kept != nil {
		return store.EntityFactsKept(ctx, c, a, kept)
	}
	return store.EntityFactsInSteps(ctx, c, a)
}

// KeywordPool reads the pool alone (store.KeywordPoolAlone): the seeds'
// neighbours are read apart once the pool is ranked, each statement
// costing little in this process.
func (sqliteEngine) KeywordPool(ctx context.Context, c store.Conn, p store.PoolQuery) (store.PoolStatement, error) {
	return store.KeywordPoolAlone(ctx, c, p)
}

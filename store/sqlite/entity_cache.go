package sqlite

import (
	"database/sql"
	"sync"

	"github.com/recollect/recollect/store"
)

// listCacheRows bounds how many facts the entity lists a store keeps hold
// between them: a few megabytes at most, the entities of hundreds of
// prompts. A cache that would grow past it is emptied and fills again.
const listCacheRows = 1 << 16

// listCache keeps, for one open store, the entity arm's lists of each
// entity's facts (store.EntityLists) for as long as the facts and their
// entities do not change, as countCache keeps the words' counts. An
// entity a prompt names is often named by the next one too, and its list
// is a row read per fact, each a seek into facts for the condition.
// Whether they changed is the handle's knowledge version, read before the
// lists: a list reads fact_entities and facts (any column the condition
// names) and, under a retention window, the facts' provenance and the
// times of the events it cites, whose every write changes it (migration
// v30), and a commit that only copies transcript lines does not. A handle without one (a reader opened by
// OpenReader) keeps nothing. It serves only reads through the store's own
// pool, and is safe for concurrent searches.
type listCache struct {
	// key reads the version the lists are kept under.
	key func() (int64, bool, error)
	// pool is the store's pool: a transaction reads its lists itself.
	pool *sql.DB

	mu      sync.Mutex
	version int64
	held    bool
	rows    int
	lists   map[string]map[int64][]store.EntityFactRow
}

// newListCache is the cache of the store whose handle is h and pool is
// pool.
func newListCache(h *handle, pool *sql.DB) *listCache {
	return &listCache{key: h.KnowledgeVersion, pool: pool}
}

// listView is the cache as one search sees it: the version read at its
// start.
type listView struct {
	c       *listCache
	version int64
}

// view reads the store's knowledge version for a search through q: nil, for
// the store to rank the lists it reads, when the cache does not serve q,
// the version cannot be read, or it is the first search at this version.
// Reading the lists to keep them costs more than the store's ranking of
// them (each fact a row handed to Go), so they are kept from the second
// search at a version on: a store whose facts change between every two
// searches costs each no more than without the cache.
func (c *listCache) view(q store.Conn) store.EntityLists {
	if c == nil {
		return nil
	}
	if d, ok := q.(*store.DB); !ok || d.DB != c.pool {
		return nil
	}
	v, ok, err := c.key()
	if err != nil || !ok {
		return nil
	}
	c.mu.Lock()
	seen := c.held && c.version == v
	if !seen {
		c.current(v)
	}
	c.mu.Unlock()
	if !seen {
		return nil
	}
	return listView{c: c, version: v}
}

// current makes the cache hold the lists of v's version, emptying it
// when it held an older one, and reports whether it does: false when the
// cache has moved on to a newer version than v. c.mu is held.
func (c *listCache) current(v int64) bool {
	switch {
	case c.held && c.version == v:
		return true
	case c.held && c.version > v:
		return false
	}
	c.held, c.version, c.rows, c.lists = true, v, 0, nil
	return true
}

// Held returns the lists held under key for those of ents the cache
// holds at the view's version.
func (lv listView) Held(key string, ents []int64) map[int64][]store.EntityFactRow {
	c := lv.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.current(lv.version) {
		return nil
	}
	byEntity := c.lists[key]
	if byEntity == nil {
		return nil
	}
	out := make(map[int64][]store.EntityFactRow, len(ents))
	for _, e := range ents {
		if l, ok := byEntity[e]; ok {
			out[e] = l
		}
	}
	return out
}

// Keep holds lists under key at the view's version, unless the cache
// has moved on to a newer one.
func (lv listView) Keep(key string, lists map[int64][]store.EntityFactRow) {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	c := lv.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.current(lv.version) || n > listCacheRows {
		return
	}
	if c.rows+n > listCacheRows {
		c.rows, c.lists = 0, nil
	}
	if c.lists == nil {
		c.lists = map[string]map[int64][]store.EntityFactRow{}
	}
	byEntity := c.lists[key]
	if byEntity == nil {
		byEntity = map[int64][]store.EntityFactRow{}
		c.lists[key] = byEntity
	}
	for e, l := range lists {
		if old, ok := byEntity[e]; ok {
			c.rows -= len(old)
		}
		byEntity[e] = l
		c.rows += len(l)
	}
}

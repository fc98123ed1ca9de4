package sqlite

import (
	"context"
	"database/sql"
	"sync"

	"github.com/recollect/recollect/store"
)

// countCacheWords bounds how many words' counts a store's cache holds: a
// few hundred kilobytes at most, the vocabulary of thousands of prompts.
// A cache that would grow past it is emptied and fills again.
const countCacheWords = 4096

// countCache keeps, for one open store, what topFactText reads before it
// ranks — the index's count of facts and each query word's counts of
// facts and occurrences — for as long as the facts do not change. A
// word's counts are read from facts_fts_vocab, which reads every posting
// of the word to count them: for the common words of a prompt that is
// tens of thousands of postings, read again on every search that names
// them. A long-lived process (the daemon's reader) reads them once.
//
// Whether the facts changed is the handle's knowledge version
// (handle.KnowledgeVersion), read before the counts: a commit that writes
// facts, by this process's pool or by another process, changes it, and
// the next search reads afresh; a commit that only copies transcript
// lines leaves it, and the counts, as they were. A handle without one (a
// reader opened by OpenReader) caches nothing.
//
// The cache serves only reads through the store's own pool (*store.DB),
// each of which sees what is committed when it runs; a transaction may
// see its own uncommitted writes, so it reads its counts itself. It is
// safe for concurrent searches.
type countCache struct {
	// key reads the version the counts are kept under.
	key  func() (int64, bool, error)
	pool *sql.DB

	mu sync.Mutex
	// version is the key's version the counts below were read at (or
	// after, with the key unchanged since it was read).
	version int64
	held    bool
	rows    int64
	tokens  int64
	hasRows bool
	words   map[string]wordCount
	// posts holds words' postings (postings.go), postBytes their size,
	// tick counts their uses, for the least recently used to go first.
	posts     map[string]*postingList
	postBytes int64
	tick      int64
	// lengths are the facts' lengths, kept across versions (docLengths).
	lengths docLengths
}

// wordCount is a word's counts in the facts' index: the facts holding
// it, and its occurrences in them.
type wordCount struct{ df, cnt int64 }

// newCountCache is the cache of the store whose handle is h and pool is
// pool.
func newCountCache(h *handle, pool *sql.DB) *countCache {
	return &countCache{key: h.KnowledgeVersion, pool: pool}
}

// countView is the cache as one search sees it: the version read at its
// start. A view of no cache, or of a querier the cache does not
// serve, reads every count from the store.
type countView struct {
	c       *countCache
	version int64
}

// view reads the store's knowledge version for a search through db. The
// version is read before any count, so a commit after it changes the
// version the next search reads. When the version cannot be read, the
// search reads its counts itself, as without a cache: whether the store
// changed is then unknown, and the counts are read rather than trusted.
func (c *countCache) view(db store.Querier) countView {
	if c == nil {
		return countView{}
	}
	if d, ok := db.(*store.DB); !ok || d.DB != c.pool {
		return countView{}
	}
	v, ok, err := c.key()
	if err != nil || !ok {
		return countView{}
	}
	return countView{c: c, version: v}
}

// current makes the cache hold the counts of v's version, emptying it
// when it held an older one, and reports whether it does: false when the
// cache has moved on to a newer version than v. c.mu is held.
func (c *countCache) current(v int64) bool {
	switch {
	case c.held && c.version == v:
		return true
	case c.held && c.version > v:
		return false
	}
	c.held, c.version, c.hasRows, c.words = true, v, false, nil
	c.posts, c.postBytes = nil, 0
	return true
}

// factTotals is factTextTotals, kept while the facts do not change.
func (cv countView) factTotals(ctx context.Context, db store.Querier) (rows, tokens int64, err error) {
	c := cv.c
	if c == nil {
		return factTextTotals(ctx, db)
	}
	c.mu.Lock()
	if c.current(cv.version) && c.hasRows {
		rows, tokens = c.rows, c.tokens
		c.mu.Unlock()
		return rows, tokens, nil
	}
	c.mu.Unlock()
	rows, tokens, err = factTextTotals(ctx, db)
	if err != nil {
		return 0, 0, err
	}
	c.mu.Lock()
	if c.current(cv.version) {
		c.rows, c.tokens, c.hasRows = rows, tokens, true
	}
	c.mu.Unlock()
	return rows, tokens, nil
}

// wordCounts is wordCounts for the words the cache does not hold, the
// held counts for the rest, in an index of n facts; a phrase's postings
// are kept as a word's are (postings).
func (cv countView) wordCounts(ctx context.Context, db store.Querier, words []topWord, n int64) error {
	c := cv.c
	if c == nil {
		return wordCounts(ctx, db, words, func(w string) (*postingList, error) { return loadPostings(ctx, db, w) })
	}
	missing := make([]topWord, 0, len(words))
	at := make([]int, 0, len(words))
	c.mu.Lock()
	ok := c.current(cv.version)
	for i := range words {
		if wc, held := c.words[words[i].stem]; ok && held {
			words[i].df, words[i].cnt = wc.df, wc.cnt
			continue
		}
		missing, at = append(missing, words[i]), append(at, i)
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return nil
	}
	if err := wordCounts(ctx, db, missing, func(w string) (*postingList, error) { return cv.postings(ctx, db, w, n) }); err != nil {
		return err
	}
	for j, i := range at {
		words[i].df, words[i].cnt = missing[j].df, missing[j].cnt
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.current(cv.version) || len(missing) > countCacheWords {
		return nil
	}
	if len(c.words)+len(missing) > countCacheWords {
		c.words = nil
	}
	if c.words == nil {
		c.words = make(map[string]wordCount, len(missing))
	}
	for _, w := range missing {
		c.words[w.stem] = wordCount{df: w.df, cnt: w.cnt}
	}
	return nil
}

// CommitKeyed is an engine for db's pool whose search caches (countCache,
// listCache) are its own and are kept per commit — PRAGMA data_version,
// which every commit changes, transcript copies among them — rather than
// per change of the facts and entities (the knowledge version db's own
// engine keys them on): for a benchmark to compare the two keys in one
// process. ok is false when db is not an SQLite store opened by Open.
func CommitKeyed(db *store.DB) (eng store.Engine, ok bool) {
	if _, ok := db.Engine().(sqliteEngine); !ok {
		return nil, false
	}
	if _, ok, err := db.DataVersion(); err != nil || !ok {
		return nil, false
	}
	return sqliteEngine{
		counts: &countCache{key: db.DataVersion, pool: db.DB},
		lists:  &listCache{key: db.DataVersion, pool: db.DB},
	}, true
}

// RankedInSQL is an engine for db's pool whose search caches are its own,
// keyed on the knowledge version as db's own engine keys them, and which
// has FTS5's statements rank the rare words (bestMatches) instead of the
// words' postings kept in memory (rareBest): for a benchmark to compare
// the two in one process. ok is false when db is not an SQLite store
// opened by Open.
func RankedInSQL(db *store.DB) (eng store.Engine, ok bool) {
	e, ok := db.Engine().(sqliteEngine)
	if !ok || e.counts == nil || e.lists == nil {
		return nil, false
	}
	return sqliteEngine{
		counts: &countCache{key: e.counts.key, pool: db.DB},
		lists:  &listCache{key: e.lists.key, pool: db.DB},
		inSQL:  true,
	}, true
}

// cachedWords is how many words' counts the cache holds, for tests.
func (c *countCache) cachedWords() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.words)
}

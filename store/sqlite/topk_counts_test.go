package sqlite

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/recollect/recollect/store"
)

// topkQueries are queries of the generated store (topkStore) that take
// each of topFactText's ways: a rare word settling the best k, common
// words only, a word no fact holds.
var topkQueries = []store.TextQuery{
	{"zebra3", "note"},
	{"note", "project", "zebra7"},
	{"zebra1", "zebra2", "release", "note"},
	{"note", "project"},
	{"note", "quokka", "project"},
	{"project", "zebra5", "note", "release", "alpha", "theta"},
}

// topOf is topFactText's answer, and the counts it read, as one string.
func topOf(t *testing.T, ctx context.Context, db store.Querier, cache *countCache, q store.TextQuery, k int) string {
	t.Helper()
	top, ok, counts, err := topFactText(ctx, db, cache, q, k, topTextMin{})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("ok %v counts %q top %s", ok, counts, top)
}

// TestCountCacheSameAnswer: with the store's counts kept from one search
// to the next, topFactText gives the same bytes as with them read each
// time, on the search that fills the cache and on the ones it serves.
func TestCountCacheSameAnswer(t *testing.T) {
	ctx := context.Background()
	db := topkStore(t, 3000)
	cache := db.Engine().(sqliteEngine).counts
	for round := range 3 {
		for _, q := range topkQueries {
			for _, k := range []int{10, 40} {
				want := topOf(t, ctx, db, nil, q, k)
				if got := topOf(t, ctx, db, cache, q, k); got != want {
					t.Errorf("round %d, %q, k %d: kept counts give %s; read each time, %s", round, q, k, got, want)
				}
			}
		}
	}
	if got := cache.cachedWords(); got != 11 {
		t.Errorf("the cache holds %d words' counts; want the queries' 11 distinct words", got)
	}
}

// TestCountCacheSeesWrites: a fact committed by another connection — a
// second handle on the same file, as another process would open it — or
// by the store's own pool changes the counts the next search uses: the
// kept ones are dropped, never served stale.
func TestCountCacheSeesWrites(t *testing.T) {
	ctx := context.Background()
	db := topkStore(t, 3000)
	cache := db.Engine().(sqliteEngine).counts
	other, err := Open(ctx, db.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	q := store.TextQuery{"zebra3", "note", "project"}
	for i, writer := range []*store.DB{other, db, other} {
		before := topOf(t, ctx, db, cache, q, 20)
		if cache.cachedWords() == 0 {
			t.Fatalf("write %d: the search kept no counts", i)
		}
		c := fmt.Sprintf("zebra3 zebra3 note project fresh %d", i)
		if _, err := writer.ExecContext(ctx, `INSERT INTO facts(content, digest, producer, recorded_at) VALUES (?, ?, 'cli', ?)`,
			c, store.Digest(c), store.Now()); err != nil {
			t.Fatal(err)
		}
		want := topOf(t, ctx, db, nil, q, 20)
		if want == before {
			t.Fatalf("write %d: the new fact did not change the answer; the test cannot tell stale counts", i)
		}
		if got := topOf(t, ctx, db, cache, q, 20); got != want {
			t.Errorf("write %d: after a commit the kept counts give %s; read afresh, %s", i, got, want)
		}
	}
}

// TestCountCacheNeedsDataVersion: a handle that cannot tell whether the
// store changed (no pinned connection, as a reader opened by OpenReader
// has none) keeps nothing, and every search reads its counts.
func TestCountCacheNeedsDataVersion(t *testing.T) {
	ctx := context.Background()
	db := topkStore(t, 3000)
	cache := newCountCache(&handle{path: db.Path}, db.DB)
	for _, q := range topkQueries {
		if got, want := topOf(t, ctx, db, cache, q, 20), topOf(t, ctx, db, nil, q, 20); got != want {
			t.Errorf("%q: %s; read afresh, %s", q, got, want)
		}
	}
	if n := cache.cachedWords(); n != 0 {
		t.Errorf("the cache holds %d words' counts with no data version to check them by", n)
	}
}

// TestCountCacheNotForTransactions: a search inside a transaction reads
// the counts its own uncommitted writes make, and leaves the cache as it
// was.
func TestCountCacheNotForTransactions(t *testing.T) {
	ctx := context.Background()
	db := topkStore(t, 3000)
	cache := db.Engine().(sqliteEngine).counts
	q := store.TextQuery{"zebra3", "note"}
	held := topOf(t, ctx, db, cache, q, 20)
	var inside, want string
	errRollback := fmt.Errorf("roll back")
	err := db.Tx(ctx, func(tx *store.Tx) error {
		c := "zebra3 zebra3 note inside"
		if _, err := tx.ExecContext(ctx, `INSERT INTO facts(content, digest, producer, recorded_at) VALUES (?, ?, 'cli', ?)`,
			c, store.Digest(c), store.Now()); err != nil {
			return err
		}
		inside, want = topOf(t, ctx, tx, cache, q, 20), topOf(t, ctx, tx, nil, q, 20)
		return errRollback
	})
	if err == nil {
		t.Fatal("the transaction committed")
	}
	if inside != want || inside == held {
		t.Errorf("inside the transaction the search gives %s; want %s, which sees its write (outside: %s)", inside, want, held)
	}
	if got := topOf(t, ctx, db, cache, q, 20); got != held {
		t.Errorf("after the rollback the search gives %s; want %s", got, held)
	}
}

// TestCountCacheBounded: however many distinct words the searches name,
// the cache holds at most countCacheWords of them.
func TestCountCacheBounded(t *testing.T) {
	ctx := context.Background()
	db := topkStore(t, 200)
	cache := db.Engine().(sqliteEngine).counts
	for i := range 3 * countCacheWords / 500 {
		q := store.TextQuery{"note"}
		for j := range 499 {
			q = append(q, fmt.Sprintf("w%dx%d", i, j))
		}
		topOf(t, ctx, db, cache, q, 10)
		if n := cache.cachedWords(); n > countCacheWords || n == 0 {
			t.Fatalf("after query %d the cache holds %d words; want 1 to %d", i, n, countCacheWords)
		}
	}
}

// TestCountCacheConcurrent: searches sharing the cache at once, while
// another connection commits, each give what a search with the counts
// read afresh gives at a moment nothing commits (run with -race).
func TestCountCacheConcurrent(t *testing.T) {
	ctx := context.Background()
	db := topkStore(t, 3000)
	cache := db.Engine().(sqliteEngine).counts
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				q := topkQueries[(g+i)%len(topkQueries)]
				if _, _, _, err := topFactText(ctx, db, cache, q, 20, topTextMin{}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 10 {
			c := fmt.Sprintf("zebra3 note concurrent %d", i)
			if _, err := db.ExecContext(ctx, `INSERT INTO facts(content, digest, producer, recorded_at) VALUES (?, ?, 'cli', ?)`,
				c, store.Digest(c), store.Now()); err != nil {
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, q := range topkQueries {
		want := topOf(t, ctx, db, nil, q, 20)
		if got := topOf(t, ctx, db, cache, q, 20); got != want {
			t.Errorf("%q: after the concurrent searches the kept counts give %s; read afresh, %s", q, got, want)
		}
	}
}

// BenchmarkCountCache times the keyword arm's best 200 (topText's source,
// read) with the words' counts kept by the store's engine and with them
// read from the index each time, the two taking turns going first over
// topkQueries, and reports the first's total over the second's as
// kept-read-ratio: what a long-lived reader saves while nothing commits
// (every count held after the first round). The store is a generated one
// of RECOLLECT_TOPK_FACTS facts (100,000 unless set).
func BenchmarkCountCache(b *testing.B) {
	ctx := context.Background()
	db := topkStore(b, topkFacts(b))
	engines := [2]sqliteEngine{db.Engine().(sqliteEngine), {}}
	var spent [2]time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := topkQueries[i%len(topkQueries)]
		for _, e := range []int{i % 2, 1 - i%2} {
			t0 := time.Now()
			src, args, err := engines[e].topText(ctx, db, store.FactText, q, 200, topTextMin{})
			if err != nil {
				b.Fatal(err)
			}
			rankedRows(b, db, src, args...)
			spent[e] += time.Since(t0)
		}
	}
	b.ReportMetric(float64(spent[0])/float64(spent[1]), "kept-read-ratio")
	b.ReportMetric(float64(spent[0].Microseconds())/1000/float64(b.N), "kept-ms/op")
	b.ReportMetric(float64(spent[1].Microseconds())/1000/float64(b.N), "read-ms/op")
}

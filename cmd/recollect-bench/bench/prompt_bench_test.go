package bench

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/postgres/pgtest"
	"github.com/recollect/recollect/store/sqlite"
)

// BenchmarkPromptSearch times the prompt hook's search (limit 10) of a
// whole fixture sentence on the warm reader, at the sizes BenchmarkSearch
// uses: the daemon's share of a UserPromptSubmit hook.
func BenchmarkPromptSearch(b *testing.B) {
	for _, n := range searchBenchSizes(b) {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			db, sentences := searchBenchStore(b, n)
			ctx := context.Background()
			reader := graph.NewReader(db)
			defer reader.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := reader.Search(ctx, graph.Query{Text: sentences[(i*7919)%len(sentences)], Limit: 10}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPromptSearchPostgres is BenchmarkPromptSearch on PostgreSQL
// (RECOLLECT_TEST_POSTGRES_URL): a store built as the bench builds it
// (buildFacts, then settled), in a schema of its own dropped at the end,
// at BenchmarkSearch's sizes. It reports the median and 95th percentile.
func BenchmarkPromptSearchPostgres(b *testing.B) {
	url := pgtest.URL(b)
	stores := Stores{Storage: config.Storage{Provider: "postgres", Postgres: config.PostgresStorage{URLEnv: "PROMPT_PG_URL"}},
		Getenv: func(k string) string { return map[string]string{"PROMPT_PG_URL": url}[k] }}
	sentences := fixtureSentences(b)
	for _, n := range searchBenchSizes(b) {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			ctx := context.Background()
			db, closeDB, err := stores.open(ctx, b.TempDir(), fmt.Sprint("prompt", n))
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				if err := closeDB(); err != nil {
					b.Error(err)
				}
			}()
			if err := buildFacts(ctx, db, sentences, n); err != nil {
				b.Fatal(err)
			}
			if err := settle(ctx, db); err != nil {
				b.Fatal(err)
			}
			reader := graph.NewReader(db)
			defer reader.Close()
			var spent []time.Duration
			for i := 0; b.Loop(); i++ {
				t0 := time.Now()
				if _, err := reader.Search(ctx, graph.Query{Text: sentences[(i*7919)%len(sentences)], Limit: 10}); err != nil {
					b.Fatal(err)
				}
				spent = append(spent, time.Since(t0))
			}
			p := Percentiles(spent)
			b.ReportMetric(float64(p.P50.Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(p.P95.Microseconds())/1000, "p95-ms")
		})
	}
}

// BenchmarkPromptSearchCounts times the same searches on two warm readers
// of one connection pool, taking turns going first: the store's own,
// whose engine keeps the words' full-text counts and the entities' lists
// of facts while nothing commits (the daemon's), and one whose engine
// reads them for every search (a reader's, as sqlite.OpenReader opens
// it). It reports the first's total over the second's as
// kept-read-ratio, with each one's mean, and fails when the two answer a
// query differently (as JSON, byte for byte).
func BenchmarkPromptSearchCounts(b *testing.B) {
	for _, n := range searchBenchSizes(b) {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			db, sentences := searchBenchStore(b, n)
			ctx := context.Background()
			plain, err := sqlite.OpenReader(ctx, db.Dir)
			if err != nil {
				b.Fatal(err)
			}
			defer plain.Close()
			readers := [2]*graph.Reader{graph.NewReader(db), graph.NewReader(store.Wrap(db.DB, plain.Engine(), db.Dir, db.Path))}
			defer readers[0].Close()
			defer readers[1].Close()
			spent := searchInTurns(ctx, b, readers, sentences, nil, "with the counts and lists kept", "read each time")
			reportTurns(b, spent, "kept", "read")
		})
	}
}

// BenchmarkPromptSearchCopies times the same prompt searches as
// BenchmarkPromptSearchCounts on two warm readers of one connection pool,
// taking turns going first, with a transcript line copied into
// session_events (a commit, as the daemon's copier makes for each line of
// a live session) before every pair: the store's own, whose engine keeps
// the words' counts and the entities' lists per knowledge version, which
// the copy leaves, and one whose engine keeps them per commit
// (sqlite.CommitKeyed), which the copy empties. It reports the first's
// total over the second's as knowledge-commit-ratio, with each one's
// mean, and fails when the two answer a query differently.
func BenchmarkPromptSearchCopies(b *testing.B) {
	for _, n := range searchBenchSizes(b) {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			db, sentences := searchBenchStore(b, n)
			ctx := context.Background()
			commitKeyed, ok := sqlite.CommitKeyed(db)
			if !ok {
				b.Fatal("the bench store has no engine keyed per commit")
			}
			readers := [2]*graph.Reader{graph.NewReader(db), graph.NewReader(store.Wrap(db.DB, commitKeyed, db.Dir, db.Path))}
			defer readers[0].Close()
			defer readers[1].Close()
			session := fmt.Sprintf("bench-copies-%d", time.Now().UnixNano())
			if _, err := db.ExecContext(ctx, `INSERT INTO sessions(id, source, created_at) VALUES (?, 'claude-code', ?)`, session, store.Now()); err != nil {
				b.Fatal(err)
			}
			copyLine := func(q string) {
				if _, err := db.ExecContext(ctx, `INSERT INTO session_events(session_id, source, role, event_type, content_type, content, recorded_at)
					VALUES (?, 'claude-code', 'user', 'message', 'text', ?, ?)`, session, q, store.Now()); err != nil {
					b.Fatal(err)
				}
			}
			spent := searchInTurns(ctx, b, readers, sentences, copyLine, "keyed on knowledge", "keyed on commits")
			reportTurns(b, spent, "knowledge", "commit")
		})
	}
}

// BenchmarkPromptSearchPostings times the same prompt searches as
// BenchmarkPromptSearchCounts on two warm readers of one connection pool,
// taking turns going first: the store's own, whose engine ranks a
// query's rare words from the words' postings it keeps while the facts
// do not change, and one with caches of its own keyed the same way that
// has FTS5's statements rank them (sqlite.RankedInSQL). It reports the
// first's total over the second's as postings-sql-ratio, with each one's
// mean, and fails when the two answer a query differently (as JSON, byte
// for byte).
func BenchmarkPromptSearchPostings(b *testing.B) {
	for _, n := range searchBenchSizes(b) {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			db, sentences := searchBenchStore(b, n)
			ctx := context.Background()
			inSQL, ok := sqlite.RankedInSQL(db)
			if !ok {
				b.Fatal("the bench store has no engine ranking in SQL")
			}
			readers := [2]*graph.Reader{graph.NewReader(db), graph.NewReader(store.Wrap(db.DB, inSQL, db.Dir, db.Path))}
			defer readers[0].Close()
			defer readers[1].Close()
			spent := searchInTurns(ctx, b, readers, sentences, nil, "ranked from the postings", "ranked in SQL")
			reportTurns(b, spent, "postings", "sql")
		})
	}
}

// searchInTurns runs b.N prompt searches (limit 10, whole sentences) on
// both readers, taking turns going first, after before(query) when it is
// not nil, and returns each reader's total time. It fails b when the two
// answer a query differently (as JSON, byte for byte), naming them first
// and second.
func searchInTurns(ctx context.Context, b *testing.B, readers [2]*graph.Reader, sentences []string, before func(string), first, second string) [2]time.Duration {
	var spent [2]time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := graph.Query{Text: sentences[(i*7919)%len(sentences)], Limit: 10}
		if before != nil {
			before(q.Text)
		}
		var answers [2][]byte
		for _, r := range []int{i % 2, 1 - i%2} {
			t0 := time.Now()
			ans, err := readers[r].Search(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			spent[r] += time.Since(t0)
			if answers[r], err = json.Marshal(ans); err != nil {
				b.Fatal(err)
			}
		}
		if !bytes.Equal(answers[0], answers[1]) {
			b.Fatalf("%q: %s %s\n%s %s", q.Text, first, answers[0], second, answers[1])
		}
	}
	return spent
}

// BenchmarkPromptSearchPhrases times the keyword arm's best 200 for the
// prompts whose keyword query holds a phrase (a quoted passage, an
// identifier such as spotter-gqc) or a single word, on the store's own
// engine, taking turns going first: the source TopText gives, which
// counts a phrase from its postings and ranks from the postings kept,
// and FTS5's whole ranking by bm25() (TextMatches, best 200), which is
// how such a query was ranked before. It reports the first's total over
// the second's as counted-whole-ratio, with each one's mean, and fails
// when the two rank a query differently (ids, and scores within 1e-9:
// the rare words' rankings sum a fact's score rare words first, bm25()
// in the query's order, so the last bit may differ).
func BenchmarkPromptSearchPhrases(b *testing.B) {
	const k = 200
	for _, n := range searchBenchSizes(b) {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			db, sentences := searchBenchStore(b, n)
			ctx := context.Background()
			eng := db.Engine()
			var queries []store.TextQuery
			for _, s := range sentences {
				q := store.TextQuery(text.Analyze(s).KeywordQuery())
				if len(q) == 1 || slices.ContainsFunc(q, func(w string) bool { return strings.Contains(w, " ") }) {
					queries = append(queries, q)
				}
			}
			if len(queries) == 0 {
				b.Fatal("no prompt of the fixtures has a phrase or a single word")
			}
			ranked := func(src string, args ...any) []scoredID {
				var out []scoredID
				readRows(ctx, b, db, `SELECT id, score FROM `+src+` r ORDER BY score DESC, id`, args, func(rows *sql.Rows) error {
					var s scoredID
					err := rows.Scan(&s.id, &s.score)
					out = append(out, s)
					return err
				})
				return out
			}
			spent := takeTurns(b, func(i int) [2]func() []scoredID {
				q := queries[(i*7919)%len(queries)]
				return [2]func() []scoredID{
					func() []scoredID {
						src, args, err := eng.TopText(ctx, db, store.FactText, q, k)
						if err != nil {
							b.Fatal(err)
						}
						return ranked(src, args...)
					},
					func() []scoredID {
						return ranked(`(SELECT id, score FROM `+eng.TextMatches(store.FactText)+` m ORDER BY score DESC, id LIMIT ?)`, eng.TextQuery(q), k)
					},
				}
			}, func(i int, got [2][]scoredID) string {
				if sameRanking(got[0], got[1]) {
					return ""
				}
				return fmt.Sprintf("%q: counted %v\nwhole %v", queries[(i*7919)%len(queries)], got[0], got[1])
			})
			reportTurns(b, spent, "counted", "whole")
			b.ReportMetric(float64(len(queries)), "queries")
		})
	}
}

// scoredID is a fact's id with its score.
type scoredID struct {
	id    int64
	score float64
}

// sameRanking reports whether a and b hold the same facts in the same
// order with scores within 1e-9 of each other.
func sameRanking(a, b []scoredID) bool {
	return slices.EqualFunc(a, b, func(x, y scoredID) bool { return x.id == y.id && math.Abs(x.score-y.score) <= 1e-9 })
}

// takeTurns runs b.N rounds of two forms of one piece of work, taking
// turns going first: round(i) prepares round i untimed and returns the
// two forms, each timed from its call to its return. It fails b when
// differ says the two answered round i differently (a non-empty
// description), and returns each form's total time.
func takeTurns[T any](b *testing.B, round func(i int) [2]func() T, differ func(i int, got [2]T) string) [2]time.Duration {
	var spent [2]time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		run := round(i)
		b.StartTimer()
		var got [2]T
		for _, f := range []int{i % 2, 1 - i%2} {
			t0 := time.Now()
			got[f] = run[f]()
			spent[f] += time.Since(t0)
		}
		if d := differ(i, got); d != "" {
			b.Fatal(d)
		}
	}
	return spent
}

// readRows runs query and calls scan for each of its rows, failing b on
// any error.
func readRows(ctx context.Context, b *testing.B, db *store.DB, query string, args []any, scan func(*sql.Rows) error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			b.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
}

// reportTurns reports what two forms taking turns spent: the first's
// total over the second's as FIRST-SECOND-ratio, and each one's mean in
// milliseconds as FIRST-ms/op and SECOND-ms/op.
func reportTurns(b *testing.B, spent [2]time.Duration, first, second string) {
	b.ReportMetric(float64(spent[0])/float64(spent[1]), first+"-"+second+"-ratio")
	b.ReportMetric(float64(spent[0].Microseconds())/1000/float64(b.N), first+"-ms/op")
	b.ReportMetric(float64(spent[1].Microseconds())/1000/float64(b.N), second+"-ms/op")
}

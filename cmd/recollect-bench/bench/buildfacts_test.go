package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/postgres/pgtest"
)

// buildFactsRowByRow is the reference build of the synthetic knowledge
// base: one statement per fact, provenance row and link, all in one
// transaction. buildFacts must store exactly what it stores.
func buildFactsRowByRow(ctx context.Context, db *store.DB, sentences []string, n int) error {
	rng := rand.New(rand.NewPCG(7, 8))
	entities := map[string]int64{}
	speakers := []string{"user", "assistant", "Ana", "Ben"}
	now := store.Now()
	return db.Tx(ctx, func(tx *store.Tx) error {
		for i := 0; i < n; i++ {
			content := sentences[rng.IntN(len(sentences))] + " " + sentences[rng.IntN(len(sentences))]
			session := fmt.Sprintf("bench-%d", i/40)
			var id int64
			if err := tx.QueryRowContext(ctx, `INSERT INTO facts(content, digest, producer, speaker, session_id, said_at, recorded_at)
				VALUES (?,?, 'heuristic', ?,?,?,?) RETURNING id`, content, store.Digest(content), speakers[i%len(speakers)], session, now, now).Scan(&id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO fact_provenance(fact_id, event_seq, session_id, said_at, added_at) VALUES (?,?,?,?,?)`,
				id, i+1, session, now, now); err != nil {
				return err
			}
			for _, m := range integrate.HeuristicMentions(content) {
				key := integrate.Fold(m.Name)
				if key == "" {
					continue
				}
				eid, ok := entities[key]
				if !ok {
					if err := tx.QueryRowContext(ctx, `INSERT INTO entities(type, name, canonical, fold, created_at) VALUES (?,?,?,?,?)
						ON CONFLICT(canonical, type) DO UPDATE SET fold = excluded.fold RETURNING id`, m.Type, m.Name, integrate.Canonical(m.Name)+"#"+key, key, store.Now()).Scan(&eid); err != nil {
						return err
					}
					entities[key] = eid
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO fact_entities(fact_id, entity_id, role) VALUES (?,?,'mention') ON CONFLICT DO NOTHING`, id, eid); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// storeDump lists, one line a row, every fact, provenance row, entity and
// link of db but their times, and whether each fact's times agree.
func storeDump(tb testing.TB, db *store.DB) []string {
	tb.Helper()
	var out []string
	for _, q := range []string{
		`SELECT 'fact', id, content, digest, producer, speaker, session_id, status, said_at = recorded_at FROM facts ORDER BY id`,
		`SELECT 'provenance', fact_id, event_seq, session_id, session_fact_id IS NULL, said_at = added_at FROM fact_provenance ORDER BY fact_id, event_seq`,
		`SELECT 'entity', id, type, name, canonical, fold FROM entities ORDER BY id`,
		`SELECT 'link', fact_id, entity_id, role FROM fact_entities ORDER BY fact_id, entity_id, role`,
	} {
		rows, err := db.QueryContext(context.Background(), q)
		if err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				tb.Fatal(err)
			}
			fields := make([]string, len(vals))
			for i, v := range vals {
				switch v := v.(type) {
				case []byte:
					fields[i] = string(v)
				case bool:
					fields[i] = strconv.Itoa(map[bool]int{false: 0, true: 1}[v])
				default:
					fields[i] = fmt.Sprint(v)
				}
			}
			out = append(out, strings.Join(fields, "|"))
		}
		if err := rows.Err(); err != nil {
			tb.Fatal(err)
		}
		rows.Close()
	}
	return out
}

// fixtureSentences reads the sentences of the repository's transcripts.
func fixtureSentences(tb testing.TB) []string {
	tb.Helper()
	p := filepath.Join("..", "..", "..", FixturesDefaultPath)
	if env := os.Getenv("RECOLLECT_FIXTURES"); env != "" {
		p = env
	}
	sentences, err := factSentences(p)
	if err != nil {
		tb.Fatal(err)
	}
	return sentences
}

// TestBuildFactsMatchesRowByRow builds a 500-fact store in batches of 128
// with statements of a few rows each (so batches and statements end in
// the middle of sessions and of a fact's links) and row by row, on each
// engine: both hold the same facts, provenance, entities and links.
func TestBuildFactsMatchesRowByRow(t *testing.T) {
	sentences := fixtureSentences(t)
	engines := []struct {
		name   string
		stores func(t *testing.T) Stores
	}{
		{"sqlite", func(*testing.T) Stores { return Stores{} }},
		{"postgres", func(t *testing.T) Stores {
			url := pgtest.URL(t)
			return Stores{Storage: config.Storage{Provider: "postgres", Postgres: config.PostgresStorage{URLEnv: "BUILD_PG_URL"}},
				Getenv: func(k string) string { return map[string]string{"BUILD_PG_URL": url}[k] }}
		}},
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			ctx := context.Background()
			stores, err := e.stores(t).named()
			if err != nil {
				t.Fatal(err)
			}
			work := t.TempDir()
			open := func(name string) *store.DB {
				db, closeDB, err := stores.open(ctx, filepath.Join(work, name), name)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					if err := closeDB(); err != nil {
						t.Error(err)
					}
				})
				return db
			}
			old, batched := open("rows"), open("batches")
			if err := buildFactsRowByRow(ctx, old, sentences, 500); err != nil {
				t.Fatal(err)
			}
			if err := buildFactsIn(ctx, batched, sentences, 500, 128, 60); err != nil {
				t.Fatal(err)
			}
			want, got := storeDump(t, old), storeDump(t, batched)
			if n := strings.Count(strings.Join(want, "\n"), "\nlink|"); n < 500 {
				t.Fatalf("the reference store links only %d mentions; the fixtures name too few entities to compare", n)
			}
			if len(got) != len(want) {
				t.Fatalf("batched build holds %d rows, row-by-row %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("row %d differs:\nbatched     %s\nrow by row  %s", i, got[i], want[i])
				}
			}
		})
	}
}

// BenchmarkBuildFacts builds a store of RECOLLECT_BUILD_FACTS facts (10k
// when unset) row by row and in batches, alternately, in the engine
// RECOLLECT_BUILD_ENGINE names (sqlite when unset; postgres reads
// RECOLLECT_TEST_POSTGRES_URL). Compare the two sub-benchmarks' ns/op.
func BenchmarkBuildFacts(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("RECOLLECT_BUILD_FACTS")); err == nil && v > 0 {
		n = v
	}
	sentences := fixtureSentences(b)
	stores := Stores{}
	if os.Getenv("RECOLLECT_BUILD_ENGINE") == "postgres" {
		url := pgtest.URL(b)
		stores = Stores{Storage: config.Storage{Provider: "postgres", Postgres: config.PostgresStorage{URLEnv: "BUILD_PG_URL"}},
			Getenv: func(k string) string { return map[string]string{"BUILD_PG_URL": url}[k] }}
	}
	for _, way := range []struct {
		name  string
		build func(context.Context, *store.DB, []string, int) error
	}{{"rows", buildFactsRowByRow}, {"batches", buildFacts}} {
		b.Run(way.name, func(b *testing.B) {
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				s, err := stores.named()
				if err != nil {
					b.Fatal(err)
				}
				dir := filepath.Join(b.TempDir(), strconv.Itoa(i))
				db, closeDB, err := s.open(ctx, dir, "build")
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				err = way.build(ctx, db, sentences, n)
				b.StopTimer()
				if cerr := closeDB(); err == nil {
					err = cerr
				}
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

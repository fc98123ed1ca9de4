package store_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// The engine tests run against a fresh store on each engine
// (storetest.ForEach: SQLite, and PostgreSQL when the test server is
// set), so every engine passes the same suite.

func addFacts(tb testing.TB, db *store.DB, contents ...string) []int64 {
	tb.Helper()
	var ids []int64
	for _, c := range contents {
		var id int64
		if err := db.QueryRowContext(context.Background(), `INSERT INTO facts(content, digest, producer, recorded_at) VALUES (?, ?, 'cli', ?) RETURNING id`,
			c, store.Digest(c), store.Now()).Scan(&id); err != nil {
			tb.Fatalf("add fact %q: %v", c, err)
		}
		ids = append(ids, id)
	}
	return ids
}

func TestEngineTextMatches(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ids := addFacts(t, db, "Caroline moved to Berlin last spring", "Berlin, Berlin, Berlin", "nothing to see", `the "quoted" word`)
		eng := db.Engine()
		queryIDs := func(query string, q store.TextQuery) []int64 {
			t.Helper()
			return storetest.Column[int64](t, db, query, eng.TextQuery(q))
		}
		search := func(q store.TextQuery) []int64 {
			t.Helper()
			return queryIDs(`SELECT f.id FROM `+eng.TextMatches(store.FactText)+` k JOIN facts f ON f.id = k.id ORDER BY k.score DESC, f.id`, q)
		}
		// The fact saying Berlin three times in three words scores higher.
		if got, want := search(store.TextQuery{"berlin"}), []int64{ids[1], ids[0]}; !slices.Equal(got, want) {
			t.Errorf("berlin: got %v, want %v (higher score first)", got, want)
		}
		if got, want := search(store.TextQuery{"moved to berlin"}), []int64{ids[0]}; !slices.Equal(got, want) {
			t.Errorf("phrase: got %v, want %v", got, want)
		}
		if got, want := search(store.TextQuery{"see", "spring"}), []int64{ids[0], ids[2]}; !slices.Equal(sorted(got), want) {
			t.Errorf("any of two words: got %v, want %v", got, want)
		}
		// Quotes and operators in a word are text, never syntax.
		if got, want := search(store.TextQuery{`"quoted"`}), []int64{ids[3]}; !slices.Equal(got, want) {
			t.Errorf("quoted word: got %v, want %v", got, want)
		}
		if got := search(store.TextQuery{"NEAR"}); len(got) != 0 {
			t.Errorf("NEAR as a word: got %v, want nothing", got)
		}
		// TextHits finds the same rows unscored, each once, for every query
		// above.
		for _, q := range []store.TextQuery{{"berlin"}, {"moved to berlin"}, {"see", "spring"}, {"berlin", "caroline"}, {`"quoted"`}, {"NEAR"}} {
			hits := queryIDs(`SELECT k.id FROM `+eng.TextHits(store.FactText)+` k ORDER BY k.id`, q)
			if want := sorted(search(q)); !slices.Equal(hits, want) {
				t.Errorf("hits %q: got %v, want the matched rows %v", q, hits, want)
			}
		}
		top, err := eng.RawTextTop(ctx, db, store.FactText, store.TextQuery{"berlin"}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := []int64{ids[1]}; !slices.Equal(top, want) {
			t.Errorf("raw top 1: got %v, want %v", top, want)
		}
	})
}

// TestEngineTopText: TopText's source is TextMatches' best k, best first,
// ties by id, with the same scores, on every engine: for words, phrases,
// a word the configuration splits in several, stop words (alone too:
// PostgreSQL drops them, FTS5 keeps them) and words no fact holds, and
// again after facts are deleted (the words' counts fall).
func TestEngineTopText(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ids := addFacts(t, db, "Caroline moved to Berlin last spring", "Berlin, Berlin, Berlin", "nothing to see", "spring in Berlin",
			"see you in spring", "Caroline again", "send the e-mail to Caroline in spring", "spring spring e-mail")
		eng := db.Engine()
		queries := []store.TextQuery{{"berlin"}, {"spring", "berlin", "caroline"}, {"moved to berlin", "see"},
			{"e-mail", "spring"}, {"the", "berlin", "of"}, {"zebra", "caroline"}, {"zebra"}, {"the", "of"}}
		// top reads a best-first source's ids and scores (float4, as
		// ts_rank's precision), each a column of its own.
		top := func(query string, args ...any) ([]int64, []float64) {
			t.Helper()
			return storetest.Column[int64](t, db, `SELECT id FROM (`+query+`) r ORDER BY score DESC, id`, args...),
				storetest.Column[float64](t, db, `SELECT CAST(score AS REAL) FROM (`+query+`) r ORDER BY score DESC, id`, args...)
		}
		check := func(step string) {
			t.Helper()
			for _, q := range queries {
				for _, k := range []int{1, 3, 10} {
					src, args, err := eng.TopText(ctx, db, store.FactText, q, k)
					if err != nil {
						t.Fatal(err)
					}
					gotIDs, got := top(`SELECT id, score FROM `+src+` r`, args...)
					wantIDs, want := top(`SELECT id, score FROM `+eng.TextMatches(store.FactText)+` m ORDER BY score DESC, id LIMIT ?`, eng.TextQuery(q), k)
					same := slices.Equal(gotIDs, wantIDs) && len(got) == len(want)
					for i := 0; same && i < len(got); i++ {
						same = math.Abs(got[i]-want[i]) <= 1e-9*math.Abs(want[i])
					}
					if !same {
						t.Errorf("%s: %q best %d: got %v %v, want %v %v", step, q, k, gotIDs, got, wantIDs, want)
					}
					if empty := q[0] == "zebra" && len(q) == 1; empty != (len(want) == 0) {
						t.Errorf("%s: %q best %d: %d matches", step, q, k, len(want))
					}
				}
			}
		}
		check("stored")
		if _, err := db.ExecContext(ctx, `DELETE FROM facts WHERE id IN (?, ?)`, ids[1], ids[4]); err != nil {
			t.Fatal(err)
		}
		check("after deleting two facts")
	})
}

func sorted(s []int64) []int64 { return slices.Sorted(slices.Values(s)) }

func TestEngineFragments(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		eng := db.Engine()
		got := storetest.Column[int64](t, db, `SELECT CAST(j.value AS INTEGER) FROM (SELECT ? AS ids) s, `+eng.JSONInts("s.ids", "j")+` ORDER BY 1`, "[7, 3, 5]")
		if want := []int64{3, 5, 7}; !slices.Equal(got, want) {
			t.Errorf("json ints: got %v, want %v", got, want)
		}
		for _, c := range []struct {
			hay, needle string
			want        int
		}{{"deploys to Fly.io", "Fly.io", 1}, {"deploys to Fly.io", "fly.io", 0}, {"100% sure", "0%", 1}, {"a_b", "a%b", 0}} {
			var in int
			if err := db.QueryRowContext(ctx, `SELECT CASE WHEN `+eng.Contains("?", "?")+` THEN 1 ELSE 0 END`, c.hay, c.needle).Scan(&in); err != nil {
				t.Fatal(err)
			}
			if in != c.want {
				t.Errorf("%q contains %q = %d, want %d", c.hay, c.needle, in, c.want)
			}
		}
		ids := addFacts(t, db, "one fact")
		at := store.Now()
		for _, seq := range []int64{30, 10, 20} {
			if _, err := db.ExecContext(ctx, `INSERT INTO fact_provenance(fact_id, event_seq, added_at) VALUES (?, ?, ?)`, ids[0], seq, at); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := provenanceOrder(t, db), []int64{30, 10, 20}; !slices.Equal(got, want) {
			t.Errorf("insert order: got %v, want %v", got, want)
		}
	})
}

// TestEngineCompactAndSecureDelete: a deleted fact's words leave the
// index and the freed space leaves the file.
func TestEngineCompactAndSecureDelete(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		// Incompressible text: PostgreSQL compresses a repeated run to
		// almost nothing, and there would be nothing to reclaim.
		rnd := rand.New(rand.NewPCG(1, 2))
		big := make([]string, 400)
		for i := range big {
			raw := make([]byte, 1000)
			for j := range raw {
				raw[j] = byte(rnd.Uint32())
			}
			big[i] = "filler sentence number " + string(rune('a'+i%26)) + " " + hex.EncodeToString(raw)
		}
		addFacts(t, db, big...)
		if done, err := db.Checkpoint(ctx); err != nil || !done {
			t.Fatalf("checkpoint: complete %v, %v", done, err)
		}
		before := diskSize(t, db)
		err := db.Tx(ctx, func(tx *store.Tx) error {
			if err := tx.SecureDelete(ctx); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `DELETE FROM facts`)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		// On PostgreSQL a transaction open elsewhere in the database (another
		// test package's store on the same server) keeps the deleted rows
		// visible to it, and VACUUM FULL must copy them; once it ends, the
		// next compaction drops them. Compact again for a few seconds before
		// calling the space kept.
		after := int64(0)
		for try := 0; ; try++ {
			if err := db.Compact(ctx); err != nil {
				t.Fatal(err)
			}
			if after = diskSize(t, db); after*4 <= before || db.Engine().Name() != "postgres" || try == 20 {
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
		if after*4 > before {
			t.Errorf("file %d bytes after deleting everything and compacting, %d before", after, before)
		}
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+db.Engine().TextMatches(store.FactText)+` k`, db.Engine().TextQuery(store.TextQuery{"filler"})).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%d deleted facts still match", n)
		}
	})
}

// diskSize is what the store takes on disk: SQLite's file, or the
// schema's tables with their indexes and TOAST on PostgreSQL.
func diskSize(tb testing.TB, db *store.DB) int64 {
	tb.Helper()
	if db.Engine().Name() == "postgres" {
		var n int64
		if err := db.QueryRowContext(context.Background(), `SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_class c
			JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = current_schema() AND c.relkind = 'r'`).Scan(&n); err != nil {
			tb.Fatal(err)
		}
		return n
	}
	fi, err := os.Stat(db.Path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

// TestEngineIndexPlainFacts: the plain index matches words as written —
// "moves" does not find "moved", as the stemmed index does — and covers
// only the facts active when it was built.
func TestEngineIndexPlainFacts(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ids := addFacts(t, db, "Caroline moved to Berlin", "Ben moves to Lisbon", "an old fact about Berlin")
		if _, err := db.ExecContext(ctx, `UPDATE facts SET status = 'rejected' WHERE id = ?`, ids[2]); err != nil {
			t.Fatal(err)
		}
		eng := db.Engine()
		if err := eng.IndexPlainFacts(ctx, db); err != nil {
			t.Fatal(err)
		}
		match := func(ix store.TextIndex, q store.TextQuery) []int64 {
			t.Helper()
			var got []int64
			rows, err := db.QueryContext(ctx, `SELECT k.id FROM `+eng.TextMatches(ix)+` k ORDER BY k.id`, eng.TextQuery(q))
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				got = append(got, id)
			}
			return got
		}
		if got, want := match(store.PlainFactText, store.TextQuery{"moves"}), []int64{ids[1]}; !slices.Equal(got, want) {
			t.Errorf("plain moves: got %v, want %v", got, want)
		}
		if got, want := match(store.FactText, store.TextQuery{"moves"}), []int64{ids[0], ids[1]}; !slices.Equal(got, want) {
			t.Errorf("stemmed moves: got %v, want %v", got, want)
		}
		if got, want := match(store.PlainFactText, store.TextQuery{"berlin"}), []int64{ids[0]}; !slices.Equal(got, want) {
			t.Errorf("plain berlin: got %v, want %v (the rejected fact is not indexed)", got, want)
		}
	})
}

// TestEngineInsertID: the key a new row got, and inserted false when ON
// CONFLICT skipped the row.
func TestEngineInsertID(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		var ids []int64
		for _, c := range []string{"first", "second"} {
			id, inserted, err := db.InsertID(ctx, "id", `INSERT INTO facts(content, digest, producer, recorded_at) VALUES (?, ?, 'cli', ?)`, c, store.Digest(c), store.Now())
			if err != nil || !inserted {
				t.Fatalf("insert %s: id %d, inserted %v, %v", c, id, inserted, err)
			}
			var got string
			if err := db.QueryRowContext(ctx, `SELECT content FROM facts WHERE id = ?`, id).Scan(&got); err != nil || got != c {
				t.Fatalf("fact %d holds %q (%v), want %q", id, got, err, c)
			}
			ids = append(ids, id)
		}
		if ids[1] <= ids[0] {
			t.Errorf("ids %v do not grow", ids)
		}
		entity := `INSERT INTO entities(type, name, canonical, fold, created_at) VALUES ('person', ?, 'ana', 'ana', ?) ON CONFLICT(canonical, type) DO NOTHING`
		err := db.Tx(ctx, func(tx *store.Tx) error {
			id, inserted, err := tx.InsertID(ctx, "id", entity, "Ana", store.Now())
			if err != nil || !inserted {
				return fmt.Errorf("first entity: id %d, inserted %v, %v", id, inserted, err)
			}
			var name string
			if err := tx.QueryRowContext(ctx, `SELECT name FROM entities WHERE id = ?`, id).Scan(&name); err != nil || name != "Ana" {
				return fmt.Errorf("entity %d is %q (%v)", id, name, err)
			}
			if _, inserted, err = tx.InsertID(ctx, "id", entity, "ANA", store.Now()); err != nil || inserted {
				return fmt.Errorf("second entity of one canonical name: inserted %v, %v; want skipped", inserted, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// TestVectorCodesFollowVectors checks the v9 triggers: deleting a vector
// deletes its code, and every removed or rewritten code is counted.
func TestVectorCodesFollowVectors(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO facts(content, digest, producer, recorded_at) VALUES ('a', 'a', 'heuristic', 'now')`, nil},
			{`INSERT INTO embeddings(fact_id, provider, model, dim, vector, created_at) VALUES (1, 'p', 'm', 2, ?, 'now')`, []any{[]byte{1, 2}}},
			{`INSERT INTO vector_codes(fact_id, provider, model, dim, code) VALUES (1, 'p', 'm', 2, ?)`, []any{[]byte{1}}},
			{`UPDATE vector_codes SET code = ?`, []any{[]byte{2}}},
			{`DELETE FROM embeddings`, nil},
		} {
			if _, err := db.ExecContext(ctx, q.sql, q.args...); err != nil {
				t.Fatalf("%s: %v", q.sql, err)
			}
		}
		codes := storetest.Count(t, db, `SELECT count(*) FROM vector_codes`)
		removed := storetest.Count(t, db, `SELECT removed FROM vector_code_changes`)
		if codes != 0 || removed != 2 {
			t.Fatalf("after rewriting and deleting: %d codes left (want 0), %d counted removed (want 2)", codes, removed)
		}
	})
}

// TestEngineTextMatchesCJK: a Chinese or Japanese word is found inside the
// unspaced sentence that holds it, a one-character word too, on every
// index; English words match as they did.
func TestEngineTextMatchesCJK(t *testing.T) {
	ctx := context.Background()
	storetest.ForEach(t, func(t *testing.T, db *store.DB) {
		ids := addFacts(t, db,
			"我昨天在北京买了一本书。",
			"東京で新しいカメラを買いました",
			"I bought a new camera in Tokyo",
			"北海道の冬はとても寒い")
		if _, err := db.ExecContext(ctx, `INSERT INTO sessions(id, source, created_at) VALUES ('s1', 'record', ?)`, store.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO session_events(session_id, source, role, event_type, content_type, content, recorded_at)
			VALUES ('s1', 'record', 'user', 'message', 'text', '我昨天在北京买了一本书。', ?)`, store.Now()); err != nil {
			t.Fatal(err)
		}
		eng := db.Engine()
		match := func(ix store.TextIndex, words ...string) []int64 {
			t.Helper()
			var q store.TextQuery
			for _, w := range words {
				q = append(q, text.QueryWords(w)...)
			}
			var got []int64
			rows, err := db.QueryContext(ctx, `SELECT k.id FROM `+eng.TextMatches(ix)+` k ORDER BY k.score DESC, k.id`, eng.TextQuery(q))
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				got = append(got, id)
			}
			return got
		}
		for _, tc := range []struct {
			words []string
			want  []int64
		}{
			{[]string{"北京"}, []int64{ids[0]}},
			{[]string{"书"}, []int64{ids[0]}},
			{[]string{"カメラ"}, []int64{ids[1]}},
			{[]string{"東京"}, []int64{ids[1]}},
			{[]string{"camera"}, []int64{ids[2]}},
			{[]string{"tokyo"}, []int64{ids[2]}},
			// 北海道 holds 北 but not 北京's pair: only the sentence with
			// the word itself matches.
			{[]string{"北京大学"}, []int64{ids[0]}},
		} {
			if got := match(store.FactText, tc.words...); !slices.Equal(got, tc.want) {
				t.Errorf("facts %q: got %v, want %v", tc.words, got, tc.want)
			}
		}
		if got := match(store.EventText, "北京"); len(got) != 1 {
			t.Errorf("events 北京: got %v, want the one event", got)
		}
		if err := eng.IndexPlainFacts(ctx, db); err != nil {
			t.Fatal(err)
		}
		if got, want := match(store.PlainFactText, "カメラ"), []int64{ids[1]}; !slices.Equal(got, want) {
			t.Errorf("plain カメラ: got %v, want %v", got, want)
		}
		// The engine's own function cuts text as text.IndexText does.
		for _, s := range []string{"我昨天在北京买了一本书。", "iPhone15を買った", "서울에 살아요", "plain English", "猫"} {
			var got string
			if err := db.QueryRowContext(ctx, `SELECT `+store.IndexTextFunc+`(?)`, s).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if want := text.IndexText(s); got != want {
				t.Errorf("%s(%q) = %q, want %q", store.IndexTextFunc, s, got, want)
			}
		}
	})
}

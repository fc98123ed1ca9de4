package postgres_test

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/recollect/recollect/store/sqlite"
)

// TestSchemaParity migrates a new SQLite store and a new PostgreSQL schema
// to the latest version and compares what each holds, line by line:
// tables, columns (type, NOT NULL, default, identity), primary keys,
// unique constraints, CHECK constraints, foreign keys, indexes (name,
// columns, order, uniqueness, predicate), views and triggers (by name and
// table: their bodies are each engine's own language). Both sides are
// rendered in one vocabulary (schemaLines); where the engines differ by
// design, engineOnly lists each line that stands on one side alone and
// why. A line missing from a side, or one engineOnly names that neither
// side has, fails the test.
func TestSchemaParity(t *testing.T) {
	pg := open(t) // first: without a server the test skips before any work
	lite, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()

	got := map[string][]string{"sqlite": sqliteLines(t, lite.DB), "postgres": postgresLines(t, pg)}
	for engine, lines := range got {
		have := map[string]bool{}
		for _, l := range lines {
			have[l] = true
		}
		for _, l := range engineOnly[engine] {
			if !have[l.line] {
				t.Errorf("%s: engineOnly names %q, which the schema no longer has: remove it from the mapping", engine, l.line)
			}
		}
	}
	only := func(engine, other string) []string {
		theirs := map[string]bool{}
		for _, l := range got[other] {
			theirs[l] = true
		}
		expected := map[string]bool{}
		for _, l := range engineOnly[engine] {
			expected[l.line] = true
		}
		var out []string
		for _, l := range got[engine] {
			if !theirs[l] && !expected[l] {
				out = append(out, l)
			}
		}
		return out
	}
	for _, pair := range [][2]string{{"sqlite", "postgres"}, {"postgres", "sqlite"}} {
		if d := only(pair[0], pair[1]); len(d) > 0 {
			t.Errorf("only on %s (add a migration to the lagging engine, or list the line in engineOnly with the reason):\n\t%s",
				pair[0], strings.Join(d, "\n\t"))
		}
	}
}

// engineLine is a schema line that stands on one engine alone, by design.
type engineLine struct{ line, why string }

// engineOnly lists, per engine, the lines of the schema the other engine
// has no counterpart for, each with the reason.
var engineOnly = map[string][]engineLine{
	"sqlite": {
		// Full-text search: SQLite keeps an FTS5 table beside each searched
		// table (kept by triggers), PostgreSQL a generated tsvector column
		// with a GIN index on the table itself (content_tsv, below).
		{"fts5 table events_fts", "full text of session_events"},
		{"trigger session_events_ai on session_events", "full text of session_events"},
		{"trigger session_events_ad on session_events", "full text of session_events"},
		{"trigger session_events_au on session_events", "full text of session_events"},
		{"fts5 table session_facts_fts", "full text of session_facts"},
		{"trigger session_facts_ai on session_facts", "full text of session_facts"},
		{"trigger session_facts_ad on session_facts", "full text of session_facts"},
		{"trigger session_facts_au on session_facts", "full text of session_facts"},
		{"fts5 table facts_fts", "full text of facts (content never changes, so no update trigger)"},
		{"trigger facts_ai on facts", "full text of facts"},
		{"trigger facts_ad on facts", "full text of facts"},
		// Word counts for the keyword score: fts5vocab over facts_fts on
		// SQLite, fact_words kept by triggers on PostgreSQL.
		{"fts5vocab table facts_fts_vocab", "word counts of facts_fts (PostgreSQL: fact_words)"},
		// A SQLite status has one fact_counts row; PostgreSQL's writers add
		// rows beside each other's, so the status is no key there.
		{"primary key fact_counts (status)", "one row per status"},
		// The knowledge version (v30) keys the search caches of SQLite's
		// long-lived reader; PostgreSQL keeps no such caches.
		{"table knowledge_version", "search caches' key (v30)"},
		{"column knowledge_version.n int64 not null", "search caches' key (v30)"},
		{"trigger facts_known_added on facts", "search caches' key (v30)"},
		{"trigger facts_known_changed on facts", "search caches' key (v30)"},
		{"trigger facts_known_removed on facts", "search caches' key (v30)"},
		{"trigger fact_entities_known_added on fact_entities", "search caches' key (v30)"},
		{"trigger fact_entities_known_changed on fact_entities", "search caches' key (v30)"},
		{"trigger fact_entities_known_removed on fact_entities", "search caches' key (v30)"},
		{"trigger entities_known_added on entities", "search caches' key (v30)"},
		{"trigger entities_known_changed on entities", "search caches' key (v30)"},
		{"trigger entities_known_removed on entities", "search caches' key (v30)"},
		{"trigger entity_aliases_known_added on entity_aliases", "search caches' key (v30)"},
		{"trigger entity_aliases_known_changed on entity_aliases", "search caches' key (v30)"},
		{"trigger entity_aliases_known_removed on entity_aliases", "search caches' key (v30)"},
		{"trigger fact_provenance_known_added on fact_provenance", "search caches' key (v30)"},
		{"trigger fact_provenance_known_changed on fact_provenance", "search caches' key (v30)"},
		{"trigger fact_provenance_known_removed on fact_provenance", "search caches' key (v30)"},
		{"trigger session_events_known_changed on session_events", "search caches' key (v30)"},
		{"trigger session_events_known_removed on session_events", "search caches' key (v30)"},
		// SQLite indexes have no INCLUDE columns, and SQLite keeps no
		// adjacent facts on the row (the postgres side's v24 form).
		{"index fact_provenance_fact_seq on fact_provenance (fact_id, event_seq, session_id)", "index-only seed lookups (v24)"},
	},
	"postgres": {
		// The version table: SQLite keeps the version in PRAGMA user_version.
		{"table recollect_schema", "the schema version"},
		{"column recollect_schema.version int64 not null", "the schema version"},
		// Full-text search (see the sqlite side).
		{"column session_events.content_tsv tsvector generated", "full text of session_events"},
		{"index session_events_fts on session_events using gin (content_tsv)", "full text of session_events"},
		{"column session_facts.content_tsv tsvector generated", "full text of session_facts"},
		{"index session_facts_fts on session_facts using gin (content_tsv)", "full text of session_facts"},
		{"column facts.content_tsv tsvector generated", "full text of facts"},
		{"index facts_fts on facts using gin (content_tsv)", "full text of facts"},
		{"table fact_words", "word counts (SQLite: facts_fts_vocab)"},
		{"column fact_words.word text not null", "word counts"},
		{"column fact_words.n int64 not null", "word counts"},
		{"column fact_words.folded bool not null default false", "word counts"},
		{"index fact_words_word on fact_words (word) include (n)", "word counts"},
		{"index fact_words_added on fact_words (word) where not folded", "word counts"},
		{"trigger facts_words_added on facts", "word counts"},
		{"trigger facts_words_removed on facts", "word counts"},
		{"trigger facts_words_commit on facts", "word counts"},
		// A provenance row's insert order is SQLite's rowid.
		{"column fact_provenance.ord int64 not null identity", "insert order (SQLite: rowid)"},
		// Each provenance row keeps its adjacent facts (v23); SQLite seeks
		// them in fact_provenance_session_seq instead.
		{"column fact_provenance.prev_fact int64", "adjacent facts (v23)"},
		{"column fact_provenance.next_fact int64", "adjacent facts (v23)"},
		{"trigger fact_provenance_inserted on fact_provenance", "adjacent facts (v23)"},
		{"trigger fact_provenance_deleted on fact_provenance", "adjacent facts (v23)"},
		{"trigger fact_provenance_moved on fact_provenance", "adjacent facts (v23)"},
		{"index fact_provenance_fact_seq on fact_provenance (fact_id, event_seq, session_id) include (session_fact_id, prev_fact, next_fact)",
			"index-only seed lookups (v24)"},
	},
}

// typeNames maps each engine's spelling of a column type to one name:
// SQLite's INTEGER and PostgreSQL's bigint are both 64-bit integers, REAL
// and double precision both 64-bit floats, BLOB and bytea both bytes.
var typeNames = map[string]string{
	"INTEGER": "int64", "bigint": "int64", "integer": "int64",
	"REAL": "float64", "double precision": "float64",
	"TEXT": "text", "text": "text",
	"BLOB": "bytes", "bytea": "bytes",
	"boolean": "bool", "tsvector": "tsvector",
}

func typeName(t *testing.T, table, column, spelled string) string {
	t.Helper()
	n, ok := typeNames[spelled]
	if !ok {
		t.Errorf("column %s.%s: type %q has no entry in typeNames", table, column, spelled)
		return spelled
	}
	return n
}

var (
	pgCast   = regexp.MustCompile(`::(double precision|[a-z]+)`)
	pgAnyArr = regexp.MustCompile(`= any \(array\[([^\]]*)\]\)`)
	spaces   = regexp.MustCompile(`\s+`)
)

// expr puts a CHECK or index predicate in one spelling: PostgreSQL's
// casts (::text) go, its "= ANY (ARRAY[...])" reads as IN (...), the
// parentheses it adds round every term go with all others (the
// expressions compared are flat), and so does the space after a comma.
func expr(s string) string {
	s = strings.ToLower(s)
	s = pgCast.ReplaceAllString(s, "")
	s = pgAnyArr.ReplaceAllString(s, "in ($1)")
	s = strings.NewReplacer("(", "", ")", "", ", ", ",").Replace(s)
	return strings.TrimSpace(spaces.ReplaceAllString(s, " "))
}

// defaultValue puts a column default in one spelling: PostgreSQL's casts
// ('pending'::text) go.
func defaultValue(s string) string { return pgCast.ReplaceAllString(s, "") }

func columnLine(table, name, typ string, notNull bool, def string, identity bool) string {
	l := "column " + table + "." + name + " " + typ
	if notNull {
		l += " not null"
	}
	if def != "" {
		l += " default " + def
	}
	if identity {
		l += " identity"
	}
	return l
}

func indexLine(name, table, using string, unique bool, cols, include []string, where string) string {
	l := "index "
	if unique {
		l = "unique index "
	}
	l += name + " on " + table
	if using != "" && using != "btree" {
		l += " using " + using
	}
	l += " (" + strings.Join(cols, ", ") + ")"
	if len(include) > 0 {
		l += " include (" + strings.Join(include, ", ") + ")"
	}
	if where != "" {
		l += " where " + expr(where)
	}
	return l
}

func fkLine(table string, from []string, to string, toCols []string, onDelete string) string {
	l := fmt.Sprintf("foreign key %s (%s) references %s (%s)", table, strings.Join(from, ", "), to, strings.Join(toCols, ", "))
	if onDelete != "" && onDelete != "no action" {
		l += " on delete " + onDelete
	}
	return l
}

// rows runs query on db and calls scan for each row.
func rows(t *testing.T, db *sql.DB, scan func(*sql.Rows) error, query string, args ...any) {
	t.Helper()
	rs, err := db.Query(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rs.Close()
	for rs.Next() {
		if err := scan(rs); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// sqliteChecks returns the CHECK expressions of a CREATE TABLE statement.
func sqliteChecks(create string) []string {
	var out []string
	upper := strings.ToUpper(create)
	for i := strings.Index(upper, "CHECK"); i >= 0; {
		open := strings.Index(create[i:], "(") + i
		depth, end := 0, open
		for ; end < len(create); end++ {
			if create[end] == '(' {
				depth++
			} else if create[end] == ')' {
				if depth--; depth == 0 {
					break
				}
			}
		}
		out = append(out, create[open+1:end])
		next := strings.Index(upper[end:], "CHECK")
		if next < 0 {
			break
		}
		i = end + next
	}
	return out
}

// sqliteLines renders the schema of a SQLite store.
func sqliteLines(t *testing.T, db *sql.DB) []string {
	t.Helper()
	var lines []string
	type object struct{ name, kind, sql string }
	var objects []object
	rows(t, db, func(r *sql.Rows) error {
		var o object
		err := r.Scan(&o.name, &o.kind, &o.sql)
		objects = append(objects, o)
		return err
	}, `SELECT l.name, l.type, coalesce(m.sql, '') FROM pragma_table_list l LEFT JOIN sqlite_master m ON m.name = l.name
		WHERE l.schema = 'main' AND l.name NOT LIKE 'sqlite_%' AND l.type <> 'shadow' ORDER BY l.name`)
	for _, o := range objects {
		switch o.kind {
		case "virtual":
			module := strings.ToLower(regexp.MustCompile(`(?i)USING\s+(\w+)`).FindStringSubmatch(o.sql)[1])
			lines = append(lines, module+" table "+o.name)
			continue
		case "view":
			lines = append(lines, "view "+o.name+" ("+strings.Join(columnNames(t, db, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, o.name), ", ")+")")
			continue
		}
		lines = append(lines, "table "+o.name)
		autoinc := strings.Contains(strings.ToUpper(o.sql), "AUTOINCREMENT")
		var pk []string
		pkPos := map[int]string{}
		rows(t, db, func(r *sql.Rows) error {
			var name, typ string
			var notNull bool
			var def sql.NullString
			var pos int
			if err := r.Scan(&name, &typ, &notNull, &def, &pos); err != nil {
				return err
			}
			identity := pos > 0 && typ == "INTEGER" && autoinc
			if pos > 0 {
				pkPos[pos] = name
				// A key column holds no NULL on PostgreSQL; SQLite's
				// rowid tables allow one in a key that is not INTEGER
				// PRIMARY KEY (a documented SQLite quirk). No writer
				// stores one, so a key column is compared as NOT NULL.
				notNull = true
			}
			lines = append(lines, columnLine(o.name, name, typeName(t, o.name, name, typ), notNull, def.String, identity))
			return nil
		}, `SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)`, o.name)
		for i := 1; i <= len(pkPos); i++ {
			pk = append(pk, pkPos[i])
		}
		if len(pk) > 0 {
			lines = append(lines, "primary key "+o.name+" ("+strings.Join(pk, ", ")+")")
		}
		for _, c := range sqliteChecks(o.sql) {
			lines = append(lines, "check "+o.name+" "+expr(c))
		}
		type fk struct {
			from, to []string
			table    string
			onDelete string
		}
		fks := map[int]*fk{}
		rows(t, db, func(r *sql.Rows) error {
			var id int
			var table, from, to, onDelete string
			if err := r.Scan(&id, &table, &from, &to, &onDelete); err != nil {
				return err
			}
			if fks[id] == nil {
				fks[id] = &fk{table: table, onDelete: strings.ToLower(onDelete)}
			}
			fks[id].from = append(fks[id].from, from)
			fks[id].to = append(fks[id].to, to)
			return nil
		}, `SELECT id, "table", "from", "to", on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq`, o.name)
		for _, f := range fks {
			lines = append(lines, fkLine(o.name, f.from, f.table, f.to, f.onDelete))
		}
		type index struct {
			name, origin string
			unique       bool
		}
		var indexes []index
		rows(t, db, func(r *sql.Rows) error {
			var ix index
			err := r.Scan(&ix.name, &ix.unique, &ix.origin)
			indexes = append(indexes, ix)
			return err
		}, `SELECT name, "unique", origin FROM pragma_index_list(?)`, o.name)
		for _, ix := range indexes {
			var cols []string
			rows(t, db, func(r *sql.Rows) error {
				var name string
				var desc bool
				if err := r.Scan(&name, &desc); err != nil {
					return err
				}
				if desc {
					name += " desc"
				}
				cols = append(cols, name)
				return nil
			}, `SELECT name, "desc" FROM pragma_index_xinfo(?) WHERE key ORDER BY seqno`, ix.name)
			switch ix.origin {
			case "pk": // the key of a WITHOUT ROWID table, listed above
			case "u":
				lines = append(lines, "unique "+o.name+" ("+strings.Join(cols, ", ")+")")
			default:
				var create string
				if err := db.QueryRow(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`, ix.name).Scan(&create); err != nil {
					t.Fatal(err)
				}
				var where string
				if i := strings.Index(strings.ToUpper(create), " WHERE "); i >= 0 {
					where = create[i+len(" WHERE "):]
				}
				lines = append(lines, indexLine(ix.name, o.name, "", ix.unique, cols, nil, where))
			}
		}
	}
	rows(t, db, func(r *sql.Rows) error {
		var name, table string
		err := r.Scan(&name, &table)
		lines = append(lines, "trigger "+name+" on "+table)
		return err
	}, `SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'`)
	slices.Sort(lines)
	return lines
}

func columnNames(t *testing.T, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	var out []string
	rows(t, db, func(r *sql.Rows) error {
		var s string
		err := r.Scan(&s)
		out = append(out, s)
		return err
	}, query, args...)
	return out
}

// keyColumns lists a constraint's columns (conkey or confkey) in order.
const keyColumns = `array_to_string(ARRAY(SELECT a.attname FROM unnest(%s) WITH ORDINALITY k(n, o)
	JOIN pg_attribute a ON a.attrelid = %s AND a.attnum = k.n ORDER BY k.o), ',')`

// postgresLines renders the schema of a PostgreSQL store.
func postgresLines(t *testing.T, db *sql.DB) []string {
	t.Helper()
	var lines []string
	rows(t, db, func(r *sql.Rows) error {
		var name, kind string
		if err := r.Scan(&name, &kind); err != nil {
			return err
		}
		if kind == "VIEW" {
			lines = append(lines, "view "+name+" ("+strings.Join(columnNames(t, db, `SELECT column_name FROM information_schema.columns
				WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, name), ", ")+")")
		} else {
			lines = append(lines, "table "+name)
		}
		return nil
	}, `SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = current_schema()`)
	rows(t, db, func(r *sql.Rows) error {
		var table, name, typ, nullable, identity, generated string
		var def sql.NullString
		if err := r.Scan(&table, &name, &typ, &nullable, &def, &identity, &generated); err != nil {
			return err
		}
		l := columnLine(table, name, typeName(t, table, name, typ), nullable == "NO", defaultValue(def.String), identity == "YES")
		if generated == "ALWAYS" {
			l = columnLine(table, name, typeName(t, table, name, typ), false, "", false) + " generated"
		}
		lines = append(lines, l)
		return nil
	}, `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable, c.column_default, c.is_identity, c.is_generated
		FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
		WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'`)
	rows(t, db, func(r *sql.Rows) error {
		var table, kind, cols, def, ref, refCols, onDelete string
		if err := r.Scan(&table, &kind, &cols, &def, &ref, &refCols, &onDelete); err != nil {
			return err
		}
		colList := strings.ReplaceAll(cols, ",", ", ")
		switch kind {
		case "p":
			lines = append(lines, "primary key "+table+" ("+colList+")")
		case "u":
			lines = append(lines, "unique "+table+" ("+colList+")")
		case "c":
			lines = append(lines, "check "+table+" "+expr(strings.TrimPrefix(def, "CHECK ")))
		case "f":
			actions := map[string]string{"a": "no action", "r": "restrict", "c": "cascade", "n": "set null", "d": "set default"}
			lines = append(lines, fkLine(table, strings.Split(cols, ","), ref, strings.Split(refCols, ","), actions[onDelete]))
		}
		return nil
	}, `SELECT t.relname, c.contype, `+fmt.Sprintf(keyColumns, "c.conkey", "c.conrelid")+`, pg_get_constraintdef(c.oid, true),
			coalesce(rt.relname, ''), coalesce(`+fmt.Sprintf(keyColumns, "c.confkey", "c.confrelid")+`, ''), c.confdeltype
		FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid LEFT JOIN pg_class rt ON rt.oid = c.confrelid
		WHERE t.relnamespace = current_schema()::regnamespace AND c.contype IN ('p', 'u', 'c', 'f')`)
	rows(t, db, func(r *sql.Rows) error {
		var name, table, using, options, where string
		var unique bool
		var keys int
		var cols []string
		var all string
		if err := r.Scan(&name, &table, &unique, &using, &keys, &all, &options, &where); err != nil {
			return err
		}
		cols = strings.Split(all, "\x1f")
		opts := strings.Fields(options)
		for i := range keys {
			if opts[i] == "1" || opts[i] == "3" { // INDOPTION_DESC
				cols[i] += " desc"
			}
		}
		lines = append(lines, indexLine(name, table, using, unique, cols[:keys], cols[keys:], where))
		return nil
	}, `SELECT i.relname, t.relname, x.indisunique, am.amname, x.indnkeyatts,
			array_to_string(ARRAY(SELECT pg_get_indexdef(x.indexrelid, k, true) FROM generate_series(1, x.indnatts) k ORDER BY k), chr(31)),
			x.indoption::text, coalesce(pg_get_expr(x.indpred, x.indrelid, true), '')
		FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid JOIN pg_am am ON am.oid = i.relam
		WHERE t.relnamespace = current_schema()::regnamespace
			AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid AND c.conrelid = x.indrelid AND c.contype IN ('p', 'u'))`)
	rows(t, db, func(r *sql.Rows) error {
		var name, table string
		err := r.Scan(&name, &table)
		lines = append(lines, "trigger "+name+" on "+table)
		return err
	}, `SELECT g.tgname, t.relname FROM pg_trigger g JOIN pg_class t ON t.oid = g.tgrelid
		WHERE t.relnamespace = current_schema()::regnamespace AND NOT g.tgisinternal`)
	slices.Sort(lines)
	return lines
}

package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// copyTables lists the tables a store holds, parents before the tables
// whose foreign keys name them, so rows can be inserted in this order.
var copyTables = []string{
	"sessions", "session_events", "source_files", "skipped_records", "redactions", "session_facts",
	"extract_watermarks", "domains", "facts", "fact_provenance", "entities", "entity_aliases",
	"fact_entities", "entity_edges", "embeddings", "conflicts", "tombstones", "summaries", "runs", "spend",
	"stage_health", "mutation_log", "meta", "vector_codes", "vector_code_changes", "pruned_keys",
	"source_problems", "fact_signatures", "fact_signature_backfill",
}

// selfReferences names, per table, the column whose foreign key points
// at another row of the same table (a fact's successor). A copy in key
// order would name a row not yet copied (a successor can have a higher
// key), so it writes the column as NULL first and sets it once every row
// of the table is in, in the same transaction.
var selfReferences = sync.OnceValue(func() map[string]string {
	return map[string]string{"facts": "superseded_by"}
})

// generatedColumns are columns an engine computes itself (PostgreSQL's
// full-text vectors, and the adjacent facts its triggers keep on each
// provenance row); a copy never writes them.
var generatedColumns = []string{"content_tsv", "prev_fact", "next_fact"}

// TableCount is one table's rows in the source and the destination of a
// copy.
type TableCount struct {
	Table  string `json:"table"`
	Source int64  `json:"source"`
	Dest   int64  `json:"dest"`
	// Copied is false when the destination already held the same number
	// of rows (a copy run again) and nothing was written.
	Copied bool `json:"copied"`
}

// Copy copies every row of from into to, table by table, keeping ids, and
// then verifies that every table holds as many rows in to as in from. A
// table that already holds as many rows in to is left as it is, so a copy
// can be run again; one that holds a different, non-zero number is
// refused, nothing written to it.
func Copy(ctx context.Context, from, to *DB) ([]TableCount, error) {
	var out []TableCount
	for _, t := range copyTables {
		tc := TableCount{Table: t}
		var err error
		if tc.Source, err = countRows(ctx, from, t); err != nil {
			return out, err
		}
		if tc.Dest, err = countRows(ctx, to, t); err != nil {
			return out, err
		}
		switch {
		case tc.Dest == tc.Source:
		case tc.Dest != 0 && t != "vector_code_changes":
			return out, fmt.Errorf("copy %s: the destination already holds %d rows, the source %d; copy into a new, empty store", t, tc.Dest, tc.Source)
		default:
			if err := copyTable(ctx, from, to, t); err != nil {
				return out, err
			}
			tc.Copied = true
			if tc.Dest, err = countRows(ctx, to, t); err != nil {
				return out, err
			}
			if tc.Dest != tc.Source {
				return out, fmt.Errorf("copy %s: %d rows in the source, %d in the destination after the copy", t, tc.Source, tc.Dest)
			}
		}
		out = append(out, tc)
	}
	return out, nil
}

func countRows(ctx context.Context, db *DB, table string) (int64, error) {
	var n int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		return 0, fmt.Errorf("count %s in %s: %w", table, db.Path, err)
	}
	return n, nil
}

// columns lists the columns both stores have for table, less the ones an
// engine computes.
func columns(ctx context.Context, from, to *DB, table string) ([]string, error) {
	list := func(db *DB) ([]string, error) {
		rows, err := db.QueryContext(ctx, `SELECT * FROM `+table+` WHERE 1 = 0`)
		if err != nil {
			return nil, fmt.Errorf("read columns of %s in %s: %w", table, db.Path, err)
		}
		defer rows.Close()
		return rows.Columns()
	}
	src, err := list(from)
	if err != nil {
		return nil, err
	}
	dst, err := list(to)
	if err != nil {
		return nil, err
	}
	var cols []string
	for _, c := range src {
		if slices.Contains(dst, c) && !slices.Contains(generatedColumns, c) {
			cols = append(cols, c)
		}
	}
	return cols, nil
}

func quoteCol(c string) string { return `"` + c + `"` }

// copyTable inserts every row of table in from into to, in one write
// transaction, in the source's key order.
func copyTable(ctx context.Context, from, to *DB, table string) error {
	cols, err := columns(ctx, from, to, table)
	if err != nil {
		return err
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = quoteCol(c)
	}
	list := strings.Join(quoted, ", ")
	order := "1"
	if table == "fact_provenance" { // no key: its rows in insert order
		order = from.Engine().InsertOrder(table)
	}
	rows, err := from.QueryContext(ctx, `SELECT `+list+` FROM `+table+` ORDER BY `+order)
	if err != nil {
		return fmt.Errorf("read %s: %w", table, err)
	}
	defer rows.Close()
	ins := `INSERT INTO ` + table + `(` + list + `) VALUES (` + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + `)`
	if table == "vector_code_changes" {
		ins += ` ON CONFLICT (id) DO UPDATE SET removed = excluded.removed`
	}
	return to.Tx(ctx, func(tx *Tx) error {
		if err := tx.Engine().BeforeCopy(ctx, tx, table); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, ins)
		if err != nil {
			return fmt.Errorf("copy %s: %w", table, err)
		}
		defer stmt.Close()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		self, key := -1, slices.Index(cols, "id")
		if col, ok := selfReferences()[table]; ok && key >= 0 {
			self = slices.Index(cols, col)
		}
		var later [][2]any // key, self-reference set after every row is in
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return fmt.Errorf("read %s: %w", table, err)
			}
			if self >= 0 && vals[self] != nil {
				later = append(later, [2]any{vals[key], vals[self]})
				vals[self] = nil
			}
			if _, err := stmt.ExecContext(ctx, tx.Engine().Args(vals)...); err != nil {
				return fmt.Errorf("copy %s: %w", table, err)
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read %s: %w", table, err)
		}
		for _, kv := range later {
			col := quoteCol(cols[self])
			if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET `+col+` = ? WHERE id = ?`, kv[1], kv[0]); err != nil {
				return fmt.Errorf("copy %s: set %s of row %v: %w", table, cols[self], kv[0], err)
			}
		}
		return tx.Engine().AfterCopy(ctx, tx, table)
	})
}

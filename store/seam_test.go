package store_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sqlLike picks the string literals that are SQL: a statement keyword or
// clause in capitals, as every statement in the tree is written.
var sqlLike = regexp.MustCompile(`\b(SELECT|INSERT|UPDATE|DELETE|FROM|WHERE|ORDER BY|GROUP BY|JOIN|PRAGMA|VACUUM|ANALYZE|CREATE|VALUES|LIMIT|INDEXED)\b`)

// sqliteOnly lists what only SQLite understands, each with what to use
// instead. A stage's SQL keeps to the subset PostgreSQL accepts too; what
// has no portable form is a store operation (engine.go).
var sqliteOnly = []struct {
	re   *regexp.Regexp
	hint string
}{
	{regexp.MustCompile(`\bMATCH\b|\bbm25\(|ORDER BY rank\b|_fts\b`), "full-text search: join Engine.TextMatches(ix) with the query Engine.TextQuery renders"},
	{regexp.MustCompile(`(?i)\bPRAGMA\b|\bVACUUM\b|\bANALYZE\b`), "maintenance: store.DB's Checkpoint, Compact, Version or UsedBytes, or Tx.SecureDelete"},
	{regexp.MustCompile(`(?i)\bAUTOINCREMENT\b|WITHOUT ROWID|\bsqlite_`), "schema: belongs in the store's migrations"},
	{regexp.MustCompile(`(?i)\bINSERT\s+OR\b|\bREPLACE\s+INTO\b`), "upsert: INSERT … ON CONFLICT (…) DO NOTHING / DO UPDATE SET x = excluded.x"},
	{regexp.MustCompile(`(?i)\b(julianday|strftime|datetime|unixepoch)\s*\(`), "date function: compute the time in Go (store.FormatTime)"},
	{regexp.MustCompile(`(?i)\blast_insert_rowid\b|\browid\b`), "row ids: INSERT … RETURNING id; order by a column, or Engine.InsertOrder"},
	{regexp.MustCompile(`(?i)\b(group_concat|ifnull|instr|typeof|glob|printf|total|json_each|json_extract|json_valid)\s*\(|\bGLOB\b|COLLATE\s+NOCASE`), "SQLite function: use the engine's form (Engine.JSONInts, Contains, JoinText), COALESCE, or compute it in Go"},
	{regexp.MustCompile(`(?i)\b(max|min)\s*\([^()]*,`), "scalar max/min of two values: use CASE WHEN"},
	{regexp.MustCompile(`(?i)\bSELECT\s+(NOT\s+)?EXISTS\b`), "a boolean scanned as a number: SELECT CASE WHEN EXISTS (…) THEN 1 ELSE 0 END"},
	{regexp.MustCompile(`(?i)\bLIMIT\s+-1\b`), "no limit: leave LIMIT out, or pass a large one"},
	{regexp.MustCompile(`(?i)\bINDEXED\s+BY\b|\bNOT\s+INDEXED\b`), "index hint: Engine.IndexHint(index), empty where the engine plans by its own statistics"},
	{regexp.MustCompile(`(?i)\bAS\s+BLOB\b`), "BLOB is SQLite's type name: octet_length(x) gives a text's bytes"},
	{regexp.MustCompile(`(^|[^\w".])offset($|[^\w"])`), "offset is a reserved word in PostgreSQL: quote the column, \"offset\""},
}

// TestSQLiteOnlyStaysInStore pins the storage seam: outside the store
// package, production code writes only the SQL both engines accept, and
// no SQLite driver type. A second engine then plugs in under store without
// touching the stages.
func TestSQLiteOnlyStaysInStore(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "store" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		problems = append(problems, scanSQL(t, root, rel)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// scanSQL reports file:line for each SQLite-only token in the file's SQL
// string literals, each import of the SQLite driver and each LastInsertId
// call.
func scanSQL(t *testing.T, root, rel string) []string {
	t.Helper()
	fset := token.NewFileSet()
	src, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); strings.Contains(p, "go-sqlite3") {
			out = append(out, fset.Position(imp.Pos()).String()+": imports the SQLite driver; its types and error codes belong to store (store.IsBusy, store.IsConstraint, …)")
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if n.Sel.Name == "LastInsertId" {
				out = append(out, fset.Position(n.Pos()).String()+": LastInsertId: use store's InsertID")
			}
			// The raw handle (store.DB's embedded *sql.DB, or a *sql.DB or
			// *sql.Tx) runs statements past the engine's Rebind.
			if x, ok := n.X.(*ast.SelectorExpr); ok && n.Sel.Name == "DB" && x.Sel.Name == "DB" {
				out = append(out, fset.Position(n.Pos()).String()+": the raw *sql.DB inside store.DB skips the engine's rebinding: use the store.DB")
			}
			if x, ok := n.X.(*ast.Ident); ok && x.Name == "sql" && (n.Sel.Name == "DB" || n.Sel.Name == "Tx") {
				out = append(out, fset.Position(n.Pos()).String()+": sql."+n.Sel.Name+" skips the engine's rebinding: take a store.DB, store.Tx or store.Querier")
			}
		case *ast.BasicLit:
			if n.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(n.Value)
			if err != nil || !sqlLike.MatchString(s) {
				return true
			}
			for i, line := range strings.Split(s, "\n") {
				for _, c := range sqliteOnly {
					if m := c.re.FindString(line); m != "" {
						pos := fset.Position(n.Pos())
						out = append(out, pos.Filename+":"+strconv.Itoa(pos.Line+i)+": "+strconv.Quote(strings.TrimSpace(m))+" is SQLite-only: "+c.hint)
					}
				}
			}
		}
		return true
	})
	return out
}

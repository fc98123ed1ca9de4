package mcpserver

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAdapterHoldsNoSQL pins the wall: the MCP server is an adapter, and
// every query a tool needs lives in pipeline or graph. No file of the
// package (tests aside) calls a database method or holds statement text.
func TestAdapterHoldsNoSQL(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	dbCalls := map[string]bool{"Query": true, "QueryContext": true, "QueryRow": true, "QueryRowContext": true,
		"Exec": true, "ExecContext": true, "Prepare": true, "PrepareContext": true, "Begin": true, "BeginTx": true, "Tx": true}
	statement := regexp.MustCompile(`(?i)\b(SELECT|INSERT INTO|UPDATE|DELETE FROM)\b.*\b(FROM|SET|VALUES|WHERE)\b`)
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && dbCalls[sel.Sel.Name] {
					t.Errorf("%s: calls %s: queries belong in pipeline or graph", fset.Position(n.Pos()), sel.Sel.Name)
				}
			case *ast.BasicLit:
				if n.Kind == token.STRING && statement.MatchString(n.Value) {
					t.Errorf("%s: holds statement text %s: queries belong in pipeline or graph", fset.Position(n.Pos()), n.Value)
				}
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no source file checked")
	}
}

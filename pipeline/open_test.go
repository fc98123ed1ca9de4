package pipeline

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyOpenBuildsACopier: a process copies through the one Copier its
// Pipeline built at Open. No other production code (the scheduler's
// follower, the MCP server, a command) builds a sources.Copier of its own;
// the copy benchmark, which measures the copier alone, is the exception.
func TestOnlyOpenBuildsACopier(t *testing.T) {
	root := filepath.Join("..")
	allowed := map[string]bool{filepath.Join("pipeline", "open.go"): true}
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == filepath.Join("cmd", "recollect-bench") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || allowed[rel] {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		inSources := f.Name.Name == "sources"
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			switch typ := lit.Type.(type) {
			case *ast.SelectorExpr:
				if x, ok := typ.X.(*ast.Ident); ok && x.Name == "sources" && typ.Sel.Name == "Copier" {
					t.Errorf("%s builds a sources.Copier; copy through the Pipeline's (pipeline.Open builds the one a process has)", fset.Position(lit.Pos()))
				}
			case *ast.Ident:
				if inSources && typ.Name == "Copier" {
					t.Errorf("%s builds a Copier inside sources", fset.Position(lit.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("no Go file was read")
	}
}

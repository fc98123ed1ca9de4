package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoRegexpCompiledAtInit walks the module and refuses a regular
// expression compiled while the process starts: a package-level variable
// or an init function that calls regexp.MustCompile (or Compile) runs in
// every command, search and hooks included, whether the command uses it
// or not. Compiling the heuristic's and integrate's expressions at start
// was most of the binary's own start-up work; they are built on first use
// (sync.OnceValue) instead.
func TestNoRegexpCompiledAtInit(t *testing.T) {
	root := filepath.Join("..", "..")
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		for _, at := range compiledAtInit(f) {
			t.Errorf("%s: a regular expression is compiled when the process starts; build it on first use (sync.OnceValue)", fset.Position(at))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("walked only %d files; is the walk rooted right?", files)
	}
}

// compiledAtInit returns where f compiles a regular expression during
// package initialisation: in a package-level variable's value or an init
// function, following function literals only where they are called on the
// spot.
func compiledAtInit(f *ast.File) []token.Pos {
	var at []token.Pos
	var visit func(ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // runs when called, not at init
		case *ast.CallExpr:
			if lit, ok := n.Fun.(*ast.FuncLit); ok {
				ast.Inspect(lit.Body, visit)
				for _, a := range n.Args {
					ast.Inspect(a, visit)
				}
				return false
			}
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "regexp" && (sel.Sel.Name == "MustCompile" || sel.Sel.Name == "Compile") {
					at = append(at, n.Pos())
				}
			}
		}
		return true
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, s := range d.Specs {
				for _, v := range s.(*ast.ValueSpec).Values {
					ast.Inspect(v, visit)
				}
			}
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" && d.Body != nil {
				ast.Inspect(d.Body, visit)
			}
		}
	}
	return at
}

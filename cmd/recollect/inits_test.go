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
	for _, f := range moduleFiles(t) {
		for _, at := range compiledAtInit(f.ast) {
			t.Errorf("%s: a regular expression is compiled when the process starts; build it on first use (sync.OnceValue)", f.fset.Position(at))
		}
	}
}

// TestNoMapBuiltAtInit refuses a package-level variable that builds a map
// while the process starts (a map literal, set(…) of words, or a function
// called on the spot): every command pays for it, whether it reads the map
// or not. The word lists of the heuristic, integrate and query analysis
// are built on first use (sync.OnceValue) instead. Exported maps are other
// packages' API and are left as they are.
func TestNoMapBuiltAtInit(t *testing.T) {
	for _, f := range moduleFiles(t) {
		for _, d := range f.ast.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, v := range vs.Values {
					if i < len(vs.Names) && vs.Names[i].IsExported() {
						continue
					}
					if buildsMap(v) {
						t.Errorf("%s: %s builds a map when the process starts; build it on first use (sync.OnceValue)", f.fset.Position(v.Pos()), vs.Names[min(i, len(vs.Names)-1)].Name)
					}
				}
			}
		}
	}
}

// buildsMap reports whether the value expression v builds a map when it is
// evaluated: a map literal, a call of set, or a function literal called on
// the spot that returns a map.
func buildsMap(v ast.Expr) bool {
	switch v := v.(type) {
	case *ast.CompositeLit:
		_, isMap := v.Type.(*ast.MapType)
		return isMap
	case *ast.CallExpr:
		if id, ok := v.Fun.(*ast.Ident); ok && id.Name == "set" {
			return true
		}
		if lit, ok := v.Fun.(*ast.FuncLit); ok && lit.Type.Results != nil {
			for _, r := range lit.Type.Results.List {
				if _, isMap := r.Type.(*ast.MapType); isMap {
					return true
				}
			}
		}
	}
	return false
}

// goFile is one parsed source file of the module.
type goFile struct {
	fset *token.FileSet
	ast  *ast.File
}

// moduleFiles parses the module's Go files, tests and testdata left out.
func moduleFiles(t *testing.T) map[string]goFile {
	t.Helper()
	root := filepath.Join("..", "..")
	out := map[string]goFile{}
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
		out[path] = goFile{fset: fset, ast: f}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 50 {
		t.Fatalf("walked only %d files; is the walk rooted right?", len(out))
	}
	return out
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

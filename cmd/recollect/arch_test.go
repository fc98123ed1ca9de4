package main

// This test pins the import direction of the whole module. It lives here
// because cmd/recollect is the one room allowed to see every other: a check
// of all the rooms belongs with the package that links them all, not inside
// one of the rooms it judges (and a test-only package at the module root
// would add a folder the design card does not have).

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/recollect/recollect"

// room is a part of the house: the package at root and every package below
// it (unless a deeper room claims it), and what its production code may
// import besides its own room. An entry of may is a room root, meaning the
// whole room, or a single package (store/datadir) that is not a room root.
type room struct {
	root string
	may  []string
}

// rooms is the layering of ARCHITECTURE.md, top to bottom:
// cmd → scheduler → pipeline → sources, extract, integrate → extract/model →
// graph → graph/vector → store (its engines store/sqlite and store/postgres
// below it, store/sqlite reached only by the openers), with hooks,
// fixtures, scheduler/notifybench, scheduler/daemonproc and graph/text as
// leaves.
// Siblings on one layer (sources, extract, integrate) never import each
// other, and sources reads nothing of the knowledge side.
var rooms = []room{
	{root: "cmd/recollect", may: []string{"scheduler", "scheduler/notifybench", "pipeline", "sources", "extract", "integrate", "extract/model", "graph", "graph/text", "graph/vector", "store", "store/sqlite", "hooks", "fixtures"}},
	// The hook's binary links only the hook's code path and the data
	// directory rule, so it starts fast.
	{root: "cmd/recollect-notify", may: []string{"hooks/notice", "store/datadir"}},
	// The benchmark harness is a binary of its own, so the shipped recollect
	// does not link it; it drives the recollect binary and the libraries.
	{root: "cmd/recollect-bench", may: []string{"scheduler/notifybench", "scheduler/daemonproc", "pipeline", "sources", "extract", "integrate", "extract/model", "graph", "graph/text", "graph/vector", "store", "store/sqlite", "hooks"}},
	{root: "scheduler", may: []string{"scheduler/notifybench", "pipeline", "sources", "extract", "integrate", "extract/model", "graph", "graph/text", "graph/vector", "store", "hooks"}},
	// daemonproc starts and watches a daemon process from outside, and
	// notifybench times the notify process against a daemon it starts
	// through daemonproc; both speak the socket protocol through hooks only
	// and link no store, so recollect-bench uses them beside the
	// scheduler's tests.
	{root: "scheduler/notifybench", may: []string{"scheduler/daemonproc", "hooks"}},
	{root: "scheduler/daemonproc", may: []string{"hooks", "fixtures"}},
	{root: "pipeline", may: []string{"sources", "extract", "integrate", "extract/model", "graph", "graph/text", "graph/vector", "store", "store/sqlite", "hooks"}},
	{root: "sources", may: []string{"store", "hooks"}},
	{root: "extract", may: []string{"extract/model", "graph", "graph/text", "graph/vector", "store", "hooks"}},
	{root: "integrate", may: []string{"extract/model", "graph", "graph/text", "graph/vector", "store", "hooks"}},
	{root: "extract/model", may: []string{"graph", "graph/text", "graph/vector", "store", "hooks"}},
	// modeltest serves model hosts to tests from recorded wire shapes, and
	// the intelligence settings that route to them.
	{root: "extract/model/modeltest", may: []string{"fixtures", "store/config"}},
	{root: "graph", may: []string{"graph/text", "graph/vector", "store"}},
	// text is how words are cut, stemmed and counted, for the indexes
	// (store) and for search (graph): a leaf that imports nothing of ours,
	// so store may index with it.
	{root: "graph/text", may: nil},
	// vector is embeddings as stored: spaces, sign codes, the code and
	// vector files (written for integrate, read for graph) and the index
	// of codes. It reads and writes store only, never the search.
	{root: "graph/vector", may: []string{"store"}},
	// hooks is what a hook runs and what wires hooks in: standard library,
	// its own packages (notice: the control socket's protocol; control: its
	// client; payload; install) and the two store packages that carry no
	// SQLite. Every room above graph may import it.
	{root: "hooks", may: []string{"store/jsonedit", "store/datadir"}},
	{root: "fixtures", may: nil},
	// store imports nothing of ours outside store/ but the leaf graph/text.
	{root: "store", may: []string{"graph/text"}},
	// sqlite is the SQLite engine below store, as store/postgres is the
	// PostgreSQL one; only the openers (cmd, pipeline's OpenStore and
	// firstrun, the benchmarks) and storetest reach it: every other room
	// works on the *store.DB it returns.
	{root: "store/sqlite", may: []string{"store", "graph/text"}},
	{root: "store/storetest", may: []string{"store", "store/sqlite"}},
}

// roomOf returns the room of a module-relative package path: the deepest
// room root that is the path or a parent of it.
func roomOf(pkg string) (room, bool) {
	best, found := room{}, false
	for _, r := range rooms {
		if (pkg == r.root || strings.HasPrefix(pkg, r.root+"/")) && len(r.root) > len(best.root) {
			best, found = r, true
		}
	}
	return best, found
}

// importViolations judges every package's imports and returns one line per
// import that goes against the layering, and per package in no room.
func importViolations(imports map[string][]string) []string {
	var out []string
	used := map[string]bool{}
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		r, ok := roomOf(pkg)
		if !ok {
			out = append(out, pkg+" is in no room: add it to rooms in cmd/recollect/arch_test.go and ARCHITECTURE.md")
			continue
		}
		used[r.root] = true
		for _, imp := range imports[pkg] {
			target, ok := roomOf(imp)
			if !ok {
				continue // reported as a package in no room
			}
			if target.root == r.root || slices.Contains(r.may, target.root) || slices.Contains(r.may, imp) {
				continue
			}
			allowed := "nothing of ours outside its room"
			if len(r.may) > 0 {
				allowed = "only " + strings.Join(r.may, ", ")
			}
			out = append(out, pkg+" imports "+imp+": "+r.root+" may import "+allowed)
		}
	}
	for _, r := range rooms {
		if !used[r.root] {
			out = append(out, "room "+r.root+" has no package; remove it from rooms")
		}
	}
	return out
}

// moduleImports lists every package of the module with the module's
// packages its production code imports (tests may reach across rooms to
// seed data: integrate's tests write pending facts through extract).
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("IMPORT DIRECTION NOT CHECKED: the go command is not on PATH, so `go list` cannot read the import graph; put go on PATH to run this test")
	}
	cmd := exec.Command(goBin, "list", "-tags", "sqlite_fts5", "-json=ImportPath,Imports", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	imports := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("read go list output: %v", err)
		}
		pkg, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok {
			t.Fatalf("go list named %s, outside %s", p.ImportPath, module)
		}
		var ours []string
		for _, imp := range p.Imports {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				ours = append(ours, rel)
			}
		}
		imports[pkg] = ours
	}
	if len(imports) < len(rooms) {
		t.Fatalf("go list found %d packages, fewer than the %d rooms; is the module root right?", len(imports), len(rooms))
	}
	return imports
}

// TestImportDirection fails, naming the import, when a package imports a
// room above it or a sibling it must not know (integrate importing extract,
// graph importing integrate, store importing anything outside store/).
func TestImportDirection(t *testing.T) {
	for _, v := range importViolations(moduleImports(t)) {
		t.Error(v)
	}
}

// TestImportDirectionRules checks the judge itself on imports the module
// must never have, so the table cannot silently allow everything.
func TestImportDirectionRules(t *testing.T) {
	cases := []struct {
		pkg, imp string
		bad      bool
	}{
		{"integrate", "extract", true},
		{"integrate", "extract/model", false},
		{"graph", "integrate", true},
		{"graph", "extract/model", true},
		{"graph/inspect", "pipeline", true},
		{"graph/hookctx", "graph", false},
		{"sources", "graph", true},
		{"sources", "extract", true},
		{"extract", "integrate", true},
		{"extract/model", "extract", true},
		{"store", "graph", true},
		{"store", "graph/text", false},
		{"graph/text", "store", true},
		{"graph/text", "graph", true},
		{"graph/vector", "graph", true},
		{"integrate", "graph/vector", false},
		{"store", "graph/vector", true},
		{"store/config", "store/jsonedit", false},
		{"hooks", "store", true},
		{"hooks", "store/jsonedit", false},
		{"hooks/install", "store/jsonedit", false},
		{"hooks/control", "hooks/notice", false},
		{"hooks/payload", "store", true},
		{"pipeline", "scheduler", true},
		{"pipeline/stats", "pipeline", false},
		{"pipeline/stats", "scheduler", true},
		{"cmd/recollect-bench/bench", "scheduler/notifybench", false},
		{"cmd/recollect-bench/bench", "scheduler/daemonproc", false},
		{"pipeline", "scheduler/notifybench", true},
		{"cmd/recollect", "cmd/recollect-bench/bench", true},
		{"scheduler/daemonproc", "store", true},
		{"cmd/recollect/mcpserver", "pipeline", false},
		{"pipeline", "cmd/recollect/mcpserver", true},
		{"scheduler", "pipeline", false},
		{"cmd/recollect-notify", "store", true},
		{"cmd/recollect", "cmd/recollect/mcpserver", false},
		{"pipeline", "store/sqlite", false},
		{"pipeline/firstrun", "store/sqlite", false},
		{"graph", "store/sqlite", true},
		{"integrate", "store/sqlite", true},
		{"scheduler", "store/sqlite", true},
		{"store", "store/sqlite", true},
		{"store/postgres", "store/sqlite", true},
		{"store/sqlite", "store", false},
		{"store/sqlite", "graph", true},
	}
	for _, c := range cases {
		imports := map[string][]string{}
		for _, r := range rooms {
			imports[r.root] = nil // every room has a package
		}
		imports[c.pkg] = []string{c.imp}
		got := importViolations(imports)
		if bad := len(got) > 0; bad != c.bad {
			t.Errorf("%s importing %s: violations %q, want bad=%v", c.pkg, c.imp, got, c.bad)
		}
	}
}

// engineNameTest matches code that branches on an engine's name rather
// than asking the engine (store.Engine) for what differs.
var engineNameTest = regexp.MustCompile(`Engine\(\)\.Name\(\)\s*[!=]=|\.Engine\s*[!=]=\s*"(sqlite|postgres)"`)

// engineKindTest matches code that asks whether the engine is a server
// (store.Engine.Remote) rather than asking the engine for what differs:
// its statements (KeywordPool, EntityFacts), its connections' cost
// (CheapConnections), or the store for where it lives (store.DB.InDir).
var engineKindTest = regexp.MustCompile(`\.Remote\(\)`)

// engineKindReporters may ask Remote: they report the engine, and branch
// on nothing.
var engineKindReporters = []string{filepath.Join("pipeline", "stats", "stats.go")}

// TestNoEngineNameTestsOutsideStore: only store and its engines know how
// the engines differ; every other room asks store.Engine. The benchmark
// harness is the one exception: it states its targets per engine, by name.
func TestNoEngineNameTestsOutsideStore(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && (rel == "store" || rel == filepath.Join("cmd", "recollect-bench") || strings.HasPrefix(d.Name(), ".")) && rel != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if engineNameTest.MatchString(line) {
				t.Errorf("%s:%d branches on the engine's name; ask store.Engine instead: %s", rel, i+1, strings.TrimSpace(line))
			}
			if engineKindTest.MatchString(line) && !slices.Contains(engineKindReporters, rel) {
				t.Errorf("%s:%d asks whether the engine is a server; ask store.Engine for what differs instead (its statements, CheapConnections) or store.DB.InDir: %s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`if p.DB.Engine().Name() == "postgres" {`, `case rep.Engine == "postgres":`} {
		if !engineNameTest.MatchString(bad) {
			t.Errorf("the rule misses %q", bad)
		}
	}
	for _, bad := range []string{`if db.Engine().Remote() {`, `remote := eng.Remote()`} {
		if !engineKindTest.MatchString(bad) {
			t.Errorf("the rule misses %q", bad)
		}
	}
}

// sqliteDriver is the SQLite driver's import path.
const sqliteDriver = "github.com/mattn/go-sqlite3"

// TestSQLiteDriverOnlyInStoreSQLite: the SQLite driver is the SQLite
// engine's alone; every other package's production code works on the
// *store.DB it opens.
func TestSQLiteDriverOnlyInStoreSQLite(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("SQLITE DRIVER IMPORTS NOT CHECKED: the go command is not on PATH; put go on PATH to run this test")
	}
	cmd := exec.Command(goBin, "list", "-tags", "sqlite_fts5", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var seen bool
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !slices.Contains(fields[1:], sqliteDriver) {
			continue
		}
		if fields[0] == module+"/store/sqlite" {
			seen = true
			continue
		}
		t.Errorf("%s imports %s: only store/sqlite speaks to SQLite; open the store with sqlite.Open and work on the *store.DB", fields[0], sqliteDriver)
	}
	if !seen {
		t.Errorf("store/sqlite does not import %s: the check looks at the wrong package", sqliteDriver)
	}
}

// storeTakers are the files of cmd and scheduler whose production code
// takes a store handle (a Pipeline's or a graph.Reader's Store()), each with
// why its work is storage itself; every other file goes through the
// package named for the operation: Pipeline.Dir for the data directory,
// the Reader for reads of knowledge, pipeline/stats for the self-report,
// Run, Forget and Prune for the stages and deletions. cmd/recollect-bench,
// which seeds and measures rows, is the one folder taken whole.
var storeTakers = map[string]string{
	"cmd/recollect/app.go":       "records the identity of a store the command created (store.NewIdentity)",
	"cmd/recollect/conflicts.go": "hands the store to integrate's conflict listing and resolution",
	"cmd/recollect/daemon.go":    "sizes the daemon's connection cache",
	"cmd/recollect/mcp.go":       "checks the store answers before the MCP handshake",
	"cmd/recollect/storecopy.go": "copies the store to another engine",
	"cmd/recollect/why.go":       "hands the store to integrate's decision trail",
}

// storeTakes lists, as file:line, the calls of a method named Store with
// no arguments in the Go source src.
func storeTakes(name string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return nil, err
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 0 {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Store" {
			out = append(out, fset.Position(call.Pos()).String())
		}
		return true
	})
	return out, nil
}

// TestStoreHandleTakers: the front ends and the scheduler take the store
// handle only where their work is storage itself (storeTakers); each such
// file still needs it, so the list does not outlive its reasons.
func TestStoreHandleTakers(t *testing.T) {
	root := filepath.Join("..", "..")
	taking := map[string]bool{}
	for _, top := range []string{"cmd", "scheduler"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if d.IsDir() && rel == "cmd/recollect-bench" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			takes, err := storeTakes(rel, src)
			if err != nil {
				return err
			}
			if len(takes) == 0 {
				return nil
			}
			taking[rel] = true
			if _, ok := storeTakers[rel]; !ok {
				t.Errorf("%s takes the store handle; go through the package named for the operation (Pipeline.Dir, Reader, pipeline/stats, integrate), or add the file to storeTakers with why its work is storage", strings.Join(takes, ", "))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, file := range slices.Sorted(maps.Keys(storeTakers)) {
		if !taking[file] {
			t.Errorf("%s is in storeTakers (%s) but takes no store handle: remove it from the list", file, storeTakers[file])
		}
	}
	takes, err := storeTakes("bad.go", []byte("package x\nfunc f() { _ = p.Store().Dir; _ = p.Reader.Store() }\n"))
	if err != nil || len(takes) != 2 {
		t.Errorf("the rule finds %v (%v) in two takes of the handle", takes, err)
	}
}

// knowledgeTable matches SQL that reads or writes one of integrate's
// tables, the K layer and what integrate keeps beside it.
var knowledgeTable = regexp.MustCompile(`(?i)\b(FROM|JOIN|INTO|UPDATE|TABLE)\s+(facts|fact_provenance|fact_entities|fact_signatures|fact_signature_backfill|fact_counts|entities|entity_aliases|entity_edges|embeddings|conflicts|summaries|tombstones|domains|vector_codes|vector_code_changes)\b`)

// knowledgeSQLInPipeline are the files of package pipeline allowed SQL on
// integrate's tables, each with why.
var knowledgeSQLInPipeline = map[string]string{
	"prune.go": "the reclaimable-events condition keeps every event a fact's provenance cites, in the one statement that both counts and deletes",
}

// TestPipelineLeavesKnowledgeSQLToIntegrate: package pipeline orders the
// stages and the deletions; what is read or deleted of integrate's tables
// is integrate's code (integrate.ForgetFact, FactOrigin, FactsWithin, …),
// beside the code that writes them.
func TestPipelineLeavesKnowledgeSQLToIntegrate(t *testing.T) {
	pipelineSQLOn(t, knowledgeTable, knowledgeSQLInPipeline, "integrate")
	for _, bad := range []string{"`SELECT id FROM facts WHERE digest = ?`", "`DELETE FROM summaries WHERE created_at < ?`", "`SELECT 1 FROM fact_provenance v JOIN\n entities e`"} {
		if !knowledgeTable.MatchString(bad) {
			t.Errorf("the rule misses %q", bad)
		}
	}
	if knowledgeTable.MatchString("`SELECT content FROM session_facts WHERE fact_id = ?`") {
		t.Error("the rule takes session_facts, extract's table, for integrate's")
	}
}

// extractedTable matches SQL on extract's table of extracted facts.
var extractedTable = regexp.MustCompile(`(?i)\b(FROM|JOIN|INTO|UPDATE|TABLE)\s+session_facts\b`)

// extractedSQLInPipeline are the files of package pipeline allowed SQL on
// the extracted facts, each with why.
var extractedSQLInPipeline = map[string]string{
	"prune.go": "the reclaimable-events condition keeps every event an extracted fact cites, in the one statement that both counts and deletes",
}

// TestPipelineLeavesExtractedFactSQLToExtract: what forget and capture
// read or delete of the extracted facts is extract's code
// (extract.Wordings, ForgetFacts, Pending, …), beside the stage that
// writes them.
func TestPipelineLeavesExtractedFactSQLToExtract(t *testing.T) {
	pipelineSQLOn(t, extractedTable, extractedSQLInPipeline, "extract")
	for _, bad := range []string{"`DELETE FROM session_facts WHERE fact_id = ?`", "`SELECT x FROM facts f JOIN session_facts s`"} {
		if !extractedTable.MatchString(bad) {
			t.Errorf("the rule misses %q", bad)
		}
	}
	if extractedTable.MatchString("`SELECT 1 FROM session_facts_fts`") {
		t.Error("the rule takes the extracted facts' index for the table")
	}
}

// pipelineSQLOn fails for each string literal in package pipeline's
// production files that holds SQL on the tables table matches, unless
// the file is in allowed; and for each allowed file that holds none.
// owner is the package the SQL belongs in.
func pipelineSQLOn(t *testing.T, table *regexp.Regexp, allowed map[string]string, owner string) {
	t.Helper()
	dir := filepath.Join("..", "..", "pipeline")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	using := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			m := table.FindString(lit.Value)
			if m == "" {
				return true
			}
			using[name] = true
			if _, ok := allowed[name]; !ok {
				t.Errorf("%s: SQL on %s's table (%s); add a function to %s beside the code that writes it", fset.Position(lit.Pos()), owner, m, owner)
			}
			return true
		})
	}
	for _, name := range slices.Sorted(maps.Keys(allowed)) {
		if !using[name] {
			t.Errorf("pipeline/%s is allowed SQL on %s's tables but holds none: remove it from the list", name, owner)
		}
	}
}

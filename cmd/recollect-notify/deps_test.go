package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps pins what the hook binary links: of this module only
// hooks/notice and store/datadir, nothing from outside the standard
// library — so no SQLite driver, MCP SDK or model client — and none of
// the standard packages whose start-up a hook would pay for (cgo, net,
// database/sql, encoding/json and fmt with their reflection). The context
// hooks it answers through the daemon are rendered there.
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", "sqlite_fts5", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := map[string]bool{
		"github.com/recollect/recollect/cmd/recollect-notify": true,
		"github.com/recollect/recollect/hooks/notice":         true,
		"github.com/recollect/recollect/store/datadir":        true,
	}
	banned := map[string]bool{"runtime/cgo": true, "net": true, "database/sql": true, "encoding/json": true, "fmt": true, "reflect": true}
	for _, dep := range strings.Fields(string(out)) {
		if banned[dep] || strings.Contains(dep, ".") && !allowed[dep] {
			t.Errorf("recollect-notify links %s; a hook's process must stay on hooks/notice, store/datadir and the lean standard packages", dep)
		}
	}
}

package hooks_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps pins what hooks imports: the standard library, its own
// subpackage notice and store/jsonedit (standard library only) only, so no SQLite, MCP or model client is within a
// hook's reach. (The recollect binary links those for its other commands.)
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", "sqlite_fts5", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep != "github.com/recollect/recollect/hooks" && dep != "github.com/recollect/recollect/hooks/notice" && dep != "github.com/recollect/recollect/store/jsonedit" {
			t.Errorf("hooks imports %s; it must stay on the standard library (no SQLite, MCP or LLM code)", dep)
		}
	}
}

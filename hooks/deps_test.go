package hooks_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps pins what the hooks packages link: the standard library,
// hooks/notice and store/jsonedit (standard library only), so no SQLite,
// MCP or model client is within a hook's reach. (The recollect binary
// links those for its other commands.) notice pins its own, narrower set.
func TestDeps(t *testing.T) {
	const mod = "github.com/recollect/recollect/"
	allowed := map[string]bool{mod + "hooks/notice": true, mod + "store/jsonedit": true}
	for _, pkg := range []string{"control", "install", "payload"} {
		out, err := exec.Command("go", "list", "-tags", "sqlite_fts5", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep != mod+"hooks/"+pkg && !allowed[dep] {
				t.Errorf("hooks/%s imports %s; it must stay on the standard library (no SQLite, MCP or LLM code)", pkg, dep)
			}
		}
	}
}

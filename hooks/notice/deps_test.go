package notice_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps pins what notice links: no package outside the standard
// library, and none of the standard packages whose start-up and first use
// a hook would pay for (net's resolver, encoding/json's reflection, fmt).
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	banned := map[string]bool{"net": true, "encoding/json": true, "fmt": true, "reflect": true, "runtime/cgo": true}
	for _, dep := range strings.Fields(string(out)) {
		if banned[dep] || strings.Contains(dep, ".") && dep != "github.com/recollect/recollect/hooks/notice" {
			t.Errorf("notice links %s; a hook's process must stay on syscall, os and strconv", dep)
		}
	}
}

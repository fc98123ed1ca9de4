package inspect_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recollect/recollect/graph/inspect"
)

// EnvArtifacts names a directory where the browser test leaves its
// screenshots; by default they go to the test's temp directory.
const EnvArtifacts = "RECOLLECT_TEST_ARTIFACTS"

// chromium finds Debian's headless-capable browser, or skips loudly.
func chromium(tb testing.TB) string {
	tb.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "chromium is not installed (apt-get install -y chromium; .ci/run installs it)"
	// In CI a skip would pass unseen (go test shows skips only with -v).
	if os.Getenv("CI") != "" {
		tb.Fatal("THE BROWSER TEST CANNOT RUN: " + msg)
	}
	tb.Skip("SKIPPING THE BROWSER TEST: " + msg)
	return ""
}

// browse loads url in a fresh headless Chromium profile with every
// background network feature off and returns the DOM after load; with
// screenshot set it also writes a PNG there. Each launch costs seconds, so
// the tests keep launches few.
func browse(tb testing.TB, bin, url, screenshot string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
		"--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-default-apps",
		"--user-data-dir=" + tb.TempDir(), "--window-size=1400,900"}
	args = append(args, "--dump-dom")
	if screenshot != "" {
		args = append(args, "--screenshot="+screenshot)
	}
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("chromium %s: %v\n%s", url, err, stderr.String())
	}
	return string(out)
}

func attr(tb testing.TB, dom, elemRe, name string) string {
	tb.Helper()
	tag := regexp.MustCompile(elemRe).FindString(dom)
	if tag == "" {
		tb.Fatalf("no element matching %s in the page", elemRe)
	}
	m := regexp.MustCompile(name + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		tb.Fatalf("%s has no %s attribute", tag, name)
	}
	return m[1]
}

// noErrors fails when the page's script recorded an error.
func noErrors(tb testing.TB, dom string) {
	tb.Helper()
	if !strings.Contains(dom, `<pre id="errors" hidden=""></pre>`) || strings.Contains(dom, `data-errors=`) {
		m := regexp.MustCompile(`(?s)<pre id="errors"[^>]*>(.*?)</pre>`).FindStringSubmatch(dom)
		tb.Fatalf("the page reported script errors: %v", m)
	}
	if attr(tb, dom, `<body[^>]*>`, "data-ready") != "1" {
		tb.Fatal("the page's script did not finish")
	}
}

func TestInspectPageInChromium(t *testing.T) {
	t.Parallel() // chromium mostly waits; overlap the two launches' waits
	bin := chromium(t)
	p := fixtureStore(t)
	ctx := context.Background()
	const limit = 8
	d, err := inspect.Read(ctx, p.Reader, inspect.Options{Limit: limit})
	if err != nil {
		t.Fatal(err)
	}
	var target inspect.Node
	for i, n := range d.Graph.Nodes {
		if n.Name == lonely {
			if i < d.Graph.Drawn {
				t.Fatalf("%s is drawn within the cap; the test needs it outside", lonely)
			}
			target = n
		}
	}
	if target.ID == 0 || d.Graph.Drawn != limit {
		t.Fatalf("fixture graph: %d nodes, %d drawn, target %+v", len(d.Graph.Nodes), d.Graph.Drawn, target)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "inspect.html")
	if err := inspect.WritePageFile(page, d); err != nil {
		t.Fatal(err)
	}

	// One launch (each costs seconds): the page opens on a search for an
	// entity outside the cap, which finds it and draws it. The screenshot
	// is the artifact a person looks at.
	shots := os.Getenv(EnvArtifacts)
	if shots == "" {
		shots = t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(shots, "inspect-search.png")
	dom := browse(t, bin, "file://"+page+"#q="+strings.ToLower(lonely[:5]), shot)
	noErrors(t, dom)
	// The first drawing holds exactly the cap, best connected first.
	if got := attr(t, dom, `<svg id="graph"[^>]*>`, "data-first-nodes"); got != strconv.Itoa(limit) {
		t.Fatalf("graph first drew %s nodes, want the cap %d", got, limit)
	}
	hit := fmt.Sprintf(`<li data-id="%d" data-drawn="no">`, target.ID)
	if !strings.Contains(dom, hit) {
		t.Fatalf("search for %s: no result %s in:\n%s", lonely, hit, regexp.MustCompile(`(?s)<ul id="results".*?</ul>`).FindString(dom))
	}
	if !strings.Contains(dom, fmt.Sprintf(`<g class="node hit" data-id="%d">`, target.ID)) {
		t.Fatal("the found entity was not drawn and highlighted")
	}
	if got := attr(t, dom, `<svg id="graph"[^>]*>`, "data-nodes"); got != strconv.Itoa(limit+1) {
		t.Fatalf("after selecting, graph draws %s nodes, want %d", got, limit+1)
	}
	if n := strings.Count(dom, `<g class="node`); n != limit+1 {
		t.Fatalf("%d node groups in the SVG, want %d", n, limit+1)
	}
	if fi, err := os.Stat(shot); err != nil || fi.Size() < 10_000 {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	t.Logf("screenshot: %s", shot)
}

func TestInspectPageAllDrawsEveryNode(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	p := fixtureStore(t)
	d, err := inspect.Read(context.Background(), p.Reader, inspect.Options{Limit: 3, All: true})
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "inspect.html")
	if err := inspect.WritePageFile(page, d); err != nil {
		t.Fatal(err)
	}
	dom := browse(t, bin, "file://"+page+"#tab=graph", "")
	noErrors(t, dom)
	if got := attr(t, dom, `<svg id="graph"[^>]*>`, "data-nodes"); got != strconv.Itoa(len(d.Graph.Nodes)) {
		t.Fatalf("--all draws %s of %d nodes", got, len(d.Graph.Nodes))
	}
}

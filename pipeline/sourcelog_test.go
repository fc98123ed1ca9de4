package pipeline

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/store/config"
)

// TestLogSources: the line the daemon logs at start for a source that
// matches nothing is a warning naming what to fix.
func TestLogSources(t *testing.T) {
	p := openTest(t)
	var buf bytes.Buffer
	p.log = slog.New(slog.NewTextHandler(&buf, nil))
	missing := filepath.Join(t.TempDir(), "nowhere")
	p.Config.Mode = "copy"
	p.Config.Sources = []config.Source{{Kind: "claude-code", Home: missing}}
	p.LogSources()
	if got := buf.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "level=WARN") ||
		!strings.Contains(got, "claude-code source: home "+missing+" not found; fix sources[].home in config.json") {
		t.Errorf("logged %q", got)
	}
	buf.Reset()
	p.Config.Mode = "record"
	p.LogSources()
	if buf.Len() != 0 {
		t.Errorf("a record store logged sources: %q", buf.String())
	}
}

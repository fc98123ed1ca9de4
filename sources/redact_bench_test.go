package sources

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/recollect/recollect/store/config"
)

// BenchmarkRedactFixture redacts the content of every event a real Claude
// Code transcript maps to, and reports the time against mapping the same
// lines, measured in the same process (redact/map).
func BenchmarkRedactFixture(b *testing.B) {
	path := filepath.Join(fixtureRoot, "claude-code/spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	r, err := NewRedactor(config.Redaction{Enabled: true})
	if err != nil {
		b.Fatal(err)
	}
	var mapDur, redactDur time.Duration
	for range b.N {
		for _, ln := range lines {
			t0 := time.Now()
			m, err := Map(ClaudeCode, path, ln)
			t1 := time.Now()
			mapDur += t1.Sub(t0)
			if err != nil {
				continue
			}
			for _, ev := range m.Events {
				r.Redact(ev.Content, nil)
			}
			redactDur += time.Since(t1)
		}
	}
	b.ReportMetric(float64(redactDur)/float64(mapDur), "redact/map")
	b.ReportMetric(float64(len(data)*b.N)/redactDur.Seconds()/1e6, "redact-MB/s")
}

package scheduler_test

import (
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/scheduler"
)

// TestServiceFiles pins the unit and the plist (testdata/service.golden,
// rewritten with -update) and checks the plist is well-formed XML.
func TestServiceFiles(t *testing.T) {
	cases := []struct{ bin, data string }{
		{"/usr/local/bin/recollect", "/home/a/.recollect"},
		{"/opt/my tools/recollect", "/home/a/data & 100%"},
	}
	var got strings.Builder
	for _, c := range cases {
		got.WriteString(scheduler.SystemdUnit(c.bin, c.data))
		got.WriteString("----\n")
		plist := scheduler.LaunchdPlist(c.bin, c.data)
		got.WriteString(plist)
		got.WriteString("====\n")
		dec := xml.NewDecoder(strings.NewReader(plist))
		dec.Strict = true
		for {
			_, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("plist for %q is not well-formed: %v", c.data, err)
			}
		}
	}
	golden := filepath.Join("testdata", "service.golden")
	if *update {
		os.WriteFile(golden, []byte(got.String()), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("got:\n%s\nwant:\n%s", got.String(), want)
	}
}

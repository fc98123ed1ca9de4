package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzParse: any config.json either loads into a valid config that
// survives a write and a reload unchanged, or fails with a *Error that
// names a field path and says what is wrong; never a panic.
func FuzzParse(f *testing.F) {
	def, _ := json.MarshalIndent(Default(), "", "  ")
	f.Add(def)
	for _, s := range []string{``, `{}`, `{"mode":"copy","sources":[{"kind":"claude-code"}]}`, `{"mode":"bogus"}`,
		`{"sources":[{"kind":"cursor","cwd":"relative"}]}`, `{"intelligence":{"provider":"http","stages":{"extract":{"provider":"ollama","on_fail":"none"}}}}`,
		`{"intelligence":{"token_budget":{"http":{"day":"2M"}}}}`, `{"retention":{"disk_budget":"2GB"}}`, `{"scheduler":{"threshold_interval":"x"}}`,
		`{"embedding":{"provider":"ollama"}}`, `{"modee":"record"}`, `{"mode":5}`, `[]`, `{"a":`, `null`, `"str"`, `{"extraction":{"batch_size":-1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(bytes.NewReader(data))
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || ce.Path == "" || ce.Msg == "" {
				t.Fatalf("Parse(%q) = %v; want a *config.Error with a path and a message", data, err)
			}
			if !strings.HasPrefix(err.Error(), "config.json: ") {
				t.Fatalf("error %q does not name config.json", err)
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("Parse accepted %q but Validate says %v", data, err)
		}
		dir := t.TempDir()
		if err := Write(dir, cfg); err != nil {
			t.Fatal(err)
		}
		again, err := Load(dir)
		if err != nil {
			written, _ := os.ReadFile(filepath.Join(dir, FileName))
			t.Fatalf("written config does not load: %v\n%s", err, written)
		}
		if !reflect.DeepEqual(normal(cfg), normal(again)) {
			t.Fatalf("round trip changed the config:\n%+v\n%+v", cfg, again)
		}
	})
}

// normal compares configs by their JSON, where nil and empty lists agree.
func normal(c Config) string {
	b, _ := json.Marshal(c)
	return string(b)
}

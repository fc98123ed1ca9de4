package config

import (
	"errors"
	"strings"
	"testing"
)

// Values that overflow, and a redaction pattern that matches the empty
// string, are refused at load with the field path (they became a negative
// disk budget, an instant timeout and a 10 MB line grown to 136 MB).
func TestParseRefusesOverflowsAndEmptyMatches(t *testing.T) {
	cases := []struct {
		name, json, path, says string
	}{
		{"disk budget overflows", `{"retention": {"disk_budget": "99999999999T"}}`, "retention.disk_budget", "too large"},
		{"token budget overflows", `{"intelligence": {"token_budget": {"http": {"day": "99999999999G"}}}}`, "intelligence.token_budget.http.day", "too large"},
		{"http timeout 2^62", `{"intelligence": {"http": {"timeout_ms": 4611686018427387904}}}`, "intelligence.http.timeout_ms", "at most 86400000"},
		{"ollama timeout", `{"intelligence": {"ollama": {"timeout_ms": 9000000000000}}}`, "intelligence.ollama.timeout_ms", "at most"},
		{"empty pattern match", `{"redaction": {"patterns": [{"kind": "x", "regex": "a*"}]}}`, "redaction.patterns[0].regex", "matches the empty string"},
		{"word boundary", `{"redaction": {"patterns": [{"kind": "ok", "regex": "sk-[a-z]+"}, {"kind": "x", "regex": "\\b"}]}}`, "redaction.patterns[1].regex", "matches the empty string"},
		{"optional group", `{"redaction": {"patterns": [{"kind": "x", "regex": "(token=\\w+)?"}]}}`, "redaction.patterns[0].regex", "matches the empty string"},
		{"alternation with empty", `{"redaction": {"patterns": [{"kind": "x", "regex": "abc|"}]}}`, "redaction.patterns[0].regex", "matches the empty string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(c.json))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Parse(%s) = %v, want a *config.Error", c.json, err)
			}
			if ce.Path != c.path || !strings.Contains(ce.Error(), c.says) {
				t.Fatalf("error %q: want path %q and text %q", ce.Error(), c.path, c.says)
			}
		})
	}
	for _, ok := range []string{
		`{"retention": {"disk_budget": "8T"}}`,
		`{"intelligence": {"http": {"timeout_ms": 600000}}}`,
		`{"redaction": {"patterns": [{"kind": "x", "regex": "sk-[a-z0-9]{20,}"}, {"kind": "y", "regex": "\\btoken=\\w+"}]}}`,
	} {
		if _, err := Parse(strings.NewReader(ok)); err != nil {
			t.Errorf("Parse(%s) = %v; want it accepted", ok, err)
		}
	}
}

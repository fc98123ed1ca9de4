package model

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

var factSchemaForTest = json.RawMessage(`{"type":"object","required":["facts"],"properties":{"facts":{"type":"array","items":{"type":"object","required":["content","event_ids"],"properties":{"content":{"type":"string"},"confidence":{"type":"number"},"event_ids":{"type":"array","items":{"type":"integer"}},"kind":{"type":"string","enum":["a","b"]},"until":{"type":["string","null"]}}}}}}`)

func TestValidateAnswer(t *testing.T) {
	cases := []struct {
		name, text string
		wantErr    string // "" means valid
	}{
		{"valid", `{"facts":[{"content":"x","event_ids":[1,2],"confidence":0.5}]}`, ""},
		{"no facts is valid", `{"facts":[]}`, ""},
		{"nullable union", `{"facts":[{"content":"x","event_ids":[1],"until":null}]}`, ""},
		{"empty", "  ", "the answer is empty"},
		{"prose", "Here you go", "not JSON"},
		{"array", `[{"content":"x"}]`, "is a JSON array, not an object"},
		{"trailing text", `{"facts":[]} thanks`, "text after the JSON value"},
		{"missing key", `{"fact":[]}`, `$ lacks the required key "facts"`},
		{"wrong type", `{"facts":{}}`, "$.facts is a object, want array"},
		{"nested missing", `{"facts":[{"content":"x"}]}`, `$.facts[0] lacks the required key "event_ids"`},
		{"float id", `{"facts":[{"content":"x","event_ids":[1.5]}]}`, "$.facts[0].event_ids[0] is a number, want integer"},
		{"string number", `{"facts":[{"content":"x","event_ids":[1],"confidence":"high"}]}`, "$.facts[0].confidence is a string, want number"},
		{"enum", `{"facts":[{"content":"x","event_ids":[1],"kind":"c"}]}`, "$.facts[0].kind is \"c\", not one of the allowed values"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateAnswer(factSchemaForTest, tc.text)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("err = %v, want valid", err)
				}
				return
			}
			if !errors.Is(err, ErrJunk) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want junk saying %q", err, tc.wantErr)
			}
		})
	}
}

func TestAnswerJSONStripsFences(t *testing.T) {
	for in, want := range map[string]string{
		"```json\n{\"a\":1}\n```": `{"a":1}`,
		"```\n{\"a\":1}```":       `{"a":1}`,
		" {\"a\":1}\n":            `{"a":1}`,
		"```{\"a\":1}```":         `{"a":1}`,
	} {
		if got := answerJSON(in); got != want {
			t.Errorf("answerJSON(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzValidateAnswer checks that no input panics and that anything accepted
// is a JSON object.
func FuzzValidateAnswer(f *testing.F) {
	for _, s := range []string{`{"facts":[]}`, `{"facts":[{"content":"x","event_ids":[1]}]}`, `[]`, `{`, `null`, `{"facts":[{"event_ids":[1e400]}]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if err := ValidateAnswer(factSchemaForTest, text); err == nil {
			var m map[string]any
			if json.Unmarshal([]byte(strings.TrimSpace(text)), &m) != nil || m == nil {
				t.Fatalf("accepted %q, which is not a JSON object", text)
			}
		}
	})
}

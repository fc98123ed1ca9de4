package jsonedit_test

import (
	"encoding/json"
	"testing"

	"github.com/recollect/recollect/store/jsonedit"
)

func TestSet(t *testing.T) {
	doc := "{\n    \"b\": {\"x\": \"a >> b & <c>\", \"y\": 1},\n    \"a\": {\n        \"k\": \"olá\"\n    }\n}\n"
	cases := []struct {
		name string
		path []string
		v    any
		want string
	}{
		{"replace nested", []string{"a", "k"}, "new", "{\n    \"b\": {\"x\": \"a >> b & <c>\", \"y\": 1},\n    \"a\": {\n        \"k\": \"new\"\n    }\n}\n"},
		{"replace in one-line object", []string{"b", "y"}, 2, "{\n    \"b\": {\"x\": \"a >> b & <c>\", \"y\": 2},\n    \"a\": {\n        \"k\": \"olá\"\n    }\n}\n"},
		{"insert in one-line object", []string{"b", "z"}, true, "{\n    \"b\": {\"x\": \"a >> b & <c>\", \"y\": 1, \"z\": true},\n    \"a\": {\n        \"k\": \"olá\"\n    }\n}\n"},
		{"insert with the objects on the way", []string{"c", "d"}, json.RawMessage(`"<e>"`), "{\n    \"b\": {\"x\": \"a >> b & <c>\", \"y\": 1},\n    \"a\": {\n        \"k\": \"olá\"\n    },\n    \"c\": {\n        \"d\": \"<e>\"\n    }\n}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := jsonedit.Set([]byte(doc), c.path, c.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
	if _, err := jsonedit.Set([]byte(`{"a": [1]}`), []string{"a", "b"}, 1); err == nil || err.Error() != "a is not a JSON object" {
		t.Errorf("setting inside a list: %v", err)
	}
}

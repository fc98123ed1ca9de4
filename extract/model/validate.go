package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrJunk means a model's answer is not a JSON object of the requested
// schema. The router retries it once and then falls back or holds.
var ErrJunk = errors.New("answer is not a JSON object of the requested schema")

// ValidateAnswer checks that text is one JSON object that satisfies schema,
// a JSON Schema restricted to the keywords recollect's stages use: type,
// properties, required, items and enum. Keywords outside that set are
// ignored, so a schema may carry descriptions for the model. The error wraps
// ErrJunk and names the first offending path.
//
// It is a pure function of its inputs, so it can be fuzzed.
func ValidateAnswer(schema json.RawMessage, text string) error {
	var root map[string]any
	if len(bytes.TrimSpace(schema)) > 0 {
		if err := json.Unmarshal(schema, &root); err != nil {
			return fmt.Errorf("read answer schema: %w", err)
		}
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return fmt.Errorf("%w: the answer is empty", ErrJunk)
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("%w: not JSON (%s)", ErrJunk, err)
	}
	if strings.TrimSpace(text[dec.InputOffset():]) != "" {
		return fmt.Errorf("%w: text after the JSON value", ErrJunk)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("%w: the answer is a JSON %s, not an object", ErrJunk, jsonKind(v))
	}
	if err := checkValue(root, v, "$"); err != nil {
		return fmt.Errorf("%w: %s", ErrJunk, err)
	}
	return nil
}

// checkValue validates v against one schema node.
func checkValue(node map[string]any, v any, path string) error {
	if node == nil {
		return nil
	}
	if t, ok := node["type"]; ok && !typeMatches(t, v) {
		return fmt.Errorf("%s is a %s, want %v", path, jsonKind(v), t)
	}
	if enum, ok := node["enum"].([]any); ok && !inEnum(enum, v) {
		return fmt.Errorf("%s is %s, not one of the allowed values", path, short(v))
	}
	switch x := v.(type) {
	case map[string]any:
		if req, ok := node["required"].([]any); ok {
			for _, k := range req {
				name, _ := k.(string)
				if _, present := x[name]; !present {
					return fmt.Errorf("%s lacks the required key %q", path, name)
				}
			}
		}
		props, _ := node["properties"].(map[string]any)
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			val, present := x[k]
			if !present {
				continue
			}
			sub, _ := props[k].(map[string]any)
			if err := checkValue(sub, val, path+"."+k); err != nil {
				return err
			}
		}
	case []any:
		items, _ := node["items"].(map[string]any)
		for i, e := range x {
			if err := checkValue(items, e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// typeMatches reports whether v is of the schema type t: a name or a list
// of names.
func typeMatches(t any, v any) bool {
	switch tt := t.(type) {
	case string:
		return kindIs(tt, v)
	case []any:
		for _, e := range tt {
			if s, ok := e.(string); ok && kindIs(s, v) {
				return true
			}
		}
		return false
	}
	return true
}

func kindIs(name string, v any) bool {
	switch name {
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		_, err := n.Int64()
		return err == nil
	case "number":
		_, ok := v.(json.Number)
		return ok
	}
	return jsonKind(v) == name
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func inEnum(enum []any, v any) bool {
	for _, e := range enum {
		if fmt.Sprint(e) == fmt.Sprint(v) && jsonKind(e) == jsonKind(normalize(v)) {
			return true
		}
	}
	return false
}

func normalize(v any) any {
	if n, ok := v.(json.Number); ok {
		f, _ := n.Float64()
		return f
	}
	return v
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// answerJSON strips what models commonly wrap around a JSON answer: leading
// and trailing space and a Markdown code fence.
func answerJSON(text string) string {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "```") {
		t = strings.TrimPrefix(t, "```")
		if nl := strings.IndexByte(t, '\n'); nl >= 0 && !strings.HasPrefix(strings.TrimSpace(t[:nl]), "{") {
			t = t[nl+1:]
		}
		t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), "```"))
	}
	return t
}

package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect/recollect/store"
)

// numberSchema is the input schema of T with the named optional fields
// typed as plain numbers. A *float64 field would be ["null","number"],
// a union some clients (MCP Inspector) answer with strings.
func numberSchema[T any](fields ...string) *jsonschema.Schema {
	sch, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("schema: %v", err)) // a programming error New's test catches
	}
	for _, f := range fields {
		if p := sch.Properties[f]; p != nil {
			p.Types, p.Type = nil, "number"
		}
	}
	return sch
}

// enumSchema is the input schema of T with the named string fields limited
// to their values, so a client offers them as a choice.
func enumSchema[T any](enums map[string][]any) *jsonschema.Schema {
	sch, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("schema: %v", err)) // a programming error New's test catches
	}
	for f, values := range enums {
		p := sch.Properties[f]
		if p == nil {
			panic(fmt.Sprintf("schema: no field %s", f))
		}
		p.Enum = values
	}
	return sch
}

// outputSchema is the schema of a tool's structured answer of type T. A
// json.RawMessage inside (a run's stored summary) may hold any JSON value.
func outputSchema[T any]() *jsonschema.Schema {
	sch, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {Types: []string{"null", "boolean", "number", "string", "array", "object"}},
	}})
	if err != nil {
		panic(fmt.Sprintf("output schema: %v", err)) // a programming error New's test catches
	}
	return sch
}

// typeError matches the SDK's message for an argument of the wrong JSON
// type: validating "arguments": validating root: validating
// /properties/confidence: type: 0.9 has type "string", want one of "null, number".
var typeError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`validating /properties/([^:]+): type: (.*) has type "([a-z]+)", want (?:one of )?"([^"]+)"`)
})

// readableArguments rewrites the SDK's schema-validation message for a
// wrong argument type into one line that names the field and what it
// wants: `confidence: wrong type: got a string ("0.9"), want a number`.
func readableArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "tools/call" {
			return res, err
		}
		// A failed call returns a typed nil result beside its error.
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError && len(r.Content) > 0 {
			if tc, ok := r.Content[0].(*mcp.TextContent); ok {
				tc.Text = rewriteTypeError(tc.Text)
			}
		}
		if err != nil {
			if msg := rewriteTypeError(err.Error()); msg != err.Error() {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
			}
		}
		return res, err
	}
}

// enumError matches the SDK's message for a value outside a field's enum:
// validating /properties/order: enum: newest does not equal any of: [chronological relevance].
var enumError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`validating /properties/([^:]+): enum: (.*) does not equal any of: \[(.*)\]$`)
})

func rewriteTypeError(msg string) string {
	if m := enumError().FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s: %q is unknown; give one of %s", m[1], m[2], strings.Join(strings.Fields(m[3]), ", "))
	}
	m := typeError().FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	var want []string
	for _, w := range strings.Split(m[4], ", ") {
		if w != "null" {
			want = append(want, article(w))
		}
	}
	got := m[2]
	if m[3] == "string" {
		got = strconv.Quote(got)
	}
	return fmt.Sprintf("%s: wrong type: got %s (%s), want %s", strings.ReplaceAll(m[1], "/properties/", "."), article(m[3]), got, strings.Join(want, " or "))
}

func article(jsonType string) string {
	switch jsonType {
	case "integer", "object", "array":
		return "an " + jsonType
	}
	return "a " + jsonType
}

// parseAsOf reads as_of as the CLI's --as-of is read (store.ParseAsOf).
func parseAsOf(s string) (time.Time, error) {
	t, err := store.ParseAsOf(s)
	if err != nil {
		return time.Time{}, fieldError("as_of", "%q is not a time; give RFC 3339 (2026-03-03T12:00:00Z) or a date (2026-03-03)", s)
	}
	return t, nil
}

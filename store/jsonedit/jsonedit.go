// Package jsonedit changes one value of a JSON document in place: it
// splices the new bytes into the original, so every other key, entry,
// escape and line keeps its bytes and order, and a new entry follows the
// surrounding layout. Settings files people edit by hand (Claude Code's
// settings.json, recollect's config.json) are changed through it.
//
// It imports only the standard library, so the hook package may use it.
package jsonedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Container is one JSON object or array inside a document, by offsets.
type Container struct {
	Open, Close int       // offsets of the brackets
	Elems       []Element // members or elements, in order
}

// Element is one member (with its key) or array element.
type Element struct {
	Key        string
	Start, End int // the value's bytes
}

// Find returns the member key of an object.
func (c Container) Find(key string) (Element, bool) {
	for _, e := range c.Elems {
		if e.Key == key {
			return e, true
		}
	}
	return Element{}, false
}

// Scan reads the object ('{') or array ('[') that starts at
// offset at of data, keeping every value's offsets.
func Scan(data []byte, at int, kind json.Delim, what string) (Container, error) {
	c := Container{Open: at}
	if at < 0 || at >= len(data) {
		return c, fmt.Errorf("%s is not valid JSON: unexpected EOF", what)
	}
	dec := json.NewDecoder(bytes.NewReader(data[at:]))
	tok, err := dec.Token()
	if err != nil {
		return c, fmt.Errorf("%s is not valid JSON: %w", what, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != kind {
		if kind == '[' {
			return c, fmt.Errorf("%s is not a JSON list", what)
		}
		return c, fmt.Errorf("%s is not a JSON object", what)
	}
	for dec.More() {
		var key string
		if kind == '{' {
			tok, err := dec.Token()
			if err != nil {
				return c, fmt.Errorf("%s is not valid JSON: %w", what, err)
			}
			key = tok.(string)
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			if kind == '{' {
				return c, fmt.Errorf("%s.%s is not valid JSON: %w", what, key, err)
			}
			return c, fmt.Errorf("%s is not valid JSON: %w", what, err)
		}
		end := at + int(dec.InputOffset())
		c.Elems = append(c.Elems, Element{Key: key, Start: end - len(val), End: end})
	}
	if _, err := dec.Token(); err != nil {
		return c, fmt.Errorf("%s is not valid JSON: %w", what, err)
	}
	c.Close = at + int(dec.InputOffset()) - 1
	return c, nil
}

// FirstNonSpace is the offset of data's first value.
func FirstNonSpace(data []byte) int {
	return len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
}

// TrailingData reports anything but white space after offset close.
func TrailingData(data []byte, close int, what string) error {
	if len(bytes.TrimSpace(data[close+1:])) != 0 {
		return fmt.Errorf("%s has data after its closing brace", what)
	}
	return nil
}

// Insert adds key: v (an array element when key is "") as c's last
// entry, after the current last one, in c's layout.
func Insert(data []byte, c Container, key string, v any) []byte {
	oneLine := !bytes.ContainsRune(data[c.Open:c.Close], '\n') && len(c.Elems) > 0
	unit := indentUnit(data, c)
	entry := func(indent string) string {
		val := encodeJSON(v, indent, unit, !oneLine)
		if key == "" {
			return val
		}
		return encodeJSON(key, "", "", false) + ": " + val
	}
	if len(c.Elems) > 0 {
		last := c.Elems[len(c.Elems)-1]
		if oneLine {
			return splice(data, last.End, last.End, ", "+entry(""))
		}
		indent := lineIndent(data, last.Start)
		return splice(data, last.End, last.End, ",\n"+indent+entry(indent))
	}
	open, close := string(data[c.Open]), string(data[c.Close])
	outer := lineIndent(data, c.Open)
	indent := outer + unit
	return splice(data, c.Open, c.Close+1, open+"\n"+indent+entry(indent)+"\n"+outer+close)
}

// Replace puts v in place of e, an entry of c, in c's layout.
func Replace(data []byte, c Container, e Element, v any) []byte {
	multi := bytes.ContainsRune(data[c.Open:c.Close], '\n')
	return splice(data, e.Start, e.End, encodeJSON(v, lineIndent(data, e.Start), indentUnit(data, c), multi))
}

// indentUnit is the file's indentation step as c shows it (its entries'
// indent past its own line's), two spaces when it shows none.
func indentUnit(data []byte, c Container) string {
	if len(c.Elems) > 0 {
		outer, inner := lineIndent(data, c.Open), lineIndent(data, c.Elems[0].Start)
		if len(inner) > len(outer) && strings.HasPrefix(inner, outer) {
			return inner[len(outer):]
		}
	}
	return "  "
}

// encodeJSON writes v without HTML escaping (a settings file is no web
// page: ">>" stays ">>"), indented by unit past indent when multi.
func encodeJSON(v any, indent, unit string, multi bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if multi {
		enc.SetIndent(indent, unit)
	}
	_ = enc.Encode(v) // only recollect's own strings and structs
	out := strings.TrimSuffix(b.String(), "\n")
	if !multi {
		out = spaced(out)
	}
	return out
}

// spaced puts a space after each colon and comma of compact JSON, outside
// strings, as people write one-line JSON.
func spaced(compact string) string {
	var b strings.Builder
	inString, escaped := false, false
	for i := 0; i < len(compact); i++ {
		ch := compact[i]
		b.WriteByte(ch)
		switch {
		case escaped:
			escaped = false
		case inString && ch == '\\':
			escaped = true
		case ch == '"':
			inString = !inString
		case !inString && (ch == ':' || ch == ','):
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// lineIndent is the run of spaces and tabs that starts pos's line.
func lineIndent(data []byte, pos int) string {
	start := bytes.LastIndexByte(data[:pos], '\n') + 1
	end := start
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}

func splice(data []byte, from, to int, text string) []byte {
	out := make([]byte, 0, len(data)+len(text))
	out = append(out, data[:from]...)
	out = append(out, text...)
	return append(out, data[to:]...)
}

// Set puts v at path (member names from the top object down) in doc,
// creating the objects on the way that are missing. Every byte outside
// the changed value stays as it was.
func Set(doc []byte, path []string, v any) ([]byte, error) {
	at := FirstNonSpace(doc)
	for i, key := range path {
		what := "the document"
		if i > 0 {
			what = strings.Join(path[:i], ".")
		}
		c, err := Scan(doc, at, '{', what)
		if err != nil {
			return nil, err
		}
		e, ok := c.Find(key)
		if !ok {
			val := v
			for j := len(path) - 1; j > i; j-- {
				val = map[string]any{path[j]: val}
			}
			return Insert(doc, c, key, val), nil
		}
		if i == len(path)-1 {
			return Replace(doc, c, e, v), nil
		}
		at = e.Start
	}
	return nil, fmt.Errorf("set: empty path")
}

package notice

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is how deeply arrays and objects may nest, as in encoding/json.
const maxDepth = 10000

// Kind is the JSON type of a decoded member.
type Kind uint8

// The kinds of JSON value; KindAbsent is a member the object did not have.
const (
	KindAbsent Kind = iota
	KindString
	KindNumber
	KindBool
	KindNull
	KindObject
	KindArray
)

// String names k as an error message says it.
func (k Kind) String() string {
	switch k {
	case KindString:
		return "string"
	case KindNumber:
		return "number"
	case KindBool:
		return "bool"
	case KindNull:
		return "null"
	case KindObject:
		return "object"
	case KindArray:
		return "array"
	}
	return "nothing"
}

// Member is one top-level member of a decoded object: its kind, and its
// value when it is a string or a bool.
type Member struct {
	Kind Kind
	Str  string
	Bool bool
}

// SyntaxError is malformed JSON, with the byte offset where it was found.
type SyntaxError struct {
	Offset int
	msg    string
}

func (e *SyntaxError) Error() string {
	return e.msg + " at byte " + strconv.Itoa(e.Offset)
}

// DecodeObject decodes data, which must hold exactly one JSON object with
// optional white space around it, and returns the named top-level members
// in the order of names. It accepts what encoding/json accepts and decodes
// strings as it does (invalid UTF-8 and unpaired surrogates become U+FFFD);
// keys match exactly, and a repeated key's last value wins.
func DecodeObject(data []byte, names ...string) ([]Member, error) {
	d := decoder{data: data, names: names, out: make([]Member, len(names))}
	d.skipSpace()
	if d.pos >= len(d.data) || d.data[d.pos] != '{' {
		if d.pos >= len(d.data) {
			return nil, d.fail("unexpected end of input, want an object")
		}
		return nil, d.fail("not an object")
	}
	if err := d.object(1, true); err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return nil, d.fail("data after the object")
	}
	return d.out, nil
}

// decoder is a validating recursive-descent JSON reader that keeps only
// the wanted top-level members.
type decoder struct {
	data  []byte
	pos   int
	names []string
	out   []Member
}

func (d *decoder) fail(msg string) error { return &SyntaxError{Offset: d.pos, msg: msg} }

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// value reads one value; decode is true for a wanted member of the
// outermost object, the only strings worth decoding.
func (d *decoder) value(depth int, decode bool) (Member, error) {
	d.skipSpace()
	if d.pos >= len(d.data) {
		return Member{}, d.fail("unexpected end of input")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return Member{Kind: KindObject}, d.object(depth+1, false)
	case c == '[':
		return Member{Kind: KindArray}, d.array(depth + 1)
	case c == '"':
		s, err := d.str(decode)
		return Member{Kind: KindString, Str: s}, err
	case c == 't':
		return Member{Kind: KindBool, Bool: true}, d.literal("true")
	case c == 'f':
		return Member{Kind: KindBool}, d.literal("false")
	case c == 'n':
		return Member{Kind: KindNull}, d.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return Member{Kind: KindNumber}, d.number()
	default:
		return Member{}, d.fail("invalid character " + strconv.QuoteRune(rune(c)) + " looking for a value")
	}
}

func (d *decoder) literal(word string) error {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return d.fail("invalid literal, want " + word)
	}
	d.pos += len(word)
	return nil
}

// object reads an object starting at '{'; the outermost one (top) keeps
// the wanted members.
func (d *decoder) object(depth int, top bool) error {
	if depth > maxDepth {
		return d.fail("nested too deeply")
	}
	d.pos++ // '{'
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return nil
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return d.fail("want a string key")
		}
		key, err := d.str(top)
		if err != nil {
			return err
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return d.fail("want ':' after an object key")
		}
		d.pos++
		want := -1
		if top {
			for i, n := range d.names {
				if n == key {
					want = i
				}
			}
		}
		m, err := d.value(depth, want >= 0)
		if err != nil {
			return err
		}
		if want >= 0 {
			d.out[want] = m
		}
		d.skipSpace()
		if d.pos >= len(d.data) {
			return d.fail("unexpected end of input in an object")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return d.fail("want ',' or '}' in an object")
		}
	}
}

func (d *decoder) array(depth int) error {
	if depth > maxDepth {
		return d.fail("nested too deeply")
	}
	d.pos++ // '['
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return nil
	}
	for {
		if _, err := d.value(depth, false); err != nil {
			return err
		}
		d.skipSpace()
		if d.pos >= len(d.data) {
			return d.fail("unexpected end of input in an array")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return nil
		default:
			return d.fail("want ',' or ']' in an array")
		}
	}
}

func (d *decoder) digits() int {
	n := 0
	for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
		d.pos++
		n++
	}
	return n
}

// number checks the JSON number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *decoder) number() error {
	if d.data[d.pos] == '-' {
		d.pos++
	}
	switch {
	case d.pos < len(d.data) && d.data[d.pos] == '0':
		d.pos++
	case d.digits() == 0:
		return d.fail("want a digit in a number")
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if d.digits() == 0 {
			return d.fail("want a digit after the decimal point")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if d.digits() == 0 {
			return d.fail("want a digit in the exponent")
		}
	}
	return nil
}

// str reads a string starting at '"'. When decode is false it only
// validates and returns "".
func (d *decoder) str(decode bool) (string, error) {
	d.pos++ // opening quote
	var b []byte
	for {
		if d.pos >= len(d.data) {
			return "", d.fail("unexpected end of input in a string")
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(b), nil
		case c < 0x20:
			return "", d.fail("control character in a string")
		case c == '\\':
			r, err := d.escape()
			if err != nil {
				return "", err
			}
			if decode {
				b = utf8.AppendRune(b, r)
			}
		case c < utf8.RuneSelf:
			if decode {
				b = append(b, c)
			}
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			d.pos += size
			if decode {
				b = utf8.AppendRune(b, r) // RuneError for invalid UTF-8
			}
		}
	}
}

// escape reads one escape sequence starting at '\'. A \u escape that is
// half of a surrogate pair takes the other half when it follows; an
// unpaired half decodes to U+FFFD.
func (d *decoder) escape() (rune, error) {
	if d.pos+1 >= len(d.data) {
		d.pos++
		return 0, d.fail("unexpected end of input in an escape")
	}
	c := d.data[d.pos+1]
	d.pos += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, ok := hex4(d.data[d.pos:])
		if !ok {
			return 0, d.fail("want four hex digits after \\u")
		}
		d.pos += 4
		if !utf16.IsSurrogate(r) {
			return r, nil
		}
		if len(d.data)-d.pos >= 6 && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
			if r2, ok := hex4(d.data[d.pos+2:]); ok {
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					d.pos += 6
					return dec, nil
				}
			}
		}
		return utf8.RuneError, nil
	default:
		d.pos -= 2
		return 0, d.fail("invalid escape " + strconv.QuoteRune(rune(c)))
	}
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// AppendString appends s to b as a JSON string that encoding/json decodes
// back to s; invalid UTF-8 is written as U+FFFD, as encoding/json does.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

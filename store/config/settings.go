package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/recollect/recollect/store/jsonedit"
	"github.com/recollect/recollect/store/regfile"
)

// ErrNoConfig means a data directory has no config.json to change.
var ErrNoConfig = errors.New("no config.json")

// Setting is one knob of config.json by its dotted key, with its value in
// effect (the file's, or the default when the file leaves it out).
type Setting struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
}

// Settings lists every knob of cfg in the file's order: objects are
// walked down to their leaves (maps included, by sorted key); lists are
// one setting each.
func Settings(cfg Config) []Setting {
	var out []Setting
	walkSettings(reflect.ValueOf(cfg), "", &out)
	return out
}

func walkSettings(v reflect.Value, path string, out *[]Setting) {
	if textual(v.Type()) {
		*out = append(*out, Setting{Key: path, Value: plain(v)})
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			walkSettings(v.Field(i), join(path, name), out)
		}
	case reflect.Map:
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		if v.Type().Elem() == reflect.TypeOf(StageRoute{}) {
			// Every stage can be routed: show the ones not routed too.
			for _, st := range Stages {
				if !v.MapIndex(reflect.ValueOf(st)).IsValid() {
					keys = append(keys, st)
				}
			}
		}
		sort.Strings(keys)
		if len(keys) == 0 {
			*out = append(*out, Setting{Key: path, Value: map[string]any{}})
		}
		for _, k := range keys {
			e := v.MapIndex(reflect.ValueOf(k))
			if !e.IsValid() {
				e = reflect.Zero(v.Type().Elem())
			}
			walkSettings(e, join(path, k), out)
		}
	default:
		*out = append(*out, Setting{Key: path, Value: plain(v)})
	}
}

// Get returns the value in effect at key (a leaf or a whole section, e.g.
// "intelligence.http"). An unknown key is an *Error with the nearest name.
func Get(cfg Config, key string) (any, error) {
	v := reflect.ValueOf(cfg)
	parts := strings.Split(key, ".")
	for i, part := range parts {
		here := strings.Join(parts[:i+1], ".")
		switch kind := v.Kind(); {
		case textual(v.Type()):
			return nil, &Error{Path: here, Msg: fmt.Sprintf("%s is %s, not a section", strings.Join(parts[:i], "."), describe(v.Type()))}
		case kind == reflect.Struct:
			f, ok := fieldByTag(v.Type(), part)
			if !ok {
				return nil, unknownKey(here, part, tagNames(v.Type()))
			}
			v = v.FieldByIndex(f.Index)
		case kind == reflect.Map:
			e := v.MapIndex(reflect.ValueOf(part))
			if !e.IsValid() {
				var known []string
				for _, k := range v.MapKeys() {
					known = append(known, k.String())
				}
				return nil, unknownKey(here, part, known)
			}
			v = e
		default:
			return nil, &Error{Path: here, Msg: fmt.Sprintf("%s is %s, not a section", strings.Join(parts[:i], "."), describe(v.Type()))}
		}
	}
	if textual(v.Type()) {
		return plain(v), nil
	}
	return v.Interface(), nil
}

// Set changes key to value in dir/config.json and returns the config in
// effect afterwards. value is read as the key wants it: text for a string
// knob, else JSON (a number, true/false, a list, an object); what does not
// fit is refused with the message loading the file would give (wrong type,
// unknown value, …), and nothing is written. Only the key's bytes change:
// every other key, value and line of the file stays as it was.
func Set(dir, key, value string) (Config, error) {
	path := filepath.Join(dir, FileName)
	old, err := regfile.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Config{}, fmt.Errorf("%w in %s; create one with: recollect init %s", ErrNoConfig, dir, dir)
	}
	if err != nil {
		return Config{}, fmt.Errorf("read %s: %w", path, err)
	}
	if _, err := Parse(bytes.NewReader(old)); err != nil {
		return Config{}, err // fix what is there first
	}
	parts := strings.Split(key, ".")
	t, err := keyType(parts)
	if err != nil {
		return Config{}, err
	}
	raw := settingJSON(t, value)
	doc := old
	if len(bytes.TrimSpace(doc)) == 0 {
		doc = []byte("{}\n")
	}
	doc, err = jsonedit.Set(doc, parts, raw)
	if err != nil {
		return Config{}, fmt.Errorf("edit %s: %w", path, err)
	}
	cfg, err := Parse(bytes.NewReader(doc))
	if err != nil {
		return Config{}, err
	}
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, doc, mode); err != nil {
		return Config{}, fmt.Errorf("write config: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return Config{}, fmt.Errorf("write config: %w", err)
	}
	return cfg, nil
}

// keyType is the Go type config.json has at parts, or an *Error naming
// the first part it does not know.
func keyType(parts []string) (reflect.Type, error) {
	t := reflect.TypeOf(Config{})
	for i, part := range parts {
		here := strings.Join(parts[:i+1], ".")
		switch kind := t.Kind(); {
		case textual(t):
			return nil, &Error{Path: here, Msg: fmt.Sprintf("%s is %s, not a section", strings.Join(parts[:i], "."), describe(t))}
		case kind == reflect.Struct:
			f, ok := fieldByTag(t, part)
			if !ok {
				return nil, unknownKey(here, part, tagNames(t))
			}
			t = f.Type
		case kind == reflect.Map:
			if part == "" {
				return nil, &Error{Path: here, Msg: "empty name"}
			}
			t = t.Elem()
		case kind == reflect.Slice:
			return nil, &Error{Path: here, Msg: fmt.Sprintf("%s is a list; set it whole as JSON, e.g. recollect settings set %s '[…]'", strings.Join(parts[:i], "."), strings.Join(parts[:i], "."))}
		default:
			return nil, &Error{Path: here, Msg: fmt.Sprintf("%s is %s, not a section", strings.Join(parts[:i], "."), describe(t))}
		}
	}
	return t, nil
}

// settingJSON turns a command-line value into the JSON the key wants: a
// string knob takes the text as it is (or a quoted JSON string), any other
// takes JSON; text that is not JSON goes in as a string, so the type error
// is the one loading the file gives.
func settingJSON(t reflect.Type, value string) json.RawMessage {
	valid := json.Valid([]byte(value))
	if valid && (!textual(t) || strings.HasPrefix(strings.TrimSpace(value), `"`)) {
		return json.RawMessage(value)
	}
	b, _ := json.Marshal(value)
	return b
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag == name {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

func tagNames(t reflect.Type) []string {
	names := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}

func unknownKey(path, name string, known []string) error {
	msg := "unknown key"
	if near := nearest(name, append([]string(nil), known...)); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	} else if len(known) > 0 {
		sort.Strings(known)
		msg += "; known keys here: " + strings.Join(known, ", ")
	}
	return &Error{Path: path, Msg: msg}
}

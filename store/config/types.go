package config

import (
	"encoding"
	"reflect"
	"time"
)

// Mode is how a store's events arrive (config.json's mode).
type Mode string

// The modes of a store.
const (
	// ModeRecord stores take events from record and the log_event tool.
	ModeRecord Mode = "record"
	// ModeCopy stores copy events from the transcripts in sources.
	ModeCopy Mode = "copy"
)

// TemporalMode is how time is kept (temporal.mode).
type TemporalMode string

// The temporal modes.
const (
	// TemporalValid keeps when a fact held.
	TemporalValid TemporalMode = "valid"
	// TemporalBitemporal also keeps when the store learned and unlearned it.
	TemporalBitemporal TemporalMode = "bitemporal"
)

// BacklogMode is how unexamined events are worked through
// (scheduler.backlog).
type BacklogMode string

// The backlog policies.
const (
	// BacklogAuto drains when no model route is charged per call, else gates.
	BacklogAuto BacklogMode = "auto"
	// BacklogGated always caps and gates.
	BacklogGated BacklogMode = "gated"
	// BacklogDrain always drains.
	BacklogDrain BacklogMode = "drain"
)

// Duration is a duration knob such as "2m", parsed once when config.json
// is read. It keeps the file's text, so writing the config back (and
// settings) shows what the user wrote; a text that is not a duration is
// kept with its error and reported by Validate (or, for a knob checked
// only when used, by its user).
type Duration struct {
	d    time.Duration
	text string
	err  error
}

// NewDuration reads text as a duration knob, as loading config.json does.
func NewDuration(text string) Duration {
	d, err := time.ParseDuration(text)
	return Duration{d: d, text: text, err: err}
}

// Duration is the knob's value; zero when its text is not a duration.
func (d Duration) Duration() time.Duration { return d.d }

// String is the knob's text as config.json has it.
func (d Duration) String() string { return d.text }

// Err says why the text is not a duration; nil when it is.
func (d Duration) Err() error { return d.err }

// Empty reports a knob left empty ("").
func (d Duration) Empty() bool { return d.text == "" }

// ok reports a text that is a duration.
func (d Duration) ok() bool { return d.text != "" && d.err == nil }

// MarshalText writes the knob's text.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.text), nil }

// UnmarshalText reads a knob's text; a text that is not a duration is kept
// with its error, for Validate to report in its order.
func (d *Duration) UnmarshalText(b []byte) error {
	*d = NewDuration(string(b))
	return nil
}

// Bytes is a size knob such as "2GB" (powers of 1024), parsed once when
// config.json is read; "" means none. It keeps the file's text like
// Duration.
type Bytes struct {
	n    int64
	text string
	err  error
}

// NewBytes reads text as a size knob, as loading config.json does.
func NewBytes(text string) Bytes {
	if text == "" {
		return Bytes{}
	}
	n, err := parseBytes(text)
	return Bytes{n: n, text: text, err: err}
}

// Int64 is the size in bytes; zero when none is set or the text is not a
// size.
func (b Bytes) Int64() int64 { return b.n }

// String is the knob's text as config.json has it.
func (b Bytes) String() string { return b.text }

// Err says why the text is not a size; nil when it is, or is empty.
func (b Bytes) Err() error { return b.err }

// Set reports a knob that names a size (not "").
func (b Bytes) Set() bool { return b.text != "" }

// MarshalText writes the knob's text.
func (b Bytes) MarshalText() ([]byte, error) { return []byte(b.text), nil }

// UnmarshalText reads a knob's text, keeping an error for Validate.
func (b *Bytes) UnmarshalText(t []byte) error {
	*b = NewBytes(string(t))
	return nil
}

// Count is a token count knob such as "2M" (powers of 1000), parsed once
// when config.json is read. It keeps the file's text like Duration.
type Count struct {
	n    int64
	text string
	err  error
}

// NewCount reads text as a token count, as loading config.json does.
func NewCount(text string) Count {
	n, err := parseCount(text)
	return Count{n: n, text: text, err: err}
}

// Int64 is the count; zero when the text is not a count.
func (c Count) Int64() int64 { return c.n }

// String is the knob's text as config.json has it.
func (c Count) String() string { return c.text }

// Err says why the text is not a count; nil when it is.
func (c Count) Err() error { return c.err }

// MarshalText writes the knob's text.
func (c Count) MarshalText() ([]byte, error) { return []byte(c.text), nil }

// UnmarshalText reads a knob's text, keeping an error for Validate.
func (c *Count) UnmarshalText(t []byte) error {
	*c = NewCount(string(t))
	return nil
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// textual reports a knob written as a JSON string: a string, or a typed
// value read from its text (Duration, Bytes, Count).
func textual(t reflect.Type) bool {
	return t.Kind() == reflect.String || reflect.PointerTo(t).Implements(textUnmarshaler)
}

// plain is a knob's value as settings show it: the text of a textual
// knob, anything else as it is.
func plain(v reflect.Value) any {
	if m, ok := v.Interface().(encoding.TextMarshaler); ok {
		b, _ := m.MarshalText()
		return string(b)
	}
	if v.Kind() == reflect.String {
		return v.String()
	}
	return v.Interface()
}

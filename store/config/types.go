package config

import (
	"encoding"
	"fmt"
	"reflect"
	"strconv"
	"strings"
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

// Window is a retention window such as "90d": how far back memory
// reaches. It is written in days ("90d"), weeks ("12w") or as a Go
// duration ("2160h"); "" means no window. It keeps the file's text like
// Duration.
type Window struct {
	d    time.Duration
	text string
	err  error
}

// NewWindow reads text as a retention window, as loading config.json does.
func NewWindow(text string) Window {
	if text == "" {
		return Window{}
	}
	d, err := parseWindow(text)
	return Window{d: d, text: text, err: err}
}

// parseWindow reads Nd, Nw or a Go duration of at least an hour.
func parseWindow(s string) (time.Duration, error) {
	day := 24 * time.Hour
	for suffix, unit := range map[string]time.Duration{"d": day, "w": 7 * day} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.Atoi(n)
			if err != nil || v < 1 || v > 100*366 {
				return 0, fmt.Errorf("%q is not a window; write a number of days (90d) or weeks (12w), at least 1 and at most 100 years", s)
			}
			return time.Duration(v) * unit, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Hour {
		return 0, fmt.Errorf("%q is not a window; write days (90d), weeks (12w) or a duration of at least an hour (2160h)", s)
	}
	return d, nil
}

// Duration is how far back the window reaches; zero when none is set or
// the text is not a window.
func (w Window) Duration() time.Duration { return w.d }

// Set reports a knob that names a window (not "").
func (w Window) Set() bool { return w.text != "" }

// Floor is the instant the window begins at now: what happened before it
// is past the window. It is zero when no valid window is set.
func (w Window) Floor(now time.Time) time.Time {
	if w.d <= 0 {
		return time.Time{}
	}
	return now.Add(-w.d)
}

// String is the knob's text as config.json has it.
func (w Window) String() string { return w.text }

// Err says why the text is not a window; nil when it is, or is empty.
func (w Window) Err() error { return w.err }

// MarshalText writes the knob's text.
func (w Window) MarshalText() ([]byte, error) { return []byte(w.text), nil }

// UnmarshalText reads a knob's text, keeping an error for Validate.
func (w *Window) UnmarshalText(t []byte) error {
	*w = NewWindow(string(t))
	return nil
}

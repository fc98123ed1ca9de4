package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestParseTypesTheKnobs: config.json is parsed once, at load, into typed
// values; consumers read durations, byte counts, token counts and modes
// without parsing text again.
func TestParseTypesTheKnobs(t *testing.T) {
	cfg, err := Parse(strings.NewReader(`{"mode": "copy", "sources": [{"kind": "claude-code"}],
		"intelligence": {"ollama": {"keep_alive": "90s"}, "token_budget": {"http": {"day": "2M", "hour": "500k"}}},
		"temporal": {"mode": "bitemporal"}, "retention": {"disk_budget": "1.5G"},
		"scheduler": {"threshold_interval": "90s", "backlog": "drain"}, "context": {"compact_wait": "2500ms"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Mode != ModeCopy || cfg.Temporal.Mode != TemporalBitemporal || cfg.Scheduler.Backlog != BacklogDrain {
		t.Errorf("modes: %q %q %q", cfg.Mode, cfg.Temporal.Mode, cfg.Scheduler.Backlog)
	}
	for name, got := range map[string]time.Duration{
		"intelligence.ollama.keep_alive": cfg.Intelligence.Ollama.KeepAlive.Duration(),
		"scheduler.threshold_interval":   cfg.Scheduler.ThresholdInterval.Duration(),
		"context.compact_wait":           cfg.Context.CompactWait.Duration(),
	} {
		want := map[string]time.Duration{"context.compact_wait": 2500 * time.Millisecond}[name]
		if want == 0 {
			want = 90 * time.Second
		}
		if got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	if b := cfg.Retention.DiskBudget; !b.Set() || b.Int64() != 3<<29 || b.String() != "1.5G" {
		t.Errorf("disk_budget = %d (%q, set %v), want %d", b.Int64(), b, b.Set(), int64(3<<29))
	}
	day, hour := cfg.Intelligence.TokenBudget["http"]["day"], cfg.Intelligence.TokenBudget["http"]["hour"]
	if day.Int64() != 2e6 || hour.Int64() != 5e5 || day.String() != "2M" {
		t.Errorf("token budgets day %d (%q), hour %d", day.Int64(), day, hour.Int64())
	}
	if def := Default(); def.Retention.DiskBudget.Set() || def.Scheduler.ThresholdInterval.Duration() != 2*time.Minute ||
		def.Context.CompactWait.Duration() != 3*time.Second || def.Intelligence.Ollama.KeepAlive.Duration() != 5*time.Minute {
		t.Errorf("defaults: %+v", def)
	}
}

// TestTypedKnobsKeepTheirText: a typed knob is written back, listed and
// read by settings as the text the file has, never as a re-rendered value
// ("2m", not "2m0s") nor as a quoted JSON string.
func TestTypedKnobsKeepTheirText(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, Default()); err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"mode": "record"`, `"keep_alive": "5m"`, `"disk_budget": ""`, `"threshold_interval": "2m"`, `"backlog": "auto"`, `"compact_wait": "3s"`} {
		if !bytes.Contains(written, []byte(want)) {
			t.Errorf("written defaults lack %s:\n%s", want, written)
		}
	}
	cfg, err := Set(dir, "scheduler.threshold_interval", "90s")
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, FileName))
	if want := bytes.Replace(written, []byte(`"threshold_interval": "2m"`), []byte(`"threshold_interval": "90s"`), 1); !bytes.Equal(after, want) {
		t.Errorf("set changed more than the knob's bytes:\n%s", after)
	}
	if cfg.Scheduler.ThresholdInterval.Duration() != 90*time.Second {
		t.Errorf("set parsed %s", cfg.Scheduler.ThresholdInterval.Duration())
	}
	if _, err = Set(dir, "intelligence.token_budget.http.day", "2M"); err != nil {
		t.Fatal(err)
	}
	cfg, err = Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]any{"mode": "record", "scheduler.threshold_interval": "90s", "retention.disk_budget": "",
		"intelligence.token_budget.http.day": "2M", "scheduler.backlog": "auto"} {
		if got, err := Get(cfg, key); err != nil || got != want {
			t.Errorf("Get(%s) = %#v, %v; want %#v", key, got, err, want)
		}
	}
	for _, s := range Settings(cfg) {
		if s.Key == "context.compact_wait" && s.Value != "3s" {
			t.Errorf("settings list compact_wait as %#v", s.Value)
		}
	}
	section, err := Get(cfg, "scheduler")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(section); !bytes.Contains(b, []byte(`"threshold_interval":"90s"`)) {
		t.Errorf("scheduler section as JSON: %s", b)
	}
	var ce *Error
	if _, err := Get(cfg, "scheduler.threshold_interval.x"); !errors.As(err, &ce) || ce.Msg != "scheduler.threshold_interval is a string, not a section" {
		t.Errorf("a path below a typed knob: %v", err)
	}
	if _, err := Set(dir, "scheduler.threshold_interval", "5"); err == nil || err.Error() != `config.json: scheduler.threshold_interval: "5" is not a duration; write e.g. "2m"` {
		t.Errorf("set a number of no unit: %v", err)
	}
	if _, err := Parse(strings.NewReader(`{"scheduler": {"threshold_interval": 5}}`)); err == nil ||
		err.Error() != "config.json: scheduler.threshold_interval: wrong type: got a JSON number, want a string" {
		t.Errorf("a JSON number for a duration: %v", err)
	}
	if _, err := Parse(strings.NewReader(`{"retention": {"disk_budget": {"size": 5}}}`)); err == nil ||
		err.Error() != "config.json: retention.disk_budget: wrong type: got a JSON object, want a string" {
		t.Errorf("an object for a size: %v", err)
	}
}

// TestValidationOrderIsStable: with several mistakes the same one is
// reported every time — sections in the file's order, names within a
// section sorted — never whichever a map happened to yield first.
func TestValidationOrderIsStable(t *testing.T) {
	cases := []struct{ json, want string }{
		{`{"intelligence": {"stages": {"zeta": {}, "alpha": {}, "beta": {}}}}`, "intelligence.stages.alpha"},
		{`{"intelligence": {"token_budget": {"http": {"year": "1M", "decade": "2M", "eon": "1"}}}}`, "intelligence.token_budget.http.decade"},
		{`{"intelligence": {"token_budget": {"http": {"day": "lots"}, "cli": {"day": "many"}}}}`, "intelligence.token_budget.cli.day"},
		{`{"context": {"compact_wait": "x"}, "scheduler": {"threshold_interval": "y"}, "temporal": {"mode": "z"}}`, "temporal.mode"},
	}
	for _, c := range cases {
		for range 40 {
			_, err := Parse(strings.NewReader(c.json))
			var ce *Error
			if !errors.As(err, &ce) || ce.Path != c.want {
				t.Fatalf("Parse(%s) = %v; want the error at %s every time", c.json, err, c.want)
			}
		}
	}
}

// TestWindow: retention.window takes days, weeks or a duration of at
// least an hour, and says what to write otherwise.
func TestWindow(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		text  string
		want  time.Duration
		fails string
	}{
		{"", 0, ""},
		{"90d", 90 * 24 * time.Hour, ""},
		{"12w", 84 * 24 * time.Hour, ""},
		{"2160h", 2160 * time.Hour, ""},
		{"0d", 0, `"0d" is not a window; write a number of days (90d) or weeks (12w)`},
		{"-3d", 0, `"-3d" is not a window`},
		{"30m", 0, `"30m" is not a window; write days (90d), weeks (12w) or a duration of at least an hour (2160h)`},
		{"March", 0, `"March" is not a window`},
	} {
		w := NewWindow(tc.text)
		if tc.fails != "" {
			if w.Err() == nil || !strings.Contains(w.Err().Error(), tc.fails) || !w.Floor(now).IsZero() {
				t.Errorf("%q: err %v, floor %v; want an error with %q and no floor", tc.text, w.Err(), w.Floor(now), tc.fails)
			}
			continue
		}
		if w.Err() != nil || w.Duration() != tc.want || w.Set() != (tc.text != "") {
			t.Errorf("%q: %v, %v; want %v", tc.text, w.Duration(), w.Err(), tc.want)
		}
		if tc.want > 0 && !w.Floor(now).Equal(now.Add(-tc.want)) {
			t.Errorf("%q: floor %v", tc.text, w.Floor(now))
		}
	}
	cfg := Default()
	cfg.Retention.Window = NewWindow("30m")
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "retention.window") {
		t.Errorf("Validate with a bad window: %v", err)
	}
}

package config

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// intRange is the values a whole-number field may take.
type intRange struct {
	min, max int
	// hint says what the bounds mean, when they need saying.
	hint string
}

// intRanges bounds every whole-number field of config.json, by its path.
// Loading checks each, and a value given in another form (1e9, 2.5) is
// refused with its range.
var intRanges = sync.OnceValue(func() map[string]intRange {
	return map[string]intRange{
		"extraction.batch_size":          {1, 100000, ""},
		"extraction.min_content_length":  {0, 1 << 20, "0 takes every event"},
		"extraction.max_content_chars":   {0, 1 << 24, "0 sends events whole"},
		"extraction.context_events":      {0, 1000, "0 sends no earlier events"},
		"extraction.working_memory_size": {0, 1000000, "0 keeps no window"},
		"embedding.batch_size":           {1, 512, ""},
		"scheduler.threshold_events":     {0, 100000000, "0 runs on the interval alone"},
		"scheduler.extract_cap":          {1, 1000000, ""},
		"context.session_budget":         {MinContextBudget, 200000, ""},
		"context.prompt_budget":          {MinContextBudget, 200000, ""},
		"intelligence.http.timeout_ms":   {1, MaxTimeoutMS, ""},
		"intelligence.ollama.timeout_ms": {1, MaxTimeoutMS, ""},
		"intelligence.cli.timeout_ms":    {1, MaxTimeoutMS, ""},
	}
})

// rangeMsg says what a field takes.
func (r intRange) msg() string {
	s := fmt.Sprintf("a whole number from %d to %d", r.min, r.max)
	if r.hint != "" {
		s += " (" + r.hint + ")"
	}
	return s
}

// checkRanges refuses a whole-number field outside its range, naming it.
func (c Config) checkRanges() error {
	values := map[string]int{
		"extraction.batch_size":          c.Extraction.BatchSize,
		"extraction.min_content_length":  c.Extraction.MinContentLength,
		"extraction.max_content_chars":   c.Extraction.MaxContentChars,
		"extraction.context_events":      c.Extraction.ContextEvents,
		"extraction.working_memory_size": c.Extraction.WorkingMemorySize,
		"embedding.batch_size":           c.Embedding.BatchSize,
		"scheduler.threshold_events":     c.Scheduler.ThresholdEvents,
		"scheduler.extract_cap":          c.Scheduler.ExtractCap,
		"context.session_budget":         c.Context.SessionBudget,
		"context.prompt_budget":          c.Context.PromptBudget,
		"intelligence.http.timeout_ms":   c.Intelligence.HTTP.TimeoutMS,
		"intelligence.ollama.timeout_ms": c.Intelligence.Ollama.TimeoutMS,
		"intelligence.cli.timeout_ms":    c.Intelligence.CLI.TimeoutMS,
	}
	paths := make([]string, 0, len(values))
	for p := range values {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		r, v := intRanges()[p], values[p]
		if v < r.min || v > r.max {
			return &Error{Path: p, Msg: fmt.Sprintf("%d is out of range; write %s", v, r.msg())}
		}
	}
	return nil
}

// RangeOf says what the whole-number field at path takes, for messages
// about a value that is not one.
func RangeOf(path string) (string, bool) {
	r, ok := intRanges()[path]
	if !ok {
		return "", false
	}
	return r.msg(), true
}

// controlChar finds a character a config value never needs and that can
// change what a terminal shows: C0 and C1 controls (escape, carriage
// return, backspace, …) and the bidirectional overrides and isolates.
func controlChar(s string) (rune, bool) {
	for _, r := range s {
		if unicode.IsControl(r) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) || r == 0x200E || r == 0x200F || r == 0x061C {
			return r, true
		}
	}
	return 0, false
}

// checkStrings walks the decoded JSON and refuses a string (or a key)
// holding a control character, naming where it is.
func checkStrings(v any, path string) error {
	switch x := v.(type) {
	case string:
		if r, ok := controlChar(x); ok {
			return &Error{Path: orRoot(path), Msg: fmt.Sprintf("holds the control character %U; a config value never needs one, and one can redraw what recollect trust shows: remove it", r)}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if r, ok := controlChar(k); ok {
				return &Error{Path: orRoot(path), Msg: fmt.Sprintf("a key holds the control character %U: remove it", r)}
			}
			if err := checkStrings(x[k], join(path, k)); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := checkStrings(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func orRoot(path string) string {
	if path == "" {
		return "(root)"
	}
	return path
}

// checkURL refuses a host URL that is not http(s) with a host.
func checkURL(path, raw, example string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return &Error{Path: path, Msg: fmt.Sprintf("%s is not an http(s) URL with a host; write e.g. %s", strconv.Quote(raw), example)}
	}
	if u.User != nil {
		return &Error{Path: path, Msg: fmt.Sprintf("%s carries a user or password; give the key through an environment variable (api_key_env) instead", ShowURL(raw))}
	}
	return nil
}

var envNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// checkEnvName refuses a variable name that is not one.
func checkEnvName(path, name string) error {
	if name != "" && !envNameRe().MatchString(name) {
		return &Error{Path: path, Msg: fmt.Sprintf("%s is not an environment variable name; write letters, digits and _, e.g. OPENAI_API_KEY", strconv.Quote(name))}
	}
	return nil
}

// Show renders a config value for a terminal: quoted, with every control
// character escaped, so a value cannot redraw the lines around it.
func Show(s string) string { return strconv.QuoteToGraphic(s) }

// ShowURL renders a host URL by its parts — scheme, host, port, path —
// each escaped, so what a config would send where reads plainly.
func ShowURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return Show(raw) + " (not a URL with a host)"
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	where := "host " + Show(host)
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() || host == "localhost" {
		where += " (this machine)"
	}
	out := fmt.Sprintf("scheme %s, %s, port %s", Show(u.Scheme), where, Show(port))
	if u.Path != "" && u.Path != "/" {
		out += ", path " + Show(u.Path)
	}
	if u.RawQuery != "" {
		out += ", query " + Show(u.RawQuery)
	}
	if u.User != nil {
		out += ", WITH CREDENTIALS IN THE URL"
	}
	return strings.TrimSpace(out)
}

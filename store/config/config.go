// Package config reads and writes a data directory's config.json: every key
// recollect understands, its default, and validation that names the field
// path and the fix. The file is parsed once into typed values — a Mode,
// durations, byte and token counts (types.go) — validated section by
// section in a stable order, so consumers never parse its text again.
// Loading has no side effects; unknown keys and wrong types are errors,
// never silently ignored.
//
// It imports nothing else of recollect but the leaves store/regfile (a
// config.json that is a FIFO is refused, never waited on) and
// store/jsonedit (settings set changes one value in place), so every layer
// can read its section. trust.go keeps the user's approvals of project
// configs (see CheckProject).
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/recollect/recollect/store/regfile"
)

// FileName is the config file inside a data directory.
const FileName = "config.json"

// Config is the whole of config.json.
type Config struct {
	// Mode is "record" (events come from record and the log_event tool) or
	// "copy" (events are copied from the transcripts in Sources).
	Mode         Mode         `json:"mode"`
	Sources      []Source     `json:"sources"`
	Redaction    Redaction    `json:"redaction"`
	Intelligence Intelligence `json:"intelligence"`
	Extraction   Extraction   `json:"extraction"`
	Embedding    Embedding    `json:"embedding"`
	Temporal     Temporal     `json:"temporal"`
	Retention    Retention    `json:"retention"`
	Scheduler    Scheduler    `json:"scheduler"`
	Context      Context      `json:"context"`
	Storage      Storage      `json:"storage"`
}

// Storage chooses the engine the store lives in: "sqlite" (memory.db in
// the data directory) or "postgres" (a schema on a PostgreSQL server,
// which several daemons on several machines can share). The data
// directory holds the config, socket and logs either way.
type Storage struct {
	Provider string          `json:"provider"`
	Postgres PostgresStorage `json:"postgres"`
}

// PostgresStorage says where a postgres store lives. The connection URL
// (with any password) is never in config.json: it is read from the
// environment variable URLEnv names.
type PostgresStorage struct {
	// URLEnv names the variable holding the URL; empty means
	// RECOLLECT_POSTGRES_URL.
	URLEnv string `json:"url_env"`
	// Schema is the store's schema; empty means the data directory's name
	// (see postgres.DefaultSchema).
	Schema string `json:"schema"`
}

// StorageProviders are the values of storage.provider.
var StorageProviders = []string{"sqlite", "postgres"}

// Source is one transcript location the daemon follows.
type Source struct {
	Kind             string `json:"kind"`
	Home             string `json:"home,omitempty"`
	Cwd              string `json:"cwd,omitempty"`
	IncludeSubagents bool   `json:"include_subagents,omitempty"`
}

// SourceKinds lists the transcript kinds recollect can follow.
var SourceKinds = []string{"claude-code", "cursor", "codex", "gemini"}

// Redaction controls secret scrubbing before events are stored.
type Redaction struct {
	Enabled  bool               `json:"enabled"`
	Patterns []RedactionPattern `json:"patterns"`
}

// RedactionPattern is an extra user-supplied secret shape.
type RedactionPattern struct {
	Kind  string `json:"kind"`
	Regex string `json:"regex"`
}

// Intelligence chooses the model providers per stage.
type Intelligence struct {
	Provider    string                      `json:"provider"`
	Stages      map[string]StageRoute       `json:"stages"`
	HTTP        HTTPProvider                `json:"http"`
	Ollama      OllamaProvider              `json:"ollama"`
	CLI         CLIProvider                 `json:"cli"`
	TokenBudget map[string]map[string]Count `json:"token_budget"`
}

// StageRoute overrides the provider for one stage.
type StageRoute struct {
	Provider string `json:"provider,omitempty"`
	// OnFail is a provider name to fall back to, or "none" to hold.
	OnFail string `json:"on_fail,omitempty"`
}

// Providers lists the provider names recollect knows.
var Providers = []string{"heuristic", "http", "ollama", "cli"}

// Stages lists the model stages that can be routed.
var Stages = []string{"extract", "classify", "entities", "reconcile", "supersede", "summarise"}

// HTTPProvider is any OpenAI-compatible host.
type HTTPProvider struct {
	BaseURL   string `json:"base_url"`
	Model     string `json:"model"`
	APIKeyEnv string `json:"api_key_env"`
	TimeoutMS int    `json:"timeout_ms"`
}

// OllamaProvider is Ollama's native API.
type OllamaProvider struct {
	Host  string `json:"host"`
	Model string `json:"model"`
	// KeepAlive is checked when the ollama provider is built, not at
	// load: a store that never routes to ollama keeps working.
	KeepAlive Duration `json:"keep_alive"`
	TimeoutMS int      `json:"timeout_ms"`
}

// CLIProvider is the Claude Code CLI.
type CLIProvider struct {
	Command   string `json:"command"`
	Model     string `json:"model"`
	TimeoutMS int    `json:"timeout_ms"`
}

// Extraction bounds and filters the extract stage.
type Extraction struct {
	BatchSize         int      `json:"batch_size"`
	EventTypes        []string `json:"event_types"`
	Roles             []string `json:"roles"`
	MinContentLength  int      `json:"min_content_length"`
	MaxContentChars   int      `json:"max_content_chars"`
	ContextEvents     int      `json:"context_events"`
	WorkingMemorySize int      `json:"working_memory_size"`
}

// Embedding configures the optional semantic index.
type Embedding struct {
	// Provider is "" (off), "ollama" or "http".
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	BaseURL   string `json:"base_url"`
	APIKeyEnv string `json:"api_key_env"`
	BatchSize int    `json:"batch_size"`
}

// Temporal chooses how time is kept: "valid" or "bitemporal".
type Temporal struct {
	Mode TemporalMode `json:"mode"`
}

// Retention bounds the raw event store.
type Retention struct {
	// DiskBudget is a size such as "2GB"; empty means no budget.
	DiskBudget Bytes `json:"disk_budget"`
	// Window is how far back memory reaches ("90d"); empty means no
	// window. Reads never return what happened before it, and prune and
	// the daemon delete it.
	Window Window `json:"window"`
	// AgentForget offers agents the MCP forget tool, which deletes for
	// good: off unless the store's owner turns it on.
	AgentForget bool `json:"agent_forget"`
}

// Scheduler holds the daemon's thresholds.
type Scheduler struct {
	ThresholdEvents   int      `json:"threshold_events"`
	ThresholdInterval Duration `json:"threshold_interval"`
	ExtractCap        int      `json:"extract_cap"`
	// Backlog is how unexamined events are worked through: "auto" drains
	// them continuously when no model route is charged per call (the
	// heuristic, ollama, an http host on this machine) and gates them
	// otherwise; "gated" always caps and gates; "drain" always drains.
	Backlog BacklogMode `json:"backlog"`
}

// Context sizes what agent hooks add to the agent's context by themselves.
type Context struct {
	// SessionBudget bounds the session-start context, in estimated tokens.
	SessionBudget int `json:"session_budget"`
	// CompactWait is how long the session-start hook after a compaction
	// waits for the consolidation the PreCompact notice started, at most.
	CompactWait Duration `json:"compact_wait"`
	// Prompt turns on the per-prompt hook (UserPromptSubmit): off by
	// default, since it adds to every prompt.
	Prompt bool `json:"prompt"`
	// PromptBudget bounds the facts added to one prompt, in estimated
	// tokens.
	PromptBudget int `json:"prompt_budget"`
}

// MaxCompactWait bounds context.compact_wait: a session start is never held
// longer, whatever the config says.
const MaxCompactWait = 10 * time.Second

// BacklogModes are the values of scheduler.backlog.
var BacklogModes = []BacklogMode{BacklogAuto, BacklogGated, BacklogDrain}

// Default returns a config with every default spelled out: a record store
// on the heuristic provider.
func Default() Config {
	return Config{
		Mode:      ModeRecord,
		Sources:   []Source{},
		Redaction: Redaction{Enabled: true, Patterns: []RedactionPattern{}},
		Intelligence: Intelligence{
			Provider:    "heuristic",
			Stages:      map[string]StageRoute{},
			HTTP:        HTTPProvider{BaseURL: "http://localhost:11434/v1", APIKeyEnv: "", TimeoutMS: 120000},
			Ollama:      OllamaProvider{Host: "http://localhost:11434", KeepAlive: NewDuration("5m"), TimeoutMS: 120000},
			CLI:         CLIProvider{Command: "claude", Model: "haiku", TimeoutMS: 180000},
			TokenBudget: map[string]map[string]Count{},
		},
		Extraction: Extraction{
			BatchSize:         50,
			EventTypes:        []string{"message"},
			Roles:             []string{"user", "assistant"},
			MinContentLength:  12,
			MaxContentChars:   4000,
			ContextEvents:     6,
			WorkingMemorySize: 200,
		},
		Embedding: Embedding{BatchSize: 32},
		Temporal:  Temporal{Mode: TemporalValid},
		Retention: Retention{DiskBudget: Bytes{}},
		Scheduler: Scheduler{ThresholdEvents: 10, ThresholdInterval: NewDuration("2m"), ExtractCap: 50, Backlog: BacklogAuto},
		Context:   Context{SessionBudget: 1500, CompactWait: NewDuration("3s"), Prompt: false, PromptBudget: 400},
		Storage:   Storage{Provider: "sqlite"},
	}
}

// Error is a config problem at a field path, with the fix.
type Error struct {
	Path string // e.g. "sources[1].kind"
	Msg  string
}

func (e *Error) Error() string { return "config.json: " + e.Path + ": " + e.Msg }

// Parse reads config.json from r over the defaults: keys that are absent keep
// their default; unknown keys and wrong types are errors naming the field.
func Parse(r io.Reader) (Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Config{}, fmt.Errorf("read config: %w", err)
	}
	cfg := Default()
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	var raw any
	if err := json.Unmarshal(data, &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return Config{}, &Error{Path: fmt.Sprintf("byte %d", se.Offset), Msg: "invalid JSON (" + se.Error() + "); fix the syntax or delete the file and run recollect init"}
		}
		return Config{}, &Error{Path: "(root)", Msg: "invalid JSON: " + err.Error()}
	}
	if err := checkKeys(raw, reflect.TypeOf(cfg), ""); err != nil {
		return Config{}, err
	}
	if err := checkStrings(raw, ""); err != nil {
		return Config{}, err
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			path := te.Field
			if path == "" {
				path = "(root)" // the whole file is not an object
			}
			if r, ok := RangeOf(path); ok {
				return Config{}, &Error{Path: path, Msg: fmt.Sprintf("%s is not %s", jsonValue(data, te), r)}
			}
			return Config{}, &Error{Path: path, Msg: fmt.Sprintf("wrong type: got a JSON %s, want %s", te.Value, describe(te.Type))}
		}
		return Config{}, &Error{Path: "(root)", Msg: err.Error()}
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// Load reads dir/config.json; a missing file yields the defaults.
func Load(dir string) (Config, error) {
	f, _, err := regfile.Open(filepath.Join(dir, FileName))
	if errors.Is(err, os.ErrNotExist) {
		return Default(), nil
	}
	if errors.Is(err, regfile.ErrNotRegular) {
		return Config{}, fmt.Errorf("open config: %s: %w; replace it with a regular file or remove it", filepath.Join(dir, FileName), err)
	}
	if err != nil {
		return Config{}, fmt.Errorf("open config: %w", err)
	}
	defer f.Close()
	return Parse(f)
}

// Write stores cfg as dir/config.json (indented, every key present),
// replacing the file atomically.
func Write(dir string, cfg Config) error {
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return fmt.Errorf("encode config: %w", err)
	}
	tmp := filepath.Join(dir, FileName+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, FileName)); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	return nil
}

// Validate checks values that JSON types alone cannot, section by section
// in the file's order (map keys sorted), so a config with several mistakes
// always reports the same one first.
func (c Config) Validate() error {
	for _, check := range []func() error{
		c.validateMode, c.validateSources, c.Redaction.validate, c.Intelligence.validate, c.Extraction.validate,
		c.Embedding.validate, c.Temporal.validate, c.Retention.validate, c.Scheduler.validate, c.Context.validate,
		c.validateStorage, c.checkRanges, c.checkHosts,
	} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (c Config) validateMode() error {
	if c.Mode != ModeRecord && c.Mode != ModeCopy {
		return &Error{Path: "mode", Msg: fmt.Sprintf("unknown mode %q; use record or copy", c.Mode)}
	}
	return nil
}

func (c Config) validateSources() error {
	for i, s := range c.Sources {
		if !contains(SourceKinds, s.Kind) {
			return &Error{Path: fmt.Sprintf("sources[%d].kind", i), Msg: fmt.Sprintf("unknown kind %q; known kinds: %s", s.Kind, strings.Join(SourceKinds, ", "))}
		}
		if s.Cwd != "" && !filepath.IsAbs(s.Cwd) {
			return &Error{Path: fmt.Sprintf("sources[%d].cwd", i), Msg: fmt.Sprintf("%q is not absolute; give the project's absolute path or leave it out for every project", s.Cwd)}
		}
	}
	if c.Mode == ModeCopy && len(c.Sources) == 0 {
		return &Error{Path: "sources", Msg: "mode is copy but no source is configured; add {\"kind\": \"claude-code\"} or set mode to record"}
	}
	return nil
}

func (r Redaction) validate() error {
	for i, p := range r.Patterns {
		if p.Kind == "" || p.Regex == "" {
			return &Error{Path: fmt.Sprintf("redaction.patterns[%d]", i), Msg: "needs both kind and regex"}
		}
		if _, err := regexp.Compile(p.Regex); err != nil {
			return &Error{Path: fmt.Sprintf("redaction.patterns[%d].regex", i), Msg: fmt.Sprintf("does not compile (%v); write a Go RE2 expression", err)}
		}
		if matchesEmpty(p.Regex) {
			return &Error{Path: fmt.Sprintf("redaction.patterns[%d].regex", i), Msg: fmt.Sprintf("%q matches the empty string, so it would redact between every character; make it match at least one character", p.Regex)}
		}
	}
	return nil
}

func (in Intelligence) validate() error {
	if !contains(Providers, in.Provider) {
		return &Error{Path: "intelligence.provider", Msg: fmt.Sprintf("unknown provider %q; use one of %s", in.Provider, strings.Join(Providers, ", "))}
	}
	for _, stage := range slices.Sorted(maps.Keys(in.Stages)) {
		r := in.Stages[stage]
		if !contains(Stages, stage) {
			return &Error{Path: "intelligence.stages." + stage, Msg: fmt.Sprintf("unknown stage; stages are %s", strings.Join(Stages, ", "))}
		}
		if r.Provider != "" && !contains(Providers, r.Provider) {
			return &Error{Path: "intelligence.stages." + stage + ".provider", Msg: fmt.Sprintf("unknown provider %q; use one of %s", r.Provider, strings.Join(Providers, ", "))}
		}
		if r.OnFail != "" && r.OnFail != "none" && !contains(Providers, r.OnFail) {
			return &Error{Path: "intelligence.stages." + stage + ".on_fail", Msg: fmt.Sprintf("unknown value %q; use a provider (%s) or none", r.OnFail, strings.Join(Providers, ", "))}
		}
	}
	for _, prov := range slices.Sorted(maps.Keys(in.TokenBudget)) {
		if !contains(Providers, prov) || prov == "heuristic" {
			return &Error{Path: "intelligence.token_budget." + prov, Msg: "budgets apply to http, ollama or cli"}
		}
		windows := in.TokenBudget[prov]
		for _, w := range slices.Sorted(maps.Keys(windows)) {
			if _, ok := BudgetWindows[w]; !ok {
				return &Error{Path: "intelligence.token_budget." + prov + "." + w, Msg: "unknown window; use hour, day, week or month"}
			}
			if err := windows[w].Err(); err != nil {
				return &Error{Path: "intelligence.token_budget." + prov + "." + w, Msg: err.Error()}
			}
		}
	}
	for _, t := range []struct {
		path string
		v    int
	}{{"intelligence.http.timeout_ms", in.HTTP.TimeoutMS}, {"intelligence.ollama.timeout_ms", in.Ollama.TimeoutMS}, {"intelligence.cli.timeout_ms", in.CLI.TimeoutMS}} {
		if t.v <= 0 {
			return &Error{Path: t.path, Msg: "must be a positive number"}
		}
		if t.v > MaxTimeoutMS {
			return &Error{Path: t.path, Msg: fmt.Sprintf("%d is more than a day; write at most %d", t.v, MaxTimeoutMS)}
		}
	}
	return nil
}

func (e Extraction) validate() error {
	if e.BatchSize <= 0 {
		return &Error{Path: "extraction.batch_size", Msg: "must be a positive number"}
	}
	return nil
}

func (e Embedding) validate() error {
	if e.Provider != "" && e.Provider != "ollama" && e.Provider != "http" {
		return &Error{Path: "embedding.provider", Msg: fmt.Sprintf("unknown provider %q; use ollama, http, or \"\" for off", e.Provider)}
	}
	if e.Provider != "" && e.Model == "" {
		return &Error{Path: "embedding.model", Msg: "embeddings are on but no model is named; set embedding.model (e.g. nomic-embed-text)"}
	}
	if e.BatchSize <= 0 {
		return &Error{Path: "embedding.batch_size", Msg: "must be a positive number of texts per request (default 32)"}
	}
	if b := e.BaseURL; b != "" && !strings.HasPrefix(b, "http://") && !strings.HasPrefix(b, "https://") {
		return &Error{Path: "embedding.base_url", Msg: fmt.Sprintf("%q is not an http(s) URL; write e.g. http://localhost:11434 (ollama) or http://localhost:8080/v1 (http)", b)}
	}
	return nil
}

func (t Temporal) validate() error {
	if t.Mode != TemporalValid && t.Mode != TemporalBitemporal {
		return &Error{Path: "temporal.mode", Msg: fmt.Sprintf("unknown mode %q; use valid or bitemporal", t.Mode)}
	}
	return nil
}

func (r Retention) validate() error {
	if err := r.DiskBudget.Err(); err != nil {
		return &Error{Path: "retention.disk_budget", Msg: err.Error()}
	}
	if err := r.Window.Err(); err != nil {
		return &Error{Path: "retention.window", Msg: err.Error()}
	}
	return nil
}

func (s Scheduler) validate() error {
	if d := s.ThresholdInterval; !d.ok() || d.Duration() < 0 {
		return &Error{Path: "scheduler.threshold_interval", Msg: fmt.Sprintf("%q is not a duration; write e.g. \"2m\"", d)}
	}
	if s.ThresholdEvents < 0 {
		return &Error{Path: "scheduler.threshold_events", Msg: "must be zero or more unexamined events"}
	}
	if s.ExtractCap <= 0 {
		return &Error{Path: "scheduler.extract_cap", Msg: "must be a positive number of events per run"}
	}
	if !slices.Contains(BacklogModes, s.Backlog) {
		return &Error{Path: "scheduler.backlog", Msg: fmt.Sprintf("unknown policy %q; use %s", s.Backlog, joinModes(BacklogModes))}
	}
	return nil
}

func joinModes[M ~string](modes []M) string {
	names := make([]string, len(modes))
	for i, m := range modes {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

// MaxTimeoutMS is the longest model-call timeout, one day: more overflows
// a duration (2^62 ms timed out at once) and is no timeout anyone means.
const MaxTimeoutMS = 24 * 60 * 60 * 1000

// matchesEmpty reports whether a (compiling) pattern can match the empty
// string anywhere — a*, (x)?, a|, \b — which redaction would turn into a
// marker between every two characters.
func matchesEmpty(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return false
	}
	return nullable(re.Simplify())
}

func nullable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpStar, syntax.OpQuest, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpCapture, syntax.OpPlus:
		return nullable(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || nullable(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !nullable(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if nullable(s) {
				return true
			}
		}
		return false
	}
	return false
}

// MinContextBudget is the smallest context budget: the framing lines and
// one fact.
const MinContextBudget = 100

func (c Context) validate() error {
	for _, b := range []struct {
		path string
		v    int
	}{{"context.session_budget", c.SessionBudget}, {"context.prompt_budget", c.PromptBudget}} {
		if b.v < MinContextBudget {
			return &Error{Path: b.path, Msg: fmt.Sprintf("%d is below %d tokens, too small for the framing and one fact; write e.g. 1500 (session) or 400 (prompt)", b.v, MinContextBudget)}
		}
	}
	if d := c.CompactWait; !d.ok() || d.Duration() < 0 || d.Duration() > MaxCompactWait {
		return &Error{Path: "context.compact_wait", Msg: fmt.Sprintf("%q is not a duration between 0s and %s; write e.g. \"3s\"", d, MaxCompactWait)}
	}
	return nil
}

// BudgetWindows maps a token-budget window name to its length.
var BudgetWindows = map[string]time.Duration{
	"hour":  time.Hour,
	"day":   24 * time.Hour,
	"week":  7 * 24 * time.Hour,
	"month": 30 * 24 * time.Hour,
}

// checkKeys walks the decoded JSON beside the Go type and reports the first
// key the type does not have, with its full path and the nearest known key.
func checkKeys(v any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if textual(t) {
		return nil // a knob read from its text has no keys; a non-string is a type error
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil // a type mismatch; json.Unmarshal reports it with the field
		}
		fields := map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			fields[name] = t.Field(i).Type
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ft, ok := fields[k]
			if !ok {
				known := make([]string, 0, len(fields))
				for n := range fields {
					known = append(known, n)
				}
				msg := "unknown key"
				if near := nearest(k, known); near != "" {
					msg += fmt.Sprintf("; did you mean %q?", near)
				} else {
					sort.Strings(known)
					msg += "; known keys here: " + strings.Join(known, ", ")
				}
				name := k
				if name == "" {
					name = `""` // an empty key still needs a visible path
				}
				return &Error{Path: join(path, name), Msg: msg}
			}
			if err := checkKeys(obj[k], ft, join(path, k)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return nil
		}
		for i, e := range arr {
			if err := checkKeys(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		for k, e := range obj {
			if err := checkKeys(e, t.Elem(), join(path, k)); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func describe(t reflect.Type) string {
	if textual(t) {
		return "a string"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// nearest returns the known key within edit distance 2 of k, if any.
func nearest(k string, known []string) string {
	best, bestD := "", 3
	sort.Strings(known)
	for _, c := range known {
		if d := editDistance(k, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

var (
	envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
)

func (c Config) validateStorage() error {
	if err := c.Storage.validate(); err != nil {
		return err
	}
	if c.Storage.Provider == "postgres" && c.Retention.DiskBudget.Set() {
		return &Error{Path: "retention.disk_budget", Msg: "a postgres store's space is bounded on its server (quotas, VACUUM), not by recollect; leave retention.disk_budget empty, or keep the store in sqlite"}
	}
	return nil
}

// SchemaRune reports whether r may stand in a schema name as written in
// config.json: the characters PostgreSQL keeps as they are (lower-case
// letters, digits, _) and -, which recollect always quotes.
func SchemaRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// ReservedSchema reports a schema name PostgreSQL keeps for itself or
// every user shares.
func ReservedSchema(s string) bool {
	return s == "public" || s == "information_schema" || strings.HasPrefix(s, "pg_")
}

// MaxSchemaName is the longest schema name PostgreSQL keeps whole, in
// bytes.
const MaxSchemaName = 63

// CheckSchemaName refuses a schema name PostgreSQL would fold, truncate or
// reserve, so that the name in config.json is the name on the server.
func CheckSchemaName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("the schema name is empty; name the schema this store lives in")
	case len(s) > MaxSchemaName:
		return fmt.Errorf("%q is longer than PostgreSQL's %d bytes; choose a shorter name", s, MaxSchemaName)
	case ReservedSchema(s):
		return fmt.Errorf("%q is reserved (public, information_schema, pg_…); choose a name of this store's own", s)
	case strings.ContainsFunc(s, func(r rune) bool { return !SchemaRune(r) }):
		return fmt.Errorf("%q: use lower-case letters, digits, _ and - only", s)
	}
	return nil
}

func (st Storage) validate() error {
	if !contains(StorageProviders, st.Provider) {
		return &Error{Path: "storage.provider", Msg: fmt.Sprintf("unknown engine %q; use %s", st.Provider, strings.Join(StorageProviders, " or "))}
	}
	if v := st.Postgres.URLEnv; v != "" && !envName().MatchString(v) {
		return &Error{Path: "storage.postgres.url_env", Msg: fmt.Sprintf("%q is not an environment variable name; name the variable that holds the URL (the URL itself never goes in config.json)", v)}
	}
	if v := st.Postgres.Schema; v != "" {
		if err := CheckSchemaName(v); err != nil {
			return &Error{Path: "storage.postgres.schema", Msg: err.Error()}
		}
	}
	return nil
}

// checkHosts refuses a host URL that is not http(s) with a host, and a
// variable name that is not one.
func (c Config) checkHosts() error {
	for _, u := range []struct{ path, v, example string }{
		{"intelligence.http.base_url", c.Intelligence.HTTP.BaseURL, "http://localhost:8080/v1"},
		{"intelligence.ollama.host", c.Intelligence.Ollama.Host, "http://localhost:11434"},
		{"embedding.base_url", c.Embedding.BaseURL, "http://localhost:11434"},
	} {
		if err := checkURL(u.path, u.v, u.example); err != nil {
			return err
		}
	}
	for _, e := range []struct{ path, v string }{
		{"intelligence.http.api_key_env", c.Intelligence.HTTP.APIKeyEnv},
		{"embedding.api_key_env", c.Embedding.APIKeyEnv},
		{"storage.postgres.url_env", c.Storage.Postgres.URLEnv},
	} {
		if err := checkEnvName(e.path, e.v); err != nil {
			return err
		}
	}
	return nil
}

// jsonValue is the text of the value a type error is about, as written.
func jsonValue(data []byte, te *json.UnmarshalTypeError) string {
	end := int(te.Offset)
	if end <= 0 || end > len(data) {
		return te.Value
	}
	start := end
	for start > 0 && !strings.ContainsRune(":[,", rune(data[start-1])) {
		start--
	}
	return strings.TrimSpace(string(data[start:end]))
}

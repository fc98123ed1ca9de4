package config

import (
	"errors"
	"strings"
	"testing"
)

func TestDefaultsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, Default()); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatalf("load written defaults: %v", err)
	}
	if got.Intelligence.Provider != "heuristic" || got.Extraction.BatchSize != 50 || got.Mode != "record" || !got.Redaction.Enabled {
		t.Fatalf("defaults changed on the round trip: %+v", got)
	}
}

func TestParseErrorsNameTheField(t *testing.T) {
	cases := []struct {
		name, json, path, says string
	}{
		{"typo'd key", `{"extraction": {"bach_size": 10}}`, "extraction.bach_size", `did you mean "batch_size"`},
		{"unknown top key", `{"colour": "blue"}`, "colour", "unknown key"},
		{"wrong type", `{"extraction": {"batch_size": "ten"}}`, "extraction.batch_size", `"ten" is not a whole number from 1 to 100000`},
		{"exponent for a whole number", `{"context": {"session_budget": 1e9}}`, "context.session_budget", "1e9 is not a whole number from 100 to 200000"},
		{"negative window", `{"extraction": {"working_memory_size": -1}}`, "extraction.working_memory_size", "-1 is out of range; write a whole number from 0 to 1000000 (0 keeps no window)"},
		{"negative context events", `{"extraction": {"context_events": -3}}`, "extraction.context_events", "-3 is out of range"},
		{"negative min length", `{"extraction": {"min_content_length": -1}}`, "extraction.min_content_length", "-1 is out of range"},
		{"negative max chars", `{"extraction": {"max_content_chars": -1}}`, "extraction.max_content_chars", "-1 is out of range"},
		{"javascript URL", `{"intelligence": {"http": {"base_url": "javascript:alert(1)"}}}`, "intelligence.http.base_url", "is not an http(s) URL with a host"},
		{"file URL", `{"intelligence": {"http": {"base_url": "file:///etc/passwd"}}}`, "intelligence.http.base_url", "is not an http(s) URL with a host"},
		{"ollama host not http", `{"intelligence": {"ollama": {"host": "ftp://x"}}}`, "intelligence.ollama.host", "is not an http(s) URL"},
		{"credentials in a URL", `{"embedding": {"base_url": "http://u:p@host:1/v1"}}`, "embedding.base_url", "carries a user or password"},
		{"control characters in a value", "{\"embedding\": {\"base_url\": \"http://x\\r\\u001b[2K\\u001b[1Asends: nothing\"}}", "embedding.base_url", "holds the control character U+000D"},
		{"bidi override in a value", "{\"intelligence\": {\"cli\": {\"command\": \"claude\\u202e\"}}}", "intelligence.cli.command", "holds the control character U+202E"},
		{"variable name", `{"embedding": {"api_key_env": "$(rm -rf)"}}`, "embedding.api_key_env", "is not an environment variable name"},
		{"wrong type in list", `{"sources": [{"kind": 3}]}`, "sources.kind", "want a string"},
		{"unknown source kind", `{"mode": "copy", "sources": [{"kind": "vscode"}]}`, "sources[0].kind", "claude-code, cursor, codex"},
		{"relative codex cwd", `{"mode": "copy", "sources": [{"kind": "codex", "cwd": "~/app"}]}`, "sources[0].cwd", "absolute"},
		{"unknown provider", `{"intelligence": {"provider": "gpt"}}`, "intelligence.provider", "heuristic, http, ollama, cli"},
		{"bad budget", `{"intelligence": {"token_budget": {"http": {"day": "lots"}}}}`, "intelligence.token_budget.http.day", "token count"},
		{"relative cwd", `{"mode": "copy", "sources": [{"kind": "cursor", "cwd": "app"}]}`, "sources[0].cwd", "absolute"},
		{"copy without sources", `{"mode": "copy"}`, "sources", "add"},
		{"bad json", `{"mode": `, "byte", "invalid JSON"},
		{"embedding batch", `{"embedding": {"batch_size": 0}}`, "embedding.batch_size", "positive"},
		{"embedding url", `{"embedding": {"provider": "ollama", "model": "m", "base_url": "localhost:11434"}}`, "embedding.base_url", "http://localhost:11434"},
		{"tiny session budget", `{"context": {"session_budget": 20}}`, "context.session_budget", "below 100 tokens"},
		{"tiny prompt budget", `{"context": {"prompt_budget": 0}}`, "context.prompt_budget", "below 100 tokens"},
		{"compact wait", `{"context": {"compact_wait": "3 seconds"}}`, "context.compact_wait", `write e.g. "3s"`},
		{"compact wait too long", `{"context": {"compact_wait": "1m"}}`, "context.compact_wait", "between 0s and 10s"},
		{"prompt not a bool", `{"context": {"prompt": "yes"}}`, "context.prompt", "want true or false"},
		{"unknown backlog policy", `{"scheduler": {"backlog": "fast"}}`, "scheduler.backlog", "auto, gated, drain"},
		{"unknown storage engine", `{"storage": {"provider": "mysql"}}`, "storage.provider", "use sqlite or postgres"},
		{"url in config", `{"storage": {"provider": "postgres", "postgres": {"url": "postgres://u:p@h/d"}}}`, "storage.postgres.url", "unknown key"},
		{"url_env not a name", `{"storage": {"provider": "postgres", "postgres": {"url_env": "postgres://u@h/d"}}}`, "storage.postgres.url_env", "the URL itself never goes in config.json"},
		{"schema folded", `{"storage": {"provider": "postgres", "postgres": {"schema": "Atlas"}}}`, "storage.postgres.schema", "lower-case"},
		{"schema reserved", `{"storage": {"provider": "postgres", "postgres": {"schema": "public"}}}`, "storage.postgres.schema", "is reserved (public, information_schema, pg_…)"},
		{"budget on postgres", `{"storage": {"provider": "postgres"}, "retention": {"disk_budget": "2GB"}}`, "retention.disk_budget", "bounded on its server"},
		{"bad redaction regex", `{"redaction": {"patterns": [{"kind": "x", "regex": "("}]}}`, "redaction.patterns[0].regex", "Go RE2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(c.json))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Parse(%s) = %v, want a *config.Error", c.json, err)
			}
			if !strings.HasPrefix(ce.Path, c.path) || !strings.Contains(ce.Error(), c.says) {
				t.Fatalf("error %q: want path %q and text %q", ce.Error(), c.path, c.says)
			}
			if strings.Contains(ce.Error(), "\n") {
				t.Fatalf("error spans lines: %q", ce.Error())
			}
		})
	}
}

func TestParseAcceptsEveryKind(t *testing.T) {
	for _, kind := range SourceKinds {
		cfg, err := Parse(strings.NewReader(`{"mode": "copy", "sources": [{"kind": "` + kind + `", "cwd": "/w/app"}]}`))
		if err != nil || cfg.Sources[0].Kind != kind {
			t.Errorf("kind %s: %v", kind, err)
		}
	}
	if len(SourceKinds) < 3 || SourceKinds[2] != "codex" {
		t.Errorf("SourceKinds = %v, want codex among them", SourceKinds)
	}
}

func TestParseUnits(t *testing.T) {
	for in, want := range map[string]int64{"2M": 2e6, "500k": 5e5, "1G": 1e9, "10": 10} {
		if got, err := parseCount(in); err != nil || got != want {
			t.Errorf("parseCount(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for in, want := range map[string]int64{"2GB": 2 << 30, "500MB": 500 << 20, "1.5G": 3 << 29, "4096": 4096, "1GiB": 1 << 30} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "lots", "-1M", "2X"} {
		if _, err := parseBytes(bad); err == nil {
			t.Errorf("parseBytes(%q) accepted", bad)
		}
	}
}

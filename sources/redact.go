package sources

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/recollect/recollect/store/config"
)

// rule is one secret shape. A rule runs its regexp only when one of its
// trigger literals occurs in the text, so ordinary lines cost a few
// substring scans instead of a dozen regexp passes.
type rule struct {
	kind     string
	re       *regexp.Regexp
	triggers []string // any of these must occur; empty means always run
	fold     bool     // triggers are matched against the lowercased text
	// group is the submatch that holds the secret (0: the whole match), so
	// a key name or a URL's user part stays readable.
	group int
}

// builtinRules are the well-known secret shapes. Order matters: Anthropic
// keys (sk-ant-…) are caught before the wider OpenAI shape (sk-…). They are
// compiled on first use, not at program start, so short-lived commands such
// as notify do not pay for them.
var builtinRules = sync.OnceValue(func() []rule {
	return []rule{
		{kind: "private_key", re: regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?s:.*?)-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----`),
			triggers: []string{"PRIVATE KEY-----"}},
		{kind: "aws_access_key", re: regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`),
			triggers: []string{"AKIA", "ASIA", "ABIA", "ACCA"}},
		{kind: "github_token", re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`),
			triggers: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
		{kind: "gitlab_token", re: regexp.MustCompile(`\bglpat-[A-Za-z0-9_\-]{20,}`),
			triggers: []string{"glpat-"}},
		{kind: "slack_token", re: regexp.MustCompile(`\bxox[abposre]-[A-Za-z0-9-]{10,}`),
			triggers: []string{"xox"}},
		{kind: "stripe_key", re: regexp.MustCompile(`\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b`),
			triggers: []string{"k_live_", "k_test_"}},
		{kind: "anthropic_key", re: regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_\-]{20,}`),
			triggers: []string{"sk-ant-"}},
		{kind: "openai_key", re: regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,}`),
			triggers: []string{"sk-"}},
		{kind: "jwt", re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
			triggers: []string{"eyJ"}},
		// name=value with no spaces around '=' (env files, URLs, command
		// lines); "token = f()" in code is deliberately not matched. A value
		// starting with $ or < is a reference or a placeholder, not a secret.
		{kind: "assignment", group: 2,
			re:       regexp.MustCompile(`(?i)\b([a-z0-9_.-]*(?:password|passwd|secret|token|api_?key)=)([^\s"'\\,;&<>$][^\s"'\\,;&<>]{3,})`),
			triggers: []string{"password=", "passwd=", "secret=", "token=", "key="}, fold: true},
		// The same in JSON: "password": "value".
		{kind: "assignment", group: 2,
			re:       regexp.MustCompile(`(?i)("[a-z0-9_.-]*(?:password|passwd|secret|token|api_?key)"\s*:\s*")([^"\\$<][^"\\]{3,})`),
			triggers: []string{"password\"", "passwd\"", "secret\"", "token\"", "key\""}, fold: true},
		{kind: "connection_string", group: 2,
			re:       regexp.MustCompile(`\b([a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@"'\\]+:)([^\s@/"'\\]+)@`),
			triggers: []string{"://"}},
	}
})

// Redactor replaces secrets in text with [REDACTED:<kind>] before anything
// is stored, and counts what it replaced per kind.
type Redactor struct {
	rules []rule
}

// NewRedactor builds the redactor cfg describes: the built-in shapes plus
// cfg.Patterns, or nothing at all when cfg.Enabled is false. A pattern that
// does not compile is an error naming its config path.
func NewRedactor(cfg config.Redaction) (*Redactor, error) {
	if !cfg.Enabled {
		return &Redactor{}, nil
	}
	r := &Redactor{rules: append([]rule(nil), builtinRules()...)}
	for i, p := range cfg.Patterns {
		re, err := regexp.Compile(p.Regex)
		if err != nil {
			return nil, fmt.Errorf("config.json: redaction.patterns[%d].regex: %w; fix the expression (Go RE2 syntax)", i, err)
		}
		r.rules = append(r.rules, rule{kind: p.Kind, re: re})
	}
	return r, nil
}

// Redact returns s with every secret replaced, adding one to counts[kind]
// per replacement. counts may be nil when the caller does not count.
func (r *Redactor) Redact(s string, counts map[string]int64) string {
	if r == nil || len(r.rules) == 0 || s == "" {
		return s
	}
	var lower string
	for _, ru := range r.rules {
		if !ru.triggered(s, &lower) {
			continue
		}
		s = ru.replace(s, counts)
	}
	return s
}

func (ru *rule) triggered(s string, lower *string) bool {
	if len(ru.triggers) == 0 {
		return true
	}
	hay := s
	if ru.fold {
		if *lower == "" {
			*lower = strings.ToLower(s)
		}
		hay = *lower
	}
	for _, t := range ru.triggers {
		if strings.Contains(hay, t) {
			return true
		}
	}
	return false
}

func (ru *rule) replace(s string, counts map[string]int64) string {
	locs := ru.re.FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, loc := range locs {
		start, end := loc[2*ru.group], loc[2*ru.group+1]
		if start < 0 {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString("[REDACTED:" + ru.kind + "]")
		last = end
		if counts != nil {
			counts[ru.kind]++
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

package sources

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/recollect/recollect/store"
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
	// skip, when set, keeps a matched value that is not a secret.
	skip func(string) bool
	// pre, when set, replaces triggers: a test on the lowercased text.
	pre func(lower string) bool
}

// secretName is a key name that announces a secret: DB_PASSWORD,
// client_secret, SECRET_KEY_BASE, GITHUB_TOKEN, api_key. A suffix joined
// by _ . or - is part of the name (SECRET_KEY_BASE); a plural is not
// (max_tokens is a count).
const secretName = `[a-z0-9_.-]*(?:password|passwd|secret|token|api_?key)(?:[_.-][a-z0-9]+)*`

// secretWords are the words a secret's name holds.
var secretWords = []string{"password", "passwd", "secret", "token", "api_key", "apikey", "api-key"}

// secretNameBefore reports whether some sep in lower directly follows a
// name holding a secret word (the name's rest, a closing quote and
// blanks allowed between): the cheap test before the name=value, JSON and
// YAML regexps, which cost far more on long tool output than this scan.
func secretNameBefore(lower string, sep byte) bool {
	for _, w := range secretWords {
		for off := 0; ; {
			k := strings.Index(lower[off:], w)
			if k < 0 {
				break
			}
			j := off + k + len(w)
			for j < len(lower) && strings.IndexByte("abcdefghijklmnopqrstuvwxyz0123456789_.-", lower[j]) >= 0 {
				j++
			}
			for j < len(lower) && strings.IndexByte("\"' \t", lower[j]) >= 0 {
				j++
			}
			if j < len(lower) && lower[j] == sep {
				return true
			}
			off = j
		}
	}
	return false
}

// notSecret reports values that sit where a secret would but are not one:
// numbers (max_token_count=4096) and type or placeholder words
// (password: string, token = None).
func notSecret(v string) bool {
	v = strings.TrimRight(v, ",;)")
	if strings.Trim(v, "0123456789") == "" {
		return true
	}
	switch strings.ToLower(v) {
	case "string", "str", "number", "int", "integer", "bool", "boolean", "null", "nil", "none", "true", "false",
		"undefined", "any", "optional", "required", "text", "bytes", "secret", "password", "token", "redacted", "changeme",
		"bearer", "basic", "xxxx", "xxxxxx", "xxxxxxxx", "****", "********":
		return true
	}
	return strings.HasPrefix(v, "[REDACTED")
}

// notRandomKey reports whether v is not a generated key: hexadecimal
// only (a digest, a commit id), or without both cases and a digit or
// symbol (a word, an identifier in one case).
func notRandomKey(v string) bool {
	if strings.Trim(strings.ToLower(v), "0123456789abcdef") == "" {
		return true
	}
	var upper, lower, other bool
	for _, r := range v {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 'a' && r <= 'z':
			lower = true
		default:
			other = true
		}
	}
	return !(upper && lower && other)
}

// madeUp reports whether a word looks invented rather than written: it
// holds a digit, a capital after its first letter, or one of the symbols
// password rules ask for. "hunter2", "SuperSecret" and "P@ss" are; "stored",
// "hashed" and "Vault" are not.
func madeUp(v string) bool {
	for i, r := range v {
		switch {
		case r >= '0' && r <= '9', i > 0 && r >= 'A' && r <= 'Z', strings.ContainsRune("!@#$%^&*+=~|", r):
			return true
		}
	}
	return false
}

// builtinRules are the well-known secret shapes. Order matters: Anthropic
// keys (sk-ant-…) are caught before the wider OpenAI shape (sk-…). They are
// compiled on first use, not at program start, so short-lived commands such
// as notify do not pay for them.
var builtinRules = sync.OnceValue(func() []rule {
	return []rule{
		// A whole PEM block, or one cut before its END line: the header
		// and the base64 lines that follow it (real or \n-escaped newlines).
		{kind: "private_key", re: regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:(?s:.*?)-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|(?:(?:\s|\\[rn])+(?:[A-Za-z0-9+/=]{4,}|[A-Za-z-]+: [^\n\\]*))*)`),
			triggers: []string{"PRIVATE KEY-----"}},
		// An AWS secret key said in prose: a random-looking run of its
		// alphabet (about 40 characters) after "secret" ("aws secret: …",
		// "with secret …", "secret key is …"), or after an access key id
		// ("AKIA… and …"). A git commit id is 40 characters too, all hex,
		// and a word is not random: neither is taken.
		{kind: "aws_secret_key", group: 2, skip: notRandomKey,
			re:       regexp.MustCompile(`(?i)(\b(?:aws[_ -]?)?secret(?:[_ -]?(?:access[_ -]?)?key)?(?:\s+(?:is|was|of|=))?["']?\s*[:=]?\s*["'\x60]?)([A-Za-z0-9/+]{32,64})(?:$|[^A-Za-z0-9/+=])`),
			triggers: []string{"secret"}, fold: true},
		{kind: "aws_secret_key", group: 2, skip: notRandomKey,
			re:       regexp.MustCompile(`(\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b["'\x60]?[\s,;:/|]+(?:[A-Za-z]+[\s:=]+){0,3}["'\x60]?)([A-Za-z0-9/+]{32,64})(?:$|[^A-Za-z0-9/+=])`),
			triggers: []string{"AKIA", "ASIA", "ABIA", "ACCA"}},
		{kind: "aws_access_key", re: regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`),
			triggers: []string{"AKIA", "ASIA", "ABIA", "ACCA"}},
		// AWS_SECRET_ACCESS_KEY=…, aws_secret_access_key = … (credentials
		// files), "SecretAccessKey": "…" (STS and CLI JSON).
		{kind: "aws_secret_key", group: 2,
			re:       regexp.MustCompile(`(?i)((?:aws_?)?secret_?access_?key["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{16,})`),
			triggers: []string{"secret_access_key", "secretaccesskey"}, fold: true},
		{kind: "github_token", re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`),
			triggers: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
		{kind: "gitlab_token", re: regexp.MustCompile(`\bglpat-[A-Za-z0-9_\-]{20,}`),
			triggers: []string{"glpat-"}},
		{kind: "slack_token", re: regexp.MustCompile(`\bxox[abposre]-[A-Za-z0-9-]{10,}`),
			triggers: []string{"xox"}},
		{kind: "stripe_key", re: regexp.MustCompile(`\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b`),
			triggers: []string{"k_live_", "k_test_"}},
		{kind: "npm_token", re: regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`),
			triggers: []string{"npm_"}},
		{kind: "google_api_key", re: regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`),
			triggers: []string{"AIza"}},
		{kind: "huggingface_token", re: regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}\b`),
			triggers: []string{"hf_"}},
		{kind: "anthropic_key", re: regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_\-]{20,}`),
			triggers: []string{"sk-ant-"}},
		{kind: "openai_key", re: regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,}`),
			triggers: []string{"sk-"}},
		{kind: "jwt", re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
			triggers: []string{"eyJ"}},
		// Authorization: Bearer …, as a header line, a curl -H or JSON.
		{kind: "authorization", group: 2,
			re:       regexp.MustCompile(`(?i)(authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token)\s+)([A-Za-z0-9._~+/=-]{8,})`),
			triggers: []string{"authorization"}, fold: true},
		// name=value with no spaces around '=' (env files, URLs, command
		// lines); "token = f()" in code is deliberately not matched. A value
		// starting with $ or < is a reference or a placeholder, not a secret.
		{kind: "assignment", group: 2, skip: notSecret,
			re:  regexp.MustCompile(`(?i)\b(` + secretName + `=)([^\s"'\\,;&<>$][^\s"'\\,;&<>]{3,})`),
			pre: func(lower string) bool { return secretNameBefore(lower, '=') }},
		// The same in JSON: "password": "value".
		{kind: "assignment", group: 2, skip: notSecret,
			re:  regexp.MustCompile(`(?i)("` + secretName + `"\s*:\s*")([^"\\$<][^"\\]{3,})`),
			pre: func(lower string) bool { return secretNameBefore(lower, ':') }},
		// The same in YAML and config files: a line "password: value" (one
		// value, nothing after it), so "password: string;" in a type and
		// prose that mentions a password stay.
		{kind: "assignment", group: 2, skip: notSecret,
			re:  regexp.MustCompile(`(?im)^([ \t]*(?:- )?` + secretName + `[ \t]*:[ \t]+["']?)([^\s"'#$<{\[][^\s"'#]{3,})["']?[ \t]*\r?$`),
			pre: func(lower string) bool { return secretNameBefore(lower, ':') }},
		// A password said in prose: "my password is hunter2", "the admin
		// password for staging is 'S3cure!pass'". Only a value that looks
		// made up (see madeUp) is taken, so "the password is stored in
		// Vault" and "the password is hashed with bcrypt" stay.
		{kind: "password", group: 2, skip: func(v string) bool { return notSecret(v) || !madeUp(v) },
			re:       regexp.MustCompile(`(?i)(\b(?:password|passwd|passphrase|passcode)(?:\s+(?:for|of|on|to)(?:\s+[^\s.,;:!?]+){1,4}?)?\s+(?:is now|is set to|was changed to|has been changed to|is|was)\s+["'\x60]?)([^\s"'\x60]{2,}[^\s"'\x60.,;:?)])`),
			triggers: []string{"password", "passwd", "passphrase", "passcode"}, fold: true},
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
// per replacement. counts may be nil when the caller does not count. Text
// holding JSON string literals is redacted twice: as written, and each
// escaped literal decoded (a token spelled ghp\u005f… or a PEM block with
// \n escapes), re-encoded in place so JSON stays JSON.
func (r *Redactor) Redact(s string, counts map[string]int64) string {
	if r == nil || len(r.rules) == 0 || s == "" {
		return s
	}
	s = r.redactRaw(s, counts)
	if strings.Contains(s, `\`) && strings.Contains(s, `"`) {
		s = r.redactEscaped(s, counts)
	}
	return s
}

// anyJSONString matches every JSON string literal; only for text known
// to be JSON.
var anyJSONString = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
})

// redactEscaped is redactLiterals over the string literals of s that hold
// an escape, found by a scan instead of a regexp: most tool calls hold
// such literals (\n), and this runs on every one of them.
func (r *Redactor) redactEscaped(s string, counts map[string]int64) string {
	// First all escaped literals decoded and joined, redacted once: in the
	// usual case nothing in them is a secret and s is done.
	var joined strings.Builder
	forEscaped(s, func(i, end int) {
		var dec string
		if json.Unmarshal([]byte(s[i:end+1]), &dec) == nil {
			joined.WriteString(dec)
			joined.WriteByte('\n')
		}
	})
	// Redact, not redactRaw: a literal can hold JSON whose literals are
	// escaped again (Codex's arguments string), each level decoded in turn.
	if all := joined.String(); all == "" || r.Redact(all, nil) == all {
		return s
	}
	var b strings.Builder
	last := 0
	forEscaped(s, func(i, end int) {
		if red, ok := r.redactLiteral(s[i:end+1], counts); ok {
			b.WriteString(s[last:i])
			b.WriteString(red)
			last = end + 1
		}
	})
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// forEscaped calls fn with the span [i, end] of each string literal in s
// that holds an escape.
func forEscaped(s string, fn func(i, end int)) {
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		end, escaped := i+1, false
		for end < len(s) && s[end] != '"' {
			if s[end] == '\\' {
				escaped = true
				end++
			}
			end++
		}
		if end >= len(s) {
			break
		}
		if escaped {
			fn(i, end)
		}
		i = end
	}
}

// redactLiteral redacts the decoded text of one JSON string literal and
// returns its re-encoding, or false when nothing in it changed.
func (r *Redactor) redactLiteral(lit string, counts map[string]int64) (string, bool) {
	var dec string
	if json.Unmarshal([]byte(lit), &dec) != nil {
		return lit, false
	}
	red := r.Redact(dec, counts)
	if red == dec {
		return lit, false
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(red) != nil {
		return lit, false
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}

// redactLiterals redacts the decoded text of each JSON string literal re
// finds in s; a literal whose decoded text changes is replaced by the
// JSON encoding of the redacted text.
func (r *Redactor) redactLiterals(s string, re *regexp.Regexp, counts map[string]int64) string {
	return re.ReplaceAllStringFunc(s, func(lit string) string {
		red, _ := r.redactLiteral(lit, counts)
		return red
	})
}

// RedactEvent redacts every stored text field of ev: content, content_ref,
// speaker and metadata. Metadata stays valid JSON: when redacting it as
// written would break it, only its decoded string values are redacted.
func (r *Redactor) RedactEvent(ev *store.Event, counts map[string]int64) {
	if r == nil || len(r.rules) == 0 {
		return
	}
	ev.Content = r.Redact(ev.Content, counts)
	ev.ContentRef = r.Redact(ev.ContentRef, counts)
	ev.Speaker = r.Redact(ev.Speaker, counts)
	if len(ev.Metadata) > 0 {
		seen := map[string]int64{}
		md := r.Redact(string(ev.Metadata), seen)
		if !json.Valid([]byte(md)) {
			seen = map[string]int64{}
			md = r.redactLiterals(string(ev.Metadata), anyJSONString(), seen)
		}
		for k, n := range seen {
			if counts != nil {
				counts[k] += n
			}
		}
		ev.Metadata = json.RawMessage(md)
	}
}

func (r *Redactor) redactRaw(s string, counts map[string]int64) string {
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
	if ru.pre != nil {
		if *lower == "" {
			*lower = strings.ToLower(s)
		}
		return ru.pre(*lower)
	}
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
		if start < 0 || (ru.skip != nil && ru.skip(s[start:end])) {
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

// CountRedactions adds counts to the store's redactions table inside tx,
// the transaction that writes the redacted rows, so a rolled-back write
// counts nothing.
func CountRedactions(ctx context.Context, tx *store.Tx, counts map[string]int64) error {
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		if counts[k] == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO redactions(kind, count) VALUES (?,?)
			ON CONFLICT(kind) DO UPDATE SET count = count + excluded.count`, k, counts[k]); err != nil {
			return fmt.Errorf("count redactions %s: %w", k, err)
		}
	}
	return nil
}

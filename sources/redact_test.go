package sources

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

func TestRedactCatchesEachKind(t *testing.T) {
	r, err := NewRedactor(config.Redaction{Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kind, in, want string
	}{
		{"private_key", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc=\n-----END RSA PRIVATE KEY-----\nend",
			"key:\n[REDACTED:private_key]\nend"},
		{"private_key", `{"content":"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----"}`,
			`{"content":"[REDACTED:private_key]"}`},
		{"aws_access_key", "export AWS_ACCESS_KEY_ID AKIAIOSFODNN7EXAMPLE now", "export AWS_ACCESS_KEY_ID [REDACTED:aws_access_key] now"},
		{"github_token", "use ghp_16C7e42F292c6912E7710c838347Ae178B4a please", "use [REDACTED:github_token] please"},
		{"github_token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[REDACTED:github_token]"},
		{"gitlab_token", "glpat-xxxxXXXXxxxxXXXXxxxx", "[REDACTED:gitlab_token]"},
		{"slack_token", "xoxb-1234567890-abcdefghij", "[REDACTED:slack_token]"},
		{"stripe_key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "[REDACTED:stripe_key]"},
		{"anthropic_key", "ANTHROPIC_API_KEY sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123", "ANTHROPIC_API_KEY [REDACTED:anthropic_key]"},
		{"openai_key", "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD", "[REDACTED:openai_key]"},
		{"jwt", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
			"Bearer [REDACTED:jwt]"},
		{"assignment", "DB_PASSWORD=hunter22 ./run", "DB_PASSWORD=[REDACTED:assignment] ./run"},
		{"assignment", "curl 'https://x.test/?token=abcd1234&x=1'", "curl 'https://x.test/?token=[REDACTED:assignment]&x=1'"},
		{"assignment", `{"client_secret": "s3cr3t-value"}`, `{"client_secret": "[REDACTED:assignment]"}`},
		{"connection_string", "postgres://app:pa55word@db.internal:5432/app", "postgres://app:[REDACTED:connection_string]@db.internal:5432/app"},
		{"aws_secret_key", "aws secret: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws secret: [REDACTED:aws_secret_key]"},
		{"aws_secret_key", "rotate it with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY.", "rotate it with secret [REDACTED:aws_secret_key]."},
		{"aws_secret_key", "the aws_secret is `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`", "the aws_secret is `[REDACTED:aws_secret_key]`"},
		{"aws_secret_key", "creds AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "creds [REDACTED:aws_access_key] / [REDACTED:aws_secret_key]"},
		{"github_token", `{"arguments":"{\"command\":\"echo ghp\\u005f16C7e42F292c6912E7710c838347Ae178B4a\"}"}`, `{"arguments":"{\"command\":\"echo [REDACTED:github_token]\"}"}`},
	} {
		counts := map[string]int64{}
		got := r.Redact(tc.in, counts)
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.kind, got, tc.want)
		}
		if counts[tc.kind] != 1 {
			t.Errorf("%s: counts %v, want one %s", tc.kind, counts, tc.kind)
		}
	}
}

func TestRedactLeavesOrdinaryTextAlone(t *testing.T) {
	r, err := NewRedactor(config.Redaction{Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{
		"commit 3c8507b9a1f2e4d6c8b0a2e4f6d8c0b2a4e6f8d0 fixed it",                 // git SHA
		"request id 9f86d081884c7d659a2feaa0c55ad015",                              // hex id
		"session 55604662-cf2a-4331-851a-ec234028f8ca",                             // UUID
		"data: SGVsbG8gd29ybGQsIHRoaXMgaXMgYmFzZTY0IHRlc3QgZGF0YQ==",               // base64
		"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA", // png base64
		"max_tokens=4096 and token = getToken() and password: string",
		"token=$GITHUB_TOKEN and password=<your password>",
		"https://example.com/path?page=2",
		"sk-learn is a library; task-ant is not a key",
		"the user's password policy needs 12 chars",
		"the secret is in commit 3c8507b9a1f2e4d6c8b0a2e4f6d8c0b2a4e6f8d0 now", // a commit id after "secret"
		"the secret sauce is ReallyLongIdentifierNameWithoutDigitsOrSymbols",   // a word, not a key
	} {
		counts := map[string]int64{}
		if got := r.Redact(in, counts); got != in || len(counts) != 0 {
			t.Errorf("ordinary text changed:\n  in %q\n got %q (%v)", in, got, counts)
		}
	}
}

func TestRedactionConfig(t *testing.T) {
	off, err := NewRedactor(config.Redaction{Enabled: false})
	if err != nil {
		t.Fatal(err)
	}
	if in := "AKIAIOSFODNN7EXAMPLE"; off.Redact(in, nil) != in {
		t.Error("redaction.enabled=false still redacted")
	}
	extra, err := NewRedactor(config.Redaction{Enabled: true, Patterns: []config.RedactionPattern{{Kind: "ticket", Regex: `TKT-[0-9]{6}`}}})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	if got := extra.Redact("see TKT-123456", counts); got != "see [REDACTED:ticket]" || counts["ticket"] != 1 {
		t.Errorf("extra pattern: %q %v", got, counts)
	}
	_, err = NewRedactor(config.Redaction{Enabled: true, Patterns: []config.RedactionPattern{{Kind: "x", Regex: `(`}}})
	if err == nil || !strings.Contains(err.Error(), "redaction.patterns[0].regex") {
		t.Errorf("bad pattern: %v; want the field path", err)
	}
}

// Secrets never land: the stored content is redacted and the count is in
// the redactions table; tool input JSON stays valid JSON.
func TestCopiedSecretsNeverLand(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	src, dir := claudeHome(t, "/w/app")
	path := filepath.Join(dir, "s.jsonl")
	tool := `{"type":"assistant","sessionId":"s","cwd":"/w/app","message":{"id":"m1","role":"assistant","content":[` +
		`{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"curl -H 'Authorization: Bearer ghp_16C7e42F292c6912E7710c838347Ae178B4a' https://api"}}]}}` + "\n"
	writeFile(t, path, append(userLine("s", "/w/app", "my key is AKIAIOSFODNN7EXAMPLE"), []byte(tool)...))
	c, _ := newCopier(t, db, src)
	rep := copyAll(t, c)
	// The key is in the content and, through the helper's uuid, in the
	// metadata: both are redacted.
	if rep.Redacted["aws_access_key"] != 2 || rep.Redacted["github_token"] != 1 {
		t.Errorf("report redacted %v", rep.Redacted)
	}
	var leaked int
	db.QueryRow(`SELECT count(*) FROM session_events WHERE content LIKE '%AKIA%' OR content LIKE '%ghp_%'`).Scan(&leaked)
	if leaked != 0 {
		t.Errorf("%d events still hold a secret", leaked)
	}
	var ct string
	db.QueryRow(`SELECT content_type FROM session_events WHERE event_type = 'tool_call'`).Scan(&ct)
	if ct != "json" {
		t.Errorf("redacted tool call content_type %q, want json (still valid)", ct)
	}
	var n int64
	if err := db.QueryRow(`SELECT count FROM redactions WHERE kind = 'github_token'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("redactions table github_token = %d (%v)", n, err)
	}
	// Re-reading the same lines must not count them twice.
	if _, err := c.CopyFile(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	db.QueryRow(`SELECT count FROM redactions WHERE kind = 'github_token'`).Scan(&n)
	if n != 1 {
		t.Errorf("redaction counted %d times after a second copy", n)
	}
}

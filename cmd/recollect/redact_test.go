package main

import (
	"strings"
	"testing"
)

// record redacts what it stores, from flags and from a hook payload, with
// the copier's redactor; ordinary text passes unchanged and secrets never
// become entities.
func TestRecordRedactsEveryWritePath(t *testing.T) {
	const token = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	cases := []struct {
		name, stdin string
		args        []string
		secrets     []string
	}{
		{"flag", "", []string{"record", "--content", "Ana's login: password=hunter2hunter2 and token " + token + " for the Tailwind deploy."},
			[]string{"hunter2hunter2", token}},
		{"speaker", "", []string{"record", "--content", "Ana deploys on Fridays.", "--speaker", "AKIAIOSFODNN7EXAMPLE"},
			[]string{"AKIAIOSFODNN7EXAMPLE"}},
		{"aws secret in prose", "", []string{"record", "--content", "Use the AWS key AKIAIOSFODNN7EXAMPLE with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY for the backups."},
			[]string{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI"}},
		{"hook prompt", `{"session_id":"h1","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"use sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123 for the Claude calls"}`,
			[]string{"record"}, []string{"abcdefghijklmnopqrstuvwxyz0123"}},
		{"hook tool input with escapes", `{"session_id":"h2","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash",` +
			`"tool_input":{"command":"export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},"tool_response":{"stdout":"token ghp\u005f16C7e42F292c6912E7710c838347Ae178B4a"}}`,
			[]string{"record"}, []string{"wJalrXUtnFEMI", "16C7e42F292c6912"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if code, _, errs := run(t, tc.stdin, append(tc.args, "--data", dir)...); code != 0 {
				t.Fatalf("record: exit %d: %s", code, errs)
			}
			for _, s := range tc.secrets {
				if n := count(t, dir, `SELECT count(*) FROM session_events WHERE instr(content || coalesce(speaker,'') || coalesce(metadata,''), '`+s+`') > 0`); n != 0 {
					t.Errorf("%q stored verbatim in %d events", s, n)
				}
			}
			if n := count(t, dir, `SELECT coalesce(sum(count), 0) FROM redactions`); n < len(tc.secrets) {
				t.Errorf("redactions table counts %d, want at least %d", n, len(tc.secrets))
			}
			if code, _, errs := run(t, "", "consolidate", "--data", dir); code != 0 {
				t.Fatalf("consolidate: exit %d: %s", code, errs)
			}
			for _, s := range tc.secrets {
				if n := count(t, dir, `SELECT (SELECT count(*) FROM entities WHERE instr(name, '`+s+`') > 0)
					+ (SELECT count(*) FROM facts WHERE instr(content, '`+s+`') > 0)
					+ (SELECT count(*) FROM session_facts WHERE instr(content, '`+s+`') > 0)`); n != 0 {
					t.Errorf("%q reached %d facts or entities", s, n)
				}
			}
			if n := count(t, dir, `SELECT count(*) FROM entities WHERE name LIKE '%REDACTED%'`); n != 0 {
				t.Errorf("the redaction marker became an entity")
			}
		})
	}
}

func TestRecordLeavesOrdinaryTextAlone(t *testing.T) {
	dir := t.TempDir()
	text := "The token budget is max_tokens=4096; the password policy needs 12 characters."
	if code, _, errs := run(t, "", "record", "--data", dir, "--content", text); code != 0 {
		t.Fatalf("record: exit %d: %s", code, errs)
	}
	if n := count(t, dir, `SELECT count(*) FROM session_events WHERE content = '`+strings.ReplaceAll(text, "'", "''")+`'`); n != 1 {
		t.Errorf("ordinary text changed on the way in")
	}
	if n := count(t, dir, `SELECT count(*) FROM redactions`); n != 0 {
		t.Errorf("%d redaction kinds counted for ordinary text", n)
	}
}

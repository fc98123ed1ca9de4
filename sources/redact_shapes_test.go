package sources

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/storetest"
)

func builtinRedactor(t testing.TB) *Redactor {
	t.Helper()
	r, err := NewRedactor(config.Redaction{Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The shapes the adversarial pass found unredacted: each must lose its
// secret (and only its secret) and be counted once under its kind.
func TestRedactCatchesMoreShapes(t *testing.T) {
	r := builtinRedactor(t)
	for _, tc := range []struct {
		name, kind, in, want, secret string
	}{
		{"aws env", "aws_secret_key", "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
			"export AWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_key]", "wJalrXUtnFEMI"},
		{"aws credentials file", "aws_secret_key", "[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
			"[default]\naws_secret_access_key = [REDACTED:aws_secret_key]\n", "wJalrXUtnFEMI"},
		{"aws json", "aws_secret_key", `{"Credentials": {"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "Expiration": "x"}}`,
			`{"Credentials": {"SecretAccessKey": "[REDACTED:aws_secret_key]", "Expiration": "x"}}`, "wJalrXUtnFEMI"},
		{"pem cut short", "private_key", "here:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq7BFUKpyQ8Ww\nZ3Bf0dFhe0mPkPq3Q0N+aGVsbG8=\n",
			"here:\n[REDACTED:private_key]\n", "MIIEowIBAAKCAQEA"},
		{"pem cut short, escaped", "private_key", `{"content":"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\nAAAAB3NzaC1yc2E"}`,
			`{"content":"[REDACTED:private_key]"}`, "b3BlbnNzaC1rZXkt"},
		{"yaml password", "assignment", "database:\n  user: app\n  password: hunter2secret\n",
			"database:\n  user: app\n  password: [REDACTED:assignment]\n", "hunter2secret"},
		{"bearer header", "authorization", "curl -H 'Authorization: Bearer abcdef0123456789abcdef' https://api",
			"curl -H 'Authorization: Bearer [REDACTED:authorization]' https://api", "abcdef0123456789"},
		{"bearer json", "authorization", `{"headers":{"Authorization":"Bearer abcdef0123456789abcdef"}}`,
			`{"headers":{"Authorization":"Bearer [REDACTED:authorization]"}}`, "abcdef0123456789"},
		{"secret key base", "assignment", "SECRET_KEY_BASE=9f8e7d6c5b4a39281706f5e4d3c2b1a0 rails s",
			"SECRET_KEY_BASE=[REDACTED:assignment] rails s", "9f8e7d6c5b4a"},
		{"json escapes", "github_token", `{"command":"echo ghp\u005f16C7e42F292c6912E7710c838347Ae178B4a"}`,
			`{"command":"echo [REDACTED:github_token]"}`, "16C7e42F292c6912"},
		{"url credentials", "connection_string", "https://deploy:pa55w0rd-x@git.example.com/repo.git",
			"https://deploy:[REDACTED:connection_string]@git.example.com/repo.git", "pa55w0rd"},
		{"npm token", "npm_token", "//registry.npmjs.org/:_authToken npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
			"//registry.npmjs.org/:_authToken [REDACTED:npm_token]", "a1B2c3D4e5F6"},
		{"google api key", "google_api_key", "key AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q please",
			"key [REDACTED:google_api_key] please", "SyA1b2C3d4"},
		{"password in prose", "password", "My password is hunter2 on that box.",
			"My password is [REDACTED:password] on that box.", "hunter2"},
		{"password in prose, quoted", "password", "The admin password for the staging db is 'S3cure!pass', ask Ana.",
			"The admin password for the staging db is '[REDACTED:password]', ask Ana.", "S3cure"},
		{"password changed", "password", "the wifi passphrase was changed to BlueHorse",
			"the wifi passphrase was changed to [REDACTED:password]", "BlueHorse"},
		{"hugging face token", "huggingface_token", "HF token hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH ok",
			"HF token [REDACTED:huggingface_token] ok", "aBcDeFgHiJkLmNoP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			counts := map[string]int64{}
			got := r.Redact(tc.in, counts)
			if got != tc.want {
				t.Errorf("\n got %q\nwant %q", got, tc.want)
			}
			if strings.Contains(got, tc.secret) {
				t.Errorf("secret %q still in %q", tc.secret, got)
			}
			if counts[tc.kind] != 1 {
				t.Errorf("counts %v, want one %s", counts, tc.kind)
			}
			if json.Valid([]byte(tc.in)) && !json.Valid([]byte(got)) {
				t.Errorf("JSON became invalid: %q", got)
			}
		})
	}
}

// Prose and code near the new shapes stay as they are.
func TestRedactNewShapesLeaveOrdinaryTextAlone(t *testing.T) {
	r := builtinRedactor(t)
	for _, in := range []string{
		"interface Login {\n  password: string;\n  token: string | null;\n}",
		"def login(password: str, token: Optional[str] = None):",
		"password: ${{ secrets.DB_PASSWORD }}",
		"password: \"{{ vault_db_password }}\"",
		"The password: change it every ninety days, please",
		"max_tokens=4096 and token_count=12 and tokenizer=cl100k_base",
		"Set AWS_SECRET_ACCESS_KEY=$AWS_SECRET in the CI settings",
		"the Authorization: header carries a bearer token",
		"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
		`{"path":"C:\\Users\\dev\\npm_modules\\hf_cache","note":"line\nbreak"}`,
		"see https://example.com:8080/docs and ssh://git@github.com/o/r.git",
		"npm_config_cache and hf_hub_download() and AIza is a prefix",
		"secret_santa: yes",
		"The password is stored in Vault and rotated monthly.",
		"The password is hashed with bcrypt before it is saved.",
		"the password for the admin user is required",
		"My PIN is 4821 and the password is the same as before.",
		"Password is Vault-managed.",
	} {
		counts := map[string]int64{}
		if got := r.Redact(in, counts); got != in || len(counts) != 0 {
			t.Errorf("ordinary text changed:\n  in %q\n got %q (%v)", in, got, counts)
		}
	}
}

// Every stored field of an event is redacted, and metadata stays JSON.
func TestRedactEventEveryField(t *testing.T) {
	r := builtinRedactor(t)
	ev := store.Event{
		Content:    `{"name":"Bash","input":{"command":"export TOKEN=ghp\u005f16C7e42F292c6912E7710c838347Ae178B4a"}}`,
		ContentRef: "https://bob:s3cretpass@files.example/report.pdf",
		Speaker:    "bot AKIAIOSFODNN7EXAMPLE",
		Metadata:   json.RawMessage(`{"env":{"GITHUB_TOKEN":"ghp_16C7e42F292c6912E7710c838347Ae178B4a"},"url":"postgres://u:pw123456@db/x"}`),
	}
	counts := map[string]int64{}
	r.RedactEvent(&ev, counts)
	all := ev.Content + ev.ContentRef + ev.Speaker + string(ev.Metadata)
	for _, secret := range []string{"16C7e42F292c6912", "s3cretpass", "AKIAIOSFODNN7EXAMPLE", "pw123456"} {
		if strings.Contains(all, secret) {
			t.Errorf("%q survived in %+v", secret, ev)
		}
	}
	if !json.Valid([]byte(ev.Content)) || !json.Valid(ev.Metadata) {
		t.Errorf("JSON fields became invalid: %s / %s", ev.Content, ev.Metadata)
	}
	if counts["github_token"] != 2 || counts["connection_string"] != 2 || counts["aws_access_key"] != 1 {
		t.Errorf("counts %v", counts)
	}
}

// The copy path redacts escaped tokens inside raw tool input, URLs in
// content_ref and text that lands in metadata.
func TestCopiedEscapedSecretsNeverLand(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	src, dir := claudeHome(t, "/w/app")
	path := filepath.Join(dir, "s.jsonl")
	tool := `{"type":"assistant","sessionId":"s","cwd":"/w/app","uuid":"a1","message":{"id":"m1","role":"assistant","content":[` +
		`{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"export AWS_SECRET_ACCESS_KEY\u003dwJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY; gh auth login --with-token ghp\u005f16C7e42F292c6912E7710c838347Ae178B4a"}}]}}` + "\n"
	image := `{"type":"user","sessionId":"s","cwd":"/w/app","uuid":"u2","message":{"role":"user","content":[` +
		`{"type":"image","source":{"type":"url","url":"https://bob:s3cretpass@img.example/x.png"}}]}}` + "\n"
	data := append([]byte(tool), image...)
	data = append(data, userLine("s", "/w/app", "password=hunter2hunter2")...) // the helper puts the text in uuid metadata too
	writeFile(t, path, data)
	c, _ := newCopier(t, db, src)
	copyAll(t, c)
	var leaked int
	if err := db.QueryRow(`SELECT count(*) FROM session_events WHERE content || coalesce(content_ref,'') || coalesce(metadata,'') || coalesce(speaker,'')
		LIKE '%wJalrXUtnFEMI%' OR content LIKE '%16C7e42F292c6912%' OR content_ref LIKE '%s3cretpass%' OR content LIKE '%s3cretpass%'
		OR metadata LIKE '%hunter2hunter2%' OR content LIKE '%hunter2hunter2%'`).Scan(&leaked); err != nil {
		t.Fatal(err)
	}
	if leaked != 0 {
		t.Errorf("%d events still hold a secret", leaked)
	}
	var ct string
	db.QueryRow(`SELECT content_type FROM session_events WHERE event_type = 'tool_call'`).Scan(&ct)
	if ct != "json" {
		t.Errorf("redacted tool call content_type %q, want json (still valid)", ct)
	}
}

package config

import (
	"strings"
	"testing"
)

// TestDescribeCannotBeForged: what trust shows escapes every control
// character, shows hosts by their parts and names each secret it sends.
func TestDescribeCannotBeForged(t *testing.T) {
	cfg := Default()
	cfg.Embedding = Embedding{Provider: "http", Model: "m\x1b[2K", BaseURL: "http://x.example:8443/v1\r\x1b[1Asends: nothing", APIKeyEnv: "GITHUB_TOKEN", BatchSize: 32}
	cfg.Intelligence.Provider = "http"
	cfg.Intelligence.HTTP.BaseURL = "https://api.example.com/v1"
	cfg.Intelligence.HTTP.APIKeyEnv = "OPENAI_API_KEY"
	text := strings.Join(Describe(cfg), "\n")
	for _, r := range text {
		if r == '\x1b' || r == '\r' {
			t.Fatalf("Describe printed a raw control character:\n%q", text)
		}
	}
	for _, want := range []string{
		`sends: the value of $GITHUB_TOKEN, as its API key, to "http://x.example:8443/v1\r\x1b[1Asends: nothing" (not a URL with a host)`,
		`sends: the value of $OPENAI_API_KEY, as its API key, to scheme "https", host "api.example.com", port "443", path "/v1"`,
		`model "m\x1b[2K"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("Describe lacks %q:\n%s", want, text)
		}
	}
}

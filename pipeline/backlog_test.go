package pipeline

import (
	"strings"
	"testing"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/store/config"
)

// TestBacklogPolicy pins which routes let a backlog drain: only those
// that cost nothing per call, unless scheduler.backlog says otherwise.
func TestBacklogPolicy(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(c *config.Config)
		env   string
		drain bool
		why   string
	}{
		{"heuristic", func(c *config.Config) {}, "", true, "every model route runs on this machine"},
		{"ollama", func(c *config.Config) { c.Intelligence.Provider = "ollama" }, "", true, "every model route runs on this machine"},
		{"http on loopback", func(c *config.Config) {
			c.Intelligence.Provider, c.Intelligence.HTTP.BaseURL = "http", "http://127.0.0.1:8080/v1"
		}, "", true, "every model route runs on this machine"},
		{"http elsewhere", func(c *config.Config) {
			c.Intelligence.Provider, c.Intelligence.HTTP.BaseURL = "http", "https://api.example.com/v1"
		}, "", false, "stage extract runs on http at https://api.example.com/v1 (not this machine)"},
		{"cli", func(c *config.Config) { c.Intelligence.Provider = "cli" }, "", false, "stage extract runs on cli (claude, billed per call)"},
		{"one stage on cli", func(c *config.Config) {
			c.Intelligence.Stages = map[string]config.StageRoute{"supersede": {Provider: "cli"}}
		}, "", false, "stage supersede runs on cli"},
		{"on_fail on cli", func(c *config.Config) {
			c.Intelligence.Provider = "ollama"
			c.Intelligence.Stages = map[string]config.StageRoute{"extract": {OnFail: "cli"}}
		}, "", false, "stage extract runs on cli"},
		{"kill-switch", func(c *config.Config) { c.Intelligence.Provider = "cli" }, "heuristic", true, "every model route runs on this machine"},
		{"remote embeddings", func(c *config.Config) {
			c.Embedding = config.Embedding{Provider: "http", Model: "m", BaseURL: "https://api.example.com/v1", BatchSize: 8}
		}, "", false, "embeddings come from https://api.example.com/v1"},
		{"gated by config", func(c *config.Config) { c.Scheduler.Backlog = "gated" }, "", false, "scheduler.backlog is gated"},
		{"drain by config", func(c *config.Config) { c.Intelligence.Provider = "cli"; c.Scheduler.Backlog = "drain" }, "", true, "scheduler.backlog is drain"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			tc.edit(&cfg)
			p := openConfigured(t, cfg, func(k string) string {
				if k == model.EnvProvider {
					return tc.env
				}
				return ""
			})
			pol := p.BacklogPolicy()
			if pol.Drain != tc.drain || !strings.Contains(pol.Why, tc.why) {
				t.Fatalf("policy = %+v, want drain=%v and why containing %q", pol, tc.drain, tc.why)
			}
		})
	}
}

package model

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/recollect/recollect/store/config"
)

// Spending names the first model route of a run that may be charged per
// token: a stage (or its on_fail fallback) on the cli provider, or on an
// http host that is not this machine. It returns "" when every route runs
// locally — the heuristic, ollama, or an OpenAI-compatible host on a
// loopback address — so that a backlog costs time, not money.
func (r *Router) Spending() string {
	for _, stage := range config.Stages {
		for _, p := range []string{r.ProviderFor(stage), r.onFail(stage)} {
			if p == "" || r.localProvider(p) {
				continue
			}
			return fmt.Sprintf("stage %s runs on %s", stage, describeProvider(p, r.cfg))
		}
	}
	return ""
}

// localProvider reports whether provider p costs nothing per call.
func (r *Router) localProvider(p string) bool {
	switch p {
	case "heuristic", "ollama":
		return true
	case "http":
		return LoopbackURL(r.cfg.HTTP.BaseURL)
	}
	return false
}

func describeProvider(p string, cfg config.Intelligence) string {
	switch p {
	case "http":
		return fmt.Sprintf("http at %s (not this machine)", cfg.HTTP.BaseURL)
	case "cli":
		return fmt.Sprintf("cli (%s, billed per call)", cfg.CLI.Command)
	}
	return p
}

// LoopbackURL reports whether raw is an http(s) URL whose host is this
// machine (localhost or a loopback address).
func LoopbackURL(raw string) bool {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

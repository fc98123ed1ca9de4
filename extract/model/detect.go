package model

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/recollect/recollect/store/config"
)

// Detection is the provider init chose and why.
type Detection struct {
	// Provider is cli, http or heuristic.
	Provider string
	// Model is the http model to pin, when one was found.
	Model string
	// Why is one sentence for the user.
	Why string
}

// Apply writes the detection into cfg.
func (d Detection) Apply(cfg *config.Intelligence) {
	cfg.Provider = d.Provider
	if d.Model != "" {
		cfg.HTTP.Model = d.Model
	}
}

// DetectTimeout bounds the probe of the default OpenAI-compatible host.
const DetectTimeout = 1500 * time.Millisecond

// DetectDefault picks the provider init writes: the Claude Code CLI when
// cfg.CLI.Command is on the PATH lookPath searches; else the
// OpenAI-compatible host at cfg.HTTP.BaseURL when it offers exactly one chat
// model; else the heuristic. The probe takes at most DetectTimeout; client
// nil means a plain http.Client.
func DetectDefault(ctx context.Context, cfg config.Intelligence, lookPath func(string) (string, error), client *http.Client) Detection {
	if path, err := lookPath(cfg.CLI.Command); err == nil {
		return Detection{Provider: "cli", Why: fmt.Sprintf("found %s at %s, so facts are extracted by Claude Code (model %s)", cfg.CLI.Command, path, cfg.CLI.Model)}
	}
	noCLI := fmt.Sprintf("no %s on PATH", cfg.CLI.Command)
	if client == nil {
		client = &http.Client{}
	}
	ctx, cancel := context.WithTimeout(ctx, DetectTimeout)
	defer cancel()
	oc := openai.DefaultConfig("")
	oc.BaseURL = strings.TrimRight(cfg.HTTP.BaseURL, "/")
	oc.HTTPClient = client
	list, err := openai.NewClientWithConfig(oc).ListModels(ctx)
	if err != nil {
		return Detection{Provider: "heuristic", Why: fmt.Sprintf("%s and no OpenAI-compatible host answered at %s, so facts are extracted by the built-in heuristic (no model: the user's statements verbatim, and the fixes, decisions, plans and commits an agent's transcript records); set intelligence.provider to use a model later", noCLI, cfg.HTTP.BaseURL)}
	}
	var names []string
	for _, m := range list.Models {
		names = append(names, m.ID)
	}
	chat := ChatModels(names)
	switch len(chat) {
	case 0:
		return Detection{Provider: "heuristic", Why: fmt.Sprintf("%s and the host at %s offers no chat model, so facts are extracted by the built-in heuristic; pull a chat model and set intelligence.provider to http", noCLI, cfg.HTTP.BaseURL)}
	case 1:
		return Detection{Provider: "http", Model: chat[0], Why: fmt.Sprintf("%s; the OpenAI-compatible host at %s offers one chat model, %s, pinned as intelligence.http.model", noCLI, cfg.HTTP.BaseURL, chat[0])}
	}
	return Detection{Provider: "heuristic", Why: fmt.Sprintf("%s and the host at %s offers %d chat models (%s); recollect does not guess, so facts are extracted by the built-in heuristic until you set intelligence.provider to http and intelligence.http.model to one of them",
		noCLI, cfg.HTTP.BaseURL, len(chat), strings.Join(chat, ", "))}
}

// LookPathIn returns a lookPath that searches the directories of path (a
// PATH value) for an executable, so callers can search an environment that
// is not the process's own.
func LookPathIn(path string) func(string) (string, error) {
	return func(name string) (string, error) {
		if name == "" {
			return "", exec.ErrNotFound
		}
		if strings.ContainsRune(name, filepath.Separator) {
			return exec.LookPath(name)
		}
		for _, dir := range filepath.SplitList(path) {
			if dir == "" {
				continue
			}
			p := filepath.Join(dir, name)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				return p, nil
			}
		}
		return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
	}
}

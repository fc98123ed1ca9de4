package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/sources"
	"github.com/recollect/recollect/store/config"
)

// asker asks one question at a time on a terminal, re-asking until the
// answer is valid: a bad answer costs one line, not the whole walk-through.
type asker struct {
	in  *bufio.Reader
	out io.Writer
}

func newAsker(env Env) *asker { return &asker{in: bufio.NewReader(env.Stdin), out: env.Stdout} }

// ask prints q with its default and returns the first answer check
// accepts (the default for an empty line). check returns why an answer is
// refused; it may also normalise the answer. Input that ends before a
// valid answer is a usage error naming the question.
func (a *asker) ask(q, def string, check func(string) (string, error)) (string, error) {
	for {
		fmt.Fprintf(a.out, "%s [%s]: ", q, def)
		line, err := a.in.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read answer: %w", err)
		}
		ans := strings.TrimSpace(line)
		if ans == "" {
			ans = def
		}
		got, cerr := ans, error(nil)
		if check != nil {
			got, cerr = check(ans)
		}
		if cerr == nil {
			return got, nil
		}
		fmt.Fprintf(a.out, "  %v\n", cerr)
		if errors.Is(err, io.EOF) {
			return "", usagef("init: %q: %v (the answers ended)", q, cerr)
		}
	}
}

func oneOf(choices ...string) func(string) (string, error) {
	return func(ans string) (string, error) {
		for _, c := range choices {
			if strings.EqualFold(ans, c) {
				return c, nil
			}
		}
		list := strings.Join(choices, " or ")
		if len(choices) > 2 {
			list = "one of " + strings.Join(choices, ", ")
		}
		return "", fmt.Errorf("answer %s, not %q", list, ans)
	}
}

func yesNo(ans string) (string, error) {
	switch strings.ToLower(ans) {
	case "y", "yes":
		return "y", nil
	case "n", "no":
		return "n", nil
	}
	return "", fmt.Errorf("answer y or n, not %q", ans)
}

// absDir accepts an absolute path (symlinks resolved when it exists) or
// "all".
func absDir(ans string) (string, error) {
	if ans == "all" {
		return "", nil
	}
	if !filepath.IsAbs(ans) && !strings.HasPrefix(ans, "~/") {
		return "", fmt.Errorf("give the project's absolute path (e.g. /home/you/src/app), or all; not %q", ans)
	}
	return resolvePath(ans), nil
}

// resolvePath resolves symlinks when the path exists, so a project opened
// through a link matches the cwd its transcripts record.
func resolvePath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// walkThrough asks the questions that shape a store's config.
func walkThrough(env Env, cfg config.Config) (config.Config, error) {
	return walkConfig(newAsker(env), env, cfg)
}

// walkConfig asks for the mode (copy by default when this project's
// transcripts exist), the source, embeddings and the prompt hook.
func walkConfig(a *asker, env Env, cfg config.Config) (config.Config, error) {
	cwd, _ := os.Getwd()
	cwd = resolvePath(cwd)
	defMode, defKind := "record", "claude-code"
	agents := installedAgents(env.Getenv)
	if len(agents) > 0 {
		names := make([]string, len(agents))
		for i, ag := range agents {
			names[i] = ag.kind + " (" + ag.home + ")"
		}
		fmt.Fprintf(a.out, "Agents installed here: %s.\n", strings.Join(names, ", "))
		defKind = agents[0].kind
	}
	if kind, n := projectTranscripts(cwd, env.Getenv); n > 0 {
		defMode, defKind = "copy", kind
		fmt.Fprintf(a.out, "Found %s of this project (%s).\n", text.Plural(n, kind+" transcript"), cwd)
	}
	mode, err := a.ask("Copy an agent's transcripts (copy) or take events from the assistant's records (record)?", defMode, oneOf("copy", "record"))
	if err != nil {
		return cfg, err
	}
	cfg.Mode = config.Mode(mode)
	if cfg.Mode == config.ModeCopy {
		kind, err := a.ask("Transcript kind ("+strings.Join(config.SourceKinds, ", ")+")?", defKind, oneOf(config.SourceKinds...))
		if err != nil {
			return cfg, err
		}
		defHome := map[string]string{"claude-code": "~/.claude", "cursor": "~/.cursor", "codex": "~/.codex", "gemini": "~/.gemini"}[kind]
		home, err := a.ask("Where the agent keeps its data (home)?", defHome, nil)
		if err != nil {
			return cfg, err
		}
		proj, err := a.ask("Only this project's conversations (absolute path, or 'all')?", cwd, absDir)
		if err != nil {
			return cfg, err
		}
		cfg.Sources = []config.Source{{Kind: kind, Home: home, Cwd: proj}}
		for _, ag := range agents {
			if ag.kind == kind {
				continue
			}
			// Offered as yes only when that agent holds transcripts of
			// this project; an agent that holds none says so.
			def, held := "y", ""
			if n := kindTranscripts(ag.kind, proj, env.Getenv); n == 0 {
				def, held = "n", ", which holds none of this project's yet"
			} else {
				held = ", which holds " + text.Plural(n, "transcript") + " of this project"
			}
			also, err := a.ask("Also copy "+ag.kind+" transcripts ("+ag.home+held+") (y/n)?", def, yesNo)
			if err != nil {
				return cfg, err
			}
			if also == "y" {
				cfg.Sources = append(cfg.Sources, config.Source{Kind: ag.kind, Cwd: proj})
			}
		}
	}
	sem, err := a.ask("Semantic search with a local Ollama embedding model (y/n)?", "n", yesNo)
	if err != nil {
		return cfg, err
	}
	if sem == "y" {
		cfg.Embedding.Provider = "ollama"
		cfg.Embedding.Model = "nomic-embed-text"
		cfg.Embedding.BaseURL = "http://localhost:11434"
	}
	prompt, err := a.ask("Add the few remembered facts relevant to each prompt to the agent's context (UserPromptSubmit hook, context.prompt) (y/n)?", "n", yesNo)
	if err != nil {
		return cfg, err
	}
	cfg.Context.Prompt = prompt == "y"
	return cfg, nil
}

// agentHome is an agent found installed: its source kind and home.
type agentHome struct{ kind, home string }

// installedAgents lists the agents whose home folder exists (~/.claude,
// ~/.cursor, ~/.codex, ~/.gemini, or their environment overrides), in the
// order of config.SourceKinds. Without HOME it finds none rather than
// guess.
func installedAgents(getenv func(string) string) []agentHome {
	if getenv("HOME") == "" {
		return nil
	}
	var out []agentHome
	for _, kind := range config.SourceKinds {
		reps, err := sources.Diagnose([]config.Source{{Kind: kind}}, getenv)
		if err == nil && len(reps) == 1 && reps[0].HomeFound {
			out = append(out, agentHome{kind: kind, home: reps[0].Home})
		}
	}
	return out
}

// kindTranscripts counts the transcripts of one kind recorded in cwd
// ("" or "all": every project's).
func kindTranscripts(kind, cwd string, getenv func(string) string) int {
	if cwd == "all" {
		cwd = ""
	}
	reps, err := sources.Diagnose([]config.Source{{Kind: kind, Cwd: cwd}}, getenv)
	if err != nil || len(reps) != 1 {
		return 0
	}
	return reps[0].Matched
}

// projectTranscripts counts the transcripts recorded in cwd that a copy
// source would match, for the kind that has the most.
func projectTranscripts(cwd string, getenv func(string) string) (string, int) {
	best, bestN := "", 0
	for _, kind := range config.SourceKinds {
		reps, err := sources.Diagnose([]config.Source{{Kind: kind, Cwd: cwd}}, getenv)
		if err == nil && len(reps) == 1 && reps[0].Matched > bestN {
			best, bestN = kind, reps[0].Matched
		}
	}
	return best, bestN
}

// embeddingWarning says when embeddings are configured and their host does
// not answer, so semantic search is not silently off.
func embeddingWarning(ctx context.Context, e config.Embedding) string {
	if e.Provider != "ollama" || e.BaseURL == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	url := strings.TrimSuffix(e.BaseURL, "/") + "/api/tags"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err == nil {
		var resp *http.Response
		if resp, err = http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return ""
			}
			err = fmt.Errorf("status %s", resp.Status)
		}
	}
	return fmt.Sprintf("warning: embeddings use Ollama at %s, which does not answer (%v); semantic search stays off until it does (start Ollama, then: ollama pull %s)", e.BaseURL, err, e.Model)
}

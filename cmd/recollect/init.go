package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/hooks"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

func initCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "create a store: config.json with every default, the database, and the MCP and hook snippets",
		ArgsUsage: "[DIR]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "never prompt; write a record store with defaults"},
			&cli.BoolFlag{Name: "force", Usage: "replace an existing config.json"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usagef("init takes at most one directory, got %d arguments", c.NArg())
			}
			dir := c.Args().First()
			if dir != "" {
				abs, err := filepath.Abs(dir)
				if err != nil {
					return fmt.Errorf("init %s: %w", dir, err)
				}
				dir = abs
			} else {
				d, err := dataDir(c, env)
				if err != nil {
					return err
				}
				dir = d
			}
			return runInit(c.Context, env, dir, c.Bool("yes"), c.Bool("force"))
		},
	}
}

func runInit(ctx context.Context, env Env, dir string, yes, force bool) error {
	cfgPath := filepath.Join(dir, config.FileName)
	_, statErr := os.Stat(cfgPath)
	exists := statErr == nil
	if exists && !force {
		// Validate what is there, so init also answers "is my config OK?".
		if _, err := config.Load(dir); err != nil {
			return err
		}
		db, err := store.Open(ctx, dir)
		if err != nil {
			return err
		}
		db.Close()
		fmt.Fprintf(env.Stdout, "store already initialised at %s; left as it is (use --force to replace config.json)\n", dir)
		return printSnippets(env.Stdout, dir)
	}
	cfg := config.Default()
	if !yes && isTerminal(env.Stdin) {
		var err error
		if cfg, err = walkThrough(env, cfg); err != nil {
			return err
		}
	}
	det := detectProvider(ctx, env, cfg.Intelligence)
	det.Apply(&cfg.Intelligence)
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	db, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	if err := db.Close(); err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	if err := config.Write(dir, cfg); err != nil {
		return err
	}
	// The user made this config: it needs no recollect trust, even in a
	// project's .recollect/.
	if err := config.ApproveDir(dir, env.Getenv); err != nil {
		return err
	}
	verb := "created"
	if exists {
		verb = "replaced config of"
	}
	fmt.Fprintf(env.Stdout, "%s store at %s (%s mode, provider %s)\n", verb, dir, cfg.Mode, cfg.Intelligence.Provider)
	fmt.Fprintf(env.Stdout, "provider %s: %s\n", det.Provider, det.Why)
	return printSnippets(env.Stdout, dir)
}

func printSnippets(w io.Writer, dir string) error {
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this binary's path: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(bin); err == nil {
		bin = resolved
	}
	fmt.Fprintf(w, "\nMCP server (add to your client's MCP configuration):\n%s\n", hooks.MCPSnippet(bin, dir))
	hookBin, _ := hooks.HookBinary(bin)
	prompt := false
	if cfg, err := config.Load(dir); err == nil {
		prompt = cfg.Context.Prompt
	}
	entries := hooks.SettingsEntries(hooks.RecollectBeside(hookBin), hookBin, dir, prompt)
	fmt.Fprintf(w, "\nHooks (merge into .claude/settings.json, or run recollect hooks install):\n%s\n", hooks.SettingsSnippet(entries))
	if strings.Contains(bin, "go-build") {
		fmt.Fprintln(w, "\nnote: this binary is a temporary `go run` build; install it (go install -tags sqlite_fts5 ./cmd/...) and run init again for lasting paths")
	}
	return nil
}

// walkThrough asks the few questions that shape a store.
func walkThrough(env Env, cfg config.Config) (config.Config, error) {
	in := bufio.NewReader(env.Stdin)
	ask := func(q, def string) (string, error) {
		fmt.Fprintf(env.Stdout, "%s [%s]: ", q, def)
		line, err := in.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read answer: %w", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			return def, nil
		}
		return line, nil
	}
	mode, err := ask("Copy an agent's transcripts (copy) or take events from the assistant's records (record)?", "record")
	if err != nil {
		return cfg, err
	}
	switch mode {
	case "record":
	case "copy":
		cfg.Mode = "copy"
		kind, err := ask("Transcript kind: claude-code or cursor?", "claude-code")
		if err != nil {
			return cfg, err
		}
		defHome := "~/.claude"
		if kind == "cursor" {
			defHome = "~/.cursor"
		}
		home, err := ask("Where the agent keeps its data (home)?", defHome)
		if err != nil {
			return cfg, err
		}
		cwd, _ := os.Getwd()
		proj, err := ask("Only this project's conversations (absolute path, or 'all')?", cwd)
		if err != nil {
			return cfg, err
		}
		if proj == "all" {
			proj = ""
		}
		cfg.Sources = []config.Source{{Kind: kind, Home: home, Cwd: proj}}
	default:
		return cfg, usagef("init: answer copy or record, not %q", mode)
	}
	sem, err := ask("Semantic search with a local Ollama embedding model (y/n)?", "n")
	if err != nil {
		return cfg, err
	}
	if strings.HasPrefix(strings.ToLower(sem), "y") {
		cfg.Embedding.Provider = "ollama"
		cfg.Embedding.Model = "nomic-embed-text"
		cfg.Embedding.BaseURL = "http://localhost:11434"
	}
	prompt, err := ask("Add the few remembered facts relevant to each prompt to the agent's context (UserPromptSubmit hook, context.prompt) (y/n)?", "n")
	if err != nil {
		return cfg, err
	}
	cfg.Context.Prompt = strings.HasPrefix(strings.ToLower(prompt), "y")
	return cfg, nil
}

// detectProvider picks the provider a new store starts with: the
// kill-switch, else what extract.DetectDefault sees on this machine.
func detectProvider(ctx context.Context, env Env, in config.Intelligence) extract.Detection {
	if env.Getenv(extract.EnvProvider) == "heuristic" {
		return extract.Detection{Provider: "heuristic", Why: extract.EnvProvider + "=heuristic is set, so facts are extracted by the built-in heuristic"}
	}
	return extract.DetectDefault(ctx, in, extract.LookPathIn(env.Getenv("PATH")), nil)
}

package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/recollect/recollect/store"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/cmd/recollect/mcpserver"
	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/hooks/install"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/postgres"
)

func initCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "create a store: config.json with every default, the database, and the MCP and hook snippets",
		ArgsUsage: "[DIR]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "never prompt; write a store from the defaults and these flags"},
			&cli.BoolFlag{Name: "force", Usage: "replace an existing config.json"},
			&cli.StringFlag{Name: "mode", Usage: "record or copy (with --yes; the walk-through asks otherwise)"},
			&cli.StringFlag{Name: "source", Value: "claude-code", Usage: "with --mode copy: the transcript kind (claude-code, cursor, codex or gemini)"},
			&cli.StringFlag{Name: "home", Usage: "with --mode copy: where the agent keeps its data (default ~/.claude, ~/.cursor, ~/.codex or ~/.gemini)"},
			&cli.StringFlag{Name: "cwd", Usage: "with --mode copy: only this project's conversations (default: all)"},
			&cli.StringFlag{Name: "storage", Usage: "where the store lives: sqlite (memory.db in the data directory) or postgres (a schema on the server in $RECOLLECT_POSTGRES_URL); the walk-through asks when that variable is set"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usagef("init takes at most one directory, got %d arguments", c.NArg())
			}
			cfg, err := initFlags(c)
			if err != nil {
				return err
			}
			dir := c.Args().First()
			asked := dir != "" || c.IsSet("data")
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
			return runInit(c.Context, env, initOptions{dir: dir, dirGiven: asked, yes: c.Bool("yes"), force: c.Bool("force"), cfg: cfg, storageGiven: c.IsSet("storage")})
		},
	}
}

// initOptions is what init was told: the directory (and whether the user
// named it), --yes, --force and the config made from the flags.
type initOptions struct {
	dir        string
	dirGiven   bool
	yes, force bool
	cfg        config.Config
	// storageGiven is true when --storage chose the engine, so the
	// walk-through does not ask.
	storageGiven bool
}

// initFlags makes the starting config from --mode, --source, --home and
// --cwd, refusing what a config could not hold.
func initFlags(c *cli.Context) (config.Config, error) {
	cfg := config.Default()
	switch mode := c.String("mode"); mode {
	case "", "record":
		for _, f := range []string{"home", "cwd"} {
			if c.IsSet(f) {
				return cfg, usagef("init: --%s goes with --mode copy", f)
			}
		}
	case "copy":
		cfg.Mode = config.ModeCopy
		src := config.Source{Kind: c.String("source"), Home: c.String("home")}
		if cwd := c.String("cwd"); cwd != "" {
			abs, err := filepath.Abs(cwd)
			if err != nil {
				return cfg, fmt.Errorf("resolve --cwd %s: %w", cwd, err)
			}
			src.Cwd = resolvePath(abs)
		}
		cfg.Sources = []config.Source{src}
	default:
		return cfg, usagef("init: --mode %q is unknown; use record or copy", mode)
	}
	if c.IsSet("storage") {
		cfg.Storage.Provider = c.String("storage")
		if !slices.Contains(config.StorageProviders, cfg.Storage.Provider) {
			return cfg, usagef("init: --storage %q is unknown; use %s", cfg.Storage.Provider, strings.Join(config.StorageProviders, " or "))
		}
	}
	if err := cfg.Validate(); err != nil {
		return cfg, usagef("init: %v", err)
	}
	return cfg, nil
}

func runInit(ctx context.Context, env Env, o initOptions) error {
	dir, yes, force := o.dir, o.yes, o.force
	var a *asker
	if !yes && !isTerminal(env.Stdin) {
		fmt.Fprintln(env.Stdout, "no terminal to ask on: taking the defaults, as init --yes does (run init on a terminal to be asked)")
	}
	if !yes && isTerminal(env.Stdin) {
		a = newAsker(env)
		if !o.dirGiven {
			d, err := a.ask("Data directory (the store)?", dir, func(ans string) (string, error) {
				if strings.HasPrefix(ans, "~/") {
					ans = filepath.Join(env.Getenv("HOME"), ans[2:])
				}
				return filepath.Abs(ans)
			})
			if err != nil {
				return err
			}
			dir = d
		}
	}
	cfgPath := filepath.Join(dir, config.FileName)
	_, statErr := os.Stat(cfgPath)
	exists := statErr == nil
	// A project store that came from elsewhere (a cloned repository's) is
	// not made the user's by init: it must be approved first. --force
	// replaces the config with the user's own, but not the database.
	if config.Subject(dir, env.Getenv) {
		check := config.CheckProject
		if force {
			check = config.CheckStore
		}
		if err := check(dir, env.Getenv); err != nil {
			return err
		}
	}
	if exists && !force {
		// Validate what is there, so init also answers "is my config OK?".
		have, err := config.Load(dir)
		if err != nil {
			return err
		}
		db, err := pipeline.OpenStore(ctx, dir, have.Storage, env.Getenv)
		if err != nil {
			return err
		}
		db.Close()
		fmt.Fprintf(env.Stdout, "store already initialised at %s; left as it is (use --force to replace config.json)\n", dir)
		return printSnippets(env.Stdout, dir, env.Getenv)
	}
	cfg := o.cfg
	if a != nil {
		var err error
		if cfg, err = walkConfig(a, env, cfg); err != nil {
			return err
		}
		if !o.storageGiven && env.Getenv(postgres.DefaultURLEnv) != "" {
			q := fmt.Sprintf("Keep the store in memory.db here (sqlite) or in schema %s on the PostgreSQL server in $%s (postgres)?", postgres.DefaultSchema(dir), postgres.DefaultURLEnv)
			engine, err := a.ask(q, "sqlite", oneOf(config.StorageProviders...))
			if err != nil {
				return err
			}
			cfg.Storage.Provider = engine
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
	_, dbErr := os.Stat(filepath.Join(dir, store.DBFile))
	db, err := pipeline.OpenStore(ctx, dir, cfg.Storage, env.Getenv)
	if err != nil {
		return err
	}
	if errors.Is(dbErr, os.ErrNotExist) {
		if err := adoptStore(ctx, db, dir, env); err != nil {
			return errors.Join(err, db.Close())
		}
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
	if cfg.Storage.Provider == "postgres" {
		urlEnv, schema := cfg.Storage.Postgres.URLEnv, cfg.Storage.Postgres.Schema
		if urlEnv == "" {
			urlEnv = postgres.DefaultURLEnv
		}
		if schema == "" {
			schema = postgres.DefaultSchema(dir)
		}
		fmt.Fprintf(env.Stdout, "storage: schema %s on the PostgreSQL server in $%s (the URL is read from that variable, never written to config.json)\n", schema, urlEnv)
	}
	fmt.Fprintf(env.Stdout, "provider %s: %s\n", det.Provider, det.Why)
	if w := embeddingWarning(ctx, cfg.Embedding); w != "" {
		fmt.Fprintln(env.Stdout, w)
	}
	if cfg.Mode == config.ModeCopy {
		if err := offerBackfill(ctx, env, a, dir); err != nil {
			return err
		}
	}
	if err := printSnippets(env.Stdout, dir, env.Getenv); err != nil {
		return err
	}
	printNextSteps(env.Stdout, dir)
	return nil
}

// printNextSteps says what makes the store fill itself and reach agents.
func printNextSteps(w io.Writer, dir string) {
	fmt.Fprintf(w, "\nNext steps:\n"+
		"  1. keep it fed: recollect daemon --data %[1]s (or recollect service print --data %[1]s, to run it as a user service)\n"+
		"  2. hooks: recollect hooks install --local --project DIR --data %[1]s (DIR/.claude/settings.local.json, kept out of git; or --user)\n"+
		"  3. add the MCP server above to your client's MCP configuration\n", dir)
}

func printSnippets(w io.Writer, dir string, getenv func(string) string) error {
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this binary's path: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(bin); err == nil {
		bin = resolved
	}
	// Each store has its own server name, so two stores added to one
	// client do not replace each other.
	name := mcpserver.ServerName(dir, getenv("HOME"))
	fmt.Fprintf(w, "\nMCP server (add to your client's MCP configuration):\n%s\n", install.MCPSnippetNamed(name, bin, dir))
	hookBin, _ := install.HookBinary(bin)
	prompt := false
	if cfg, err := config.Load(dir); err == nil {
		prompt = cfg.Context.Prompt
	}
	entries := install.SettingsEntries(install.RecollectBeside(hookBin), hookBin, dir, prompt)
	fmt.Fprintf(w, "\nHooks (merge into .claude/settings.local.json, or run recollect hooks install --local):\n%s\n", install.SettingsSnippet(entries))
	if strings.Contains(bin, "go-build") {
		fmt.Fprintln(w, "\nnote: this binary is a temporary `go run` build; install it (go install -tags sqlite_fts5 ./cmd/...) and run init again for lasting paths")
	}
	return nil
}

// detectProvider picks the provider a new store starts with: the
// kill-switch, else what model.DetectDefault sees on this machine.
func detectProvider(ctx context.Context, env Env, in config.Intelligence) model.Detection {
	if env.Getenv(model.EnvProvider) == "heuristic" {
		return model.Detection{Provider: "heuristic", Why: model.EnvProvider + "=heuristic is set, so facts are extracted by the built-in heuristic"}
	}
	return model.DetectDefault(ctx, in, model.LookPathIn(env.Getenv("PATH")), nil)
}

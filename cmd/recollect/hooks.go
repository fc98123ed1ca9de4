package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/hooks/install"
)

func hooksCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "hooks",
		Usage: "the Claude Code hooks (PreCompact notify, SessionStart and opt-in UserPromptSubmit context), Cursor's stop hook and Codex's notify: print them, install them, or run the context hooks",
		Subcommands: append([]*cli.Command{
			{
				Name:  "print",
				Usage: "print the .claude/settings.json entries (absolute binary paths, --data, timeouts in seconds)",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "cursor", Usage: "print Cursor's hooks.json entry (stop → notify threshold) and its mcp.json entry instead"},
					&cli.BoolFlag{Name: "codex", Usage: "print Codex's config.toml notify line (notify threshold after each turn) and its MCP server table instead"},
					promptFlag,
				},
				Action: func(c *cli.Context) error {
					if c.Bool("cursor") {
						return printCursorHooks(c, env)
					}
					if c.Bool("codex") {
						return printCodexHooks(c, env)
					}
					return printSettingsHooks(c, env)
				},
			},
			{
				Name:  "install",
				Usage: "merge the entries into a settings file, keeping every other key and hook; writes a backup first",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "project", Usage: "install into `DIR`/.claude/settings.json, the file a team commits (with --local: settings.local.json)"},
					&cli.BoolFlag{Name: "local", Usage: "install into the project's .claude/settings.local.json, which Claude Code keeps out of git: this machine's paths stay on this machine (the project is --project DIR, else the current directory)"},
					&cli.BoolFlag{Name: "user", Usage: "install into ~/.claude/settings.json (or $CLAUDE_CONFIG_DIR/settings.json)"},
					&cli.BoolFlag{Name: "cursor", Usage: "install Cursor's stop hook (notify threshold) into DIR/.cursor/hooks.json or ~/.cursor/hooks.json, and the MCP server into the mcp.json beside it"},
					&cli.BoolFlag{Name: "codex", Usage: "set Codex's notify (notify threshold after each turn) in ~/.codex/config.toml (or $CODEX_HOME), changing only that line, and print the MCP server table"},
					&cli.BoolFlag{Name: "force", Usage: "with --codex: replace a notify that runs another program"},
					promptFlag,
				},
				Action: func(c *cli.Context) error { return installHook(c, env) },
			},
		}, contextHookCommands(env)...),
	}
}

func installHook(c *cli.Context, env Env) error {
	if c.Bool("cursor") && c.Bool("codex") {
		return usagef("hooks install: choose one of --cursor or --codex, not both")
	}
	if c.Bool("cursor") {
		return installCursorHook(c, env)
	}
	if c.Bool("codex") {
		return installCodexHook(c, env)
	}
	var path, which string
	switch {
	case c.IsSet("project") && c.Bool("user"), c.Bool("local") && c.Bool("user"):
		return usagef("hooks install: choose one of --project DIR, --local or --user")
	case c.IsSet("project") || c.Bool("local"):
		project := c.String("project")
		if project == "" {
			project = "."
		}
		dir, err := filepath.Abs(project)
		if err != nil {
			return fmt.Errorf("resolve --project %s: %w", project, err)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return usagef("hooks install: --project %s is not a directory; give the project's root", dir)
		}
		path = install.ProjectSettings(dir)
		which = "the project's shared settings, which a team commits: it now holds this machine's paths; --local writes " + install.LocalSettingsFile + " instead"
		if c.Bool("local") {
			path = install.ProjectLocalSettings(dir)
			which = "this machine's settings for the project, which Claude Code keeps out of git"
		}
	case c.Bool("user"):
		p, err := install.UserSettings(env.Getenv)
		if err != nil {
			return err
		}
		path = p
		which = "your settings for every project"
	default:
		return usagef("hooks install: say where: --local (this project's .claude/settings.local.json, kept out of git), --project DIR (that project's .claude/settings.json, shared) or --user (~/.claude/settings.json)")
	}
	bin, dir, err := hookBinaryAndData(c, env)
	if err != nil {
		return err
	}
	entries := install.Consistent(install.SettingsEntries(install.RecollectBeside(bin), bin, dir, wantPromptHook(c, env, dir)), bin, dir)
	res, err := install.Entries(path, entries, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "recollect hooks in %s (%s): %s", res.Path, which, entryActions(entries, res.Actions))
	switch {
	case res.Action == "unchanged":
		fmt.Fprintln(env.Stdout, "; nothing changed")
	case res.Backup != "":
		fmt.Fprintf(env.Stdout, " (backup: %s)\n", res.Backup)
	default:
		fmt.Fprintln(env.Stdout, " (new file)")
	}
	return nil
}

// hookBinaryAndData returns what the hook runs (recollect-notify beside
// this binary, else this binary) and the data directory.
func hookBinaryAndData(c *cli.Context, env Env) (string, string, error) {
	bin, dir, err := binaryAndData(c, env)
	if err != nil {
		return "", "", err
	}
	hookBin, ok := install.HookBinary(bin)
	if !ok && !strings.Contains(bin, "go-build") {
		fmt.Fprintf(env.Stderr, "recollect: note: no %s beside %s, so the hook runs `recollect notify`, which starts about three times slower; install both: go install -tags sqlite_fts5 ./cmd/...\n", install.NotifyBinaryName, bin)
	}
	return hookBin, dir, nil
}

// binaryAndData returns this binary's absolute path and the data
// directory, for snippets that must work from any working directory.
func binaryAndData(c *cli.Context, env Env) (string, string, error) {
	bin, err := os.Executable()
	if err != nil {
		return "", "", fmt.Errorf("find this binary's path: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(bin); err == nil {
		bin = resolved
	}
	if strings.Contains(bin, "go-build") {
		fmt.Fprintln(env.Stderr, "recollect: note: this binary is a temporary `go run` build; install it (go install -tags sqlite_fts5 ./cmd/...) and run this again for lasting paths")
	}
	// A snippet starts recollect on this store with no check of its own
	// (--data names it), so a project store is checked here.
	dir, err := trustedDataDir(c, env)
	if err != nil {
		return "", "", err
	}
	return bin, dir, nil
}

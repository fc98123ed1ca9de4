package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/hooks"
)

func hooksCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "hooks",
		Usage: "the Claude Code PreCompact hook that runs notify: print it, or install it into a settings file",
		Subcommands: append([]*cli.Command{
			{
				Name:  "print",
				Usage: "print the .claude/settings.json entry (absolute binary path, --data, timeout in seconds)",
				Action: func(c *cli.Context) error {
					bin, dir, err := hookBinaryAndData(c, env)
					if err != nil {
						return err
					}
					fmt.Fprintln(env.Stdout, hooks.HookSnippet(bin, dir))
					return nil
				},
			},
			{
				Name:  "install",
				Usage: "merge the entry into a settings file, keeping every other key and hook; writes a backup first",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "project", Usage: "install into `DIR`/.claude/settings.json"},
					&cli.BoolFlag{Name: "user", Usage: "install into ~/.claude/settings.json (or $CLAUDE_CONFIG_DIR/settings.json)"},
				},
				Action: func(c *cli.Context) error { return installHook(c, env) },
			},
		}, contextHookCommands(env)...),
	}
}

func installHook(c *cli.Context, env Env) error {
	var path string
	switch {
	case c.IsSet("project") && c.Bool("user"):
		return usagef("hooks install: choose one of --project DIR or --user, not both")
	case c.IsSet("project"):
		dir, err := filepath.Abs(c.String("project"))
		if err != nil {
			return fmt.Errorf("resolve --project %s: %w", c.String("project"), err)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return usagef("hooks install: --project %s is not a directory; give the project's root", dir)
		}
		path = hooks.ProjectSettings(dir)
	case c.Bool("user"):
		p, err := hooks.UserSettings(env.Getenv)
		if err != nil {
			return err
		}
		path = p
	default:
		return usagef("hooks install: say where: --project DIR (that project's .claude/settings.json) or --user (~/.claude/settings.json)")
	}
	bin, dir, err := hookBinaryAndData(c, env)
	if err != nil {
		return err
	}
	res, err := hooks.Install(path, bin, dir, time.Now())
	if err != nil {
		return err
	}
	switch res.Action {
	case "unchanged":
		fmt.Fprintf(env.Stdout, "PreCompact hook already installed in %s; nothing changed\n", res.Path)
	case "updated":
		fmt.Fprintf(env.Stdout, "updated the recollect PreCompact hook in %s (backup: %s)\n", res.Path, res.Backup)
	default:
		if res.Backup != "" {
			fmt.Fprintf(env.Stdout, "installed the PreCompact hook in %s (backup: %s)\n", res.Path, res.Backup)
		} else {
			fmt.Fprintf(env.Stdout, "installed the PreCompact hook in %s (new file)\n", res.Path)
		}
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
	hookBin, ok := hooks.HookBinary(bin)
	if !ok && !strings.Contains(bin, "go-build") {
		fmt.Fprintf(env.Stderr, "recollect: note: no %s beside %s, so the hook runs `recollect notify`, which starts about three times slower; install both: go install -tags sqlite_fts5 ./cmd/...\n", hooks.NotifyBinaryName, bin)
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
	dir, err := dataDir(c, env)
	if err != nil {
		return "", "", err
	}
	return bin, dir, nil
}

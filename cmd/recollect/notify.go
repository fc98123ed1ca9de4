package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/hooks/notice"
)

func notifyCommand(env Env) *cli.Command {
	cmd := &cli.Command{
		Name:  "notify",
		Usage: "tell the running daemon that a moment happened (for hooks; returns at once, prints nothing on stdout, exits 0)",
	}
	for _, m := range notice.Moments {
		cmd.Subcommands = append(cmd.Subcommands, notifyMomentCommand(env, m))
	}
	// A hook's exit status 2 blocks compaction: a mistyped command must
	// fail with 1, never 2.
	cmd.Action = func(c *cli.Context) error {
		names := make([]string, len(notice.Moments))
		for i, m := range notice.Moments {
			names[i] = string(m)
		}
		if c.NArg() > 0 {
			return cli.Exit(fmt.Sprintf("notify: unknown moment %q; use %s", c.Args().First(), strings.Join(names, " or ")), 1)
		}
		return cli.Exit(fmt.Sprintf("notify needs a moment: %s", strings.Join(names, " or ")), 1)
	}
	return cmd
}

func notifyMomentCommand(env Env, m notice.Moment) *cli.Command {
	return &cli.Command{
		Name:  string(m),
		Usage: notice.Describe(m),
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return cli.Exit(flagError("recollect notify "+string(m), err, c.Command.Flags).Error(), 1)
		},
		Action: func(c *cli.Context) error {
			if env.Getenv(notice.EnvChild) != "" {
				return nil // a claude that recollect started: never trigger ourselves
			}
			dir, err := dataDir(c, env)
			if err != nil {
				return cli.Exit(err.Error(), 1)
			}
			stdin := env.Stdin
			if a := strings.TrimSpace(c.Args().First()); strings.HasPrefix(a, "{") {
				// Codex's notify passes the turn's JSON as an argument;
				// stdin is then not a payload and is not read.
				stdin = nil
			}
			notice.Run(c.Context, dir, m, stdin, env.Stderr, env.Getenv)
			return nil
		},
	}
}

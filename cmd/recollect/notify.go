package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/hooks"
)

// notifyBudget bounds a whole notify call, so a hook never waits on it
// for more than a second whatever the daemon is doing.
const notifyBudget = 900 * time.Millisecond

func notifyCommand(env Env) *cli.Command {
	cmd := &cli.Command{
		Name:  "notify",
		Usage: "tell the running daemon that a moment happened (for hooks; returns at once, prints nothing on stdout, exits 0)",
	}
	for _, m := range hooks.NotifyMoments {
		cmd.Subcommands = append(cmd.Subcommands, notifyMomentCommand(env, m))
	}
	// A hook's exit status 2 blocks compaction: a mistyped command must
	// fail with 1, never 2.
	cmd.Action = func(c *cli.Context) error {
		names := make([]string, len(hooks.NotifyMoments))
		for i, m := range hooks.NotifyMoments {
			names[i] = string(m)
		}
		return cli.Exit(fmt.Sprintf("notify needs a moment: %s", strings.Join(names, " or ")), 1)
	}
	return cmd
}

func notifyMomentCommand(env Env, m hooks.Moment) *cli.Command {
	usage := map[hooks.Moment]string{
		hooks.MomentCompaction: "the conversation is about to be compacted: copy its transcript, extract and integrate (PreCompact hook)",
		hooks.MomentThreshold:  "new lines were written: extract if enough are waiting and the last such run is old enough",
	}[m]
	return &cli.Command{
		Name:  string(m),
		Usage: usage,
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return cli.Exit(fmt.Sprintf("%v; see recollect notify %s --help", err, m), 1)
		},
		Action: func(c *cli.Context) error {
			if env.Getenv(hooks.EnvChild) != "" {
				return nil // a claude that recollect started: never trigger ourselves
			}
			dir, err := dataDir(c, env)
			if err != nil {
				return cli.Exit(err.Error(), 1)
			}
			ctx, cancel := context.WithTimeout(c.Context, notifyBudget)
			defer cancel()
			_, warnings, err := hooks.Notify(ctx, dir, m, env.Stdin)
			for _, w := range warnings {
				fmt.Fprintln(env.Stderr, w)
			}
			switch {
			case errors.Is(err, hooks.ErrNoDaemon):
				fmt.Fprintln(env.Stderr, hooks.NoDaemonMessage(dir))
			case err != nil:
				fmt.Fprintf(env.Stderr, "recollect: the daemon did not take the %s notice (%v); it keeps following and will catch up\n", m, err)
			}
			return nil
		},
	}
}

package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/scheduler"
)

func serviceCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "service",
		Usage: "run the daemon as a user service",
		Subcommands: []*cli.Command{{
			Name:  "print",
			Usage: "print a systemd --user unit and a launchd plist for the daemon, with absolute paths",
			Action: func(c *cli.Context) error {
				bin, dir, err := binaryAndData(c, env)
				if err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "# Linux (systemd --user)\n%s\n# macOS (launchd)\n%s", scheduler.SystemdUnit(bin, dir), scheduler.LaunchdPlist(bin, dir))
				return nil
			},
		}},
	}
}

package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/scheduler"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/postgres"
)

func serviceCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "service",
		Usage: "run the daemon as a user service",
		Subcommands: []*cli.Command{{
			Name:  "print",
			Usage: "print a systemd --user unit and a launchd plist for the daemon, with absolute paths",
			Flags: []cli.Flag{&cli.BoolFlag{Name: "windows", Usage: "print a Windows Task Scheduler definition (XML) that starts the daemon at logon instead"}},
			Action: func(c *cli.Context) error {
				bin, dir, err := binaryAndData(c, env)
				if err != nil {
					return err
				}
				if c.Bool("windows") {
					user := env.Getenv("USERNAME")
					if d := env.Getenv("USERDOMAIN"); d != "" && user != "" {
						user = d + `\` + user
					}
					fmt.Fprint(env.Stdout, scheduler.TaskSchedulerXML(bin, dir, user, scheduler.ServiceName(dir, env.Getenv("HOME"))))
					return nil
				}
				cfg, err := config.Load(dir)
				if err != nil {
					return err
				}
				envFile := ""
				if cfg.Storage.Provider == "postgres" {
					// A user service starts without the login shell's
					// variables, and the URL must not go into a unit file
					// anyone may read: both units read it from a file of
					// the user's alone.
					envFile = postgres.EnvFilePath(env.Getenv)
					if envFile == "" {
						return fmt.Errorf("service print: find the env file for the URL: neither XDG_CONFIG_HOME nor HOME is set; set HOME")
					}
					name := cfg.Storage.Postgres.URLEnv
					if name == "" {
						name = postgres.DefaultURLEnv
					}
					fmt.Fprintf(env.Stdout, "%s\n", scheduler.EnvFileNote(name, envFile))
				}
				// Each store's service has its own name: two stores' units
				// and jobs never replace each other.
				name := scheduler.ServiceName(dir, env.Getenv("HOME"))
				fmt.Fprintf(env.Stdout, "# Linux (systemd --user)\n%s\n# macOS (launchd)\n%s", scheduler.SystemdUnit(bin, dir, envFile, name), scheduler.LaunchdPlist(bin, dir, envFile, name))
				return nil
			},
		}},
	}
}

package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

func briefingCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "briefing",
		Usage: "print the session-start briefing (markdown): key facts, last consolidation, open threads, recent knowledge",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "profile", Usage: "print the key facts only (memory://profile)"}},
		Action: func(c *cli.Context) error {
			p, err := openPipeline(c, env)
			if err != nil {
				return err
			}
			defer p.Close()
			var text string
			if c.Bool("profile") {
				text, err = p.Reader.Profile(c.Context)
			} else {
				text, err = p.Briefing(c.Context)
			}
			if err != nil {
				return err
			}
			fmt.Fprint(env.Stdout, text)
			return nil
		},
	}
}

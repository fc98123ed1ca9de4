package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store/config"
)

func storeCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "store",
		Usage: "move a store between engines",
		Subcommands: []*cli.Command{{
			Name:  "copy",
			Usage: "copy this store into the store of --to DIR (SQLite or PostgreSQL, as DIR's config.json says), verifying every table's count; safe to run again",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "to", Usage: "the destination data `DIR`: its config.json names its engine (sqlite when it has none)"},
				&cli.BoolFlag{Name: "json", Usage: "print the counts as JSON"},
			},
			Action: func(c *cli.Context) error {
				if c.String("to") == "" {
					return usagef("store copy: give the destination with --to DIR (its config.json says sqlite or postgres)")
				}
				to, err := filepath.Abs(c.String("to"))
				if err != nil {
					return usagef("store copy: --to %s: %v", c.String("to"), err)
				}
				p, err := openPipeline(c, env)
				if err != nil {
					return err
				}
				defer p.Close()
				if filepath.Clean(p.DB.Dir) == to {
					return usagef("store copy: --to names this store's own directory; give another")
				}
				cfg, err := config.Load(to)
				if err != nil {
					return err
				}
				dst, err := pipeline.OpenStore(c.Context, to, cfg.Storage, env.Getenv)
				if err != nil {
					return err
				}
				defer dst.Close()
				counts, err := pipeline.CopyStore(c.Context, p.DB, dst)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return printJSON(env.Stdout, counts)
				}
				copied := 0
				for _, tc := range counts {
					state := "verified, already there"
					if tc.Copied {
						state = "copied and verified"
						copied++
					}
					fmt.Fprintf(env.Stdout, "%-24s %8d rows  %s\n", tc.Table, tc.Source, state)
				}
				fmt.Fprintf(env.Stdout, "%s (%s) → %s (%s): every table's count matches; %d tables copied\n",
					p.DB.Path, p.DB.Engine().Name(), dst.Path, dst.Engine().Name(), copied)
				return nil
			},
		}},
	}
}

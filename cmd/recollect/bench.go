package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/pipeline/bench"
)

func benchCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "measure recollect beside baselines run in the same process",
		Subcommands: []*cli.Command{
			{
				Name:      "locomo",
				Usage:     "LoCoMo retrieval: recall@5/10 and MRR of evidence turns, keyword search vs plain BM25",
				ArgsUsage: "[PATH to locomo10.json]",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
					&cli.IntFlag{Name: "conversations", Usage: "score only the first N conversations (0 = all)"},
				},
				Action: func(c *cli.Context) error {
					path := c.Args().First()
					if path == "" {
						path = bench.LocomoDefaultPath
					}
					if c.NArg() > 1 {
						return usagef("bench locomo: give one path, e.g. recollect bench locomo %s", bench.LocomoDefaultPath)
					}
					opts := bench.LocomoOptions{Path: path, Conversations: c.Int("conversations")}
					if !c.Bool("json") {
						opts.Progress = func(s string) { fmt.Fprintln(env.Stderr, s) }
					}
					rep, err := bench.RunLocomo(c.Context, opts)
					if err != nil {
						return err
					}
					if c.Bool("json") {
						enc := json.NewEncoder(env.Stdout)
						enc.SetIndent("", "  ")
						return enc.Encode(rep)
					}
					bench.PrintLocomo(env.Stdout, rep)
					return nil
				},
			},
		},
	}
}

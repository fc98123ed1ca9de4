package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/graph"
)

func contextCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "context",
		Usage:     "search a topic, then follow the entity graph 1–2 hops out; each fact with the path that reached it",
		ArgsUsage: "TOPIC",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "hops", Value: graph.MaxHops, Usage: "walk at most N edges (1 or 2)"},
			&cli.BoolFlag{Name: "json", Usage: "print the answer as JSON"},
		},
		Action: func(c *cli.Context) error {
			topic := strings.Join(c.Args().Slice(), " ")
			if strings.TrimSpace(topic) == "" {
				return usagef("context: give a topic, e.g. recollect context \"Atlas migration\"")
			}
			if h := c.Int("hops"); h < 1 || h > graph.MaxHops {
				return usagef("context: --hops %d is out of range; use 1 or 2", h)
			}
			p, err := openPipeline(c, env)
			if err != nil {
				return err
			}
			defer p.Close()
			ans, err := p.Context(c.Context, graph.ContextQuery{Topic: topic, Hops: c.Int("hops")})
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(env.Stdout, ans)
			}
			graph.RenderContext(env.Stdout, ans)
			return nil
		},
	}
}

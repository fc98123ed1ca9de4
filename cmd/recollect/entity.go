package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/graph"
)

func entityCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "entity",
		Usage:     "everything about a named thing: its facts (about it first) and connected entities",
		ArgsUsage: "NAME",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "type", Usage: "only entities of this type (person, place, project, …)"},
			&cli.IntFlag{Name: "limit", Value: graph.DefaultLimit, Usage: "at most N facts"},
			&cli.StringFlag{Name: "as-of", Usage: "answer what the store believed at this time (RFC 3339 or YYYY-MM-DD)"},
			&cli.BoolFlag{Name: "json", Usage: "print the answer as JSON"},
		},
		Action: func(c *cli.Context) error {
			name := strings.Join(c.Args().Slice(), " ")
			if graph.Fold(name) == "" {
				return usagef("entity: give a name, e.g. recollect entity Atlas")
			}
			asOf, err := parseAsOf(c.String("as-of"))
			if err != nil {
				return err
			}
			p, err := openPipeline(c, env)
			if err != nil {
				return err
			}
			defer p.Close()
			ans, err := p.Reader.Entity(c.Context, graph.EntityQuery{Name: name, Type: c.String("type"), Limit: c.Int("limit"), AsOf: asOf})
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(env.Stdout, ans)
			}
			graph.RenderEntity(env.Stdout, ans)
			return nil
		},
	}
}

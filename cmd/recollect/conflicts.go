package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/store/config"
)

func conflictsCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "conflicts",
		Usage: "list supersession conflicts (two facts that both replace one) and resolve them",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "include resolved conflicts"},
			&cli.BoolFlag{Name: "json", Usage: "print as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("conflicts: unexpected %q; to end one: recollect conflicts resolve --keep FACT_ID CONFLICT_ID (or --both)", c.Args().First())
			}
			p, err := openPipeline(c, env)
			if err != nil {
				return err
			}
			defer p.Close()
			list, err := integrate.ListConflicts(c.Context, p.Store(), c.Bool("all"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(env.Stdout, list)
			}
			printConflicts(env.Stdout, list, c.Bool("all"))
			return nil
		},
		Subcommands: []*cli.Command{{
			Name:      "resolve",
			Usage:     "end a conflict: keep one fact (the other is superseded by it) or let both stand",
			ArgsUsage: "CONFLICT_ID",
			Flags: []cli.Flag{
				&cli.Int64Flag{Name: "keep", Usage: "the fact that is current (`FACT_ID`)"},
				&cli.BoolFlag{Name: "both", Usage: "both facts stand; nothing is superseded"},
				&cli.StringFlag{Name: "note", Usage: "why, for the mutation log"},
				&cli.BoolFlag{Name: "json", Usage: "print as JSON"},
			},
			Action: func(c *cli.Context) error { return resolveConflict(c, env) },
		}},
	}
}

func resolveConflict(c *cli.Context, env Env) error {
	if c.NArg() != 1 {
		return usagef("conflicts resolve: give one conflict id, e.g. recollect conflicts resolve --keep 12 3 (ids are shown by recollect conflicts)")
	}
	id, err := strconv.ParseInt(c.Args().First(), 10, 64)
	if err != nil || id <= 0 {
		return usagef("conflicts resolve: %q is not a conflict id; give the number shown by recollect conflicts", c.Args().First())
	}
	keep, both := c.Int64("keep"), c.Bool("both")
	switch {
	case c.IsSet("keep") && both:
		return usagef("conflicts resolve: choose one of --keep FACT_ID or --both, not both")
	case !c.IsSet("keep") && !both:
		return usagef("conflicts resolve: say how it ends: --keep FACT_ID (that fact is current) or --both (both stand)")
	case c.IsSet("keep") && keep <= 0:
		return usagef("conflicts resolve: --keep %d is not a fact id", keep)
	}
	p, err := openPipeline(c, env)
	if err != nil {
		return err
	}
	defer p.Close()
	res, err := integrate.ResolveConflict(c.Context, p.Store(), id, integrate.ResolveOptions{
		Keep: keep, Both: both, Note: c.String("note"), Actor: "cli", Bitemporal: p.Config.Temporal.Mode == config.TemporalBitemporal,
	})
	if errors.Is(err, integrate.ErrConflictInput) {
		return usagef("conflicts resolve: %v", err)
	}
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return printJSON(env.Stdout, res)
	}
	if res.Both {
		fmt.Fprintf(env.Stdout, "conflict %d resolved: both facts stand\n", id)
	} else {
		fmt.Fprintf(env.Stdout, "conflict %d resolved: fact %d kept; fact %d is superseded by it\n", id, res.Kept, res.Superseded)
	}
	return nil
}

func printConflicts(w io.Writer, list []integrate.ConflictView, all bool) {
	if len(list) == 0 {
		if all {
			fmt.Fprintln(w, "no conflicts")
		} else {
			fmt.Fprintln(w, "no open conflicts")
		}
		return
	}
	for i, v := range list {
		if i > 0 {
			fmt.Fprintln(w)
		}
		state := "open"
		if v.ResolvedAt != "" {
			state = "resolved " + v.ResolvedAt
		}
		fmt.Fprintf(w, "conflict %d (%s, %s): two facts both replace fact %d %q\n", v.ID, v.CreatedAt, state, v.TargetID, v.Target)
		fmt.Fprintf(w, "  fact %d [%s] %s   (replaced it first)\n", v.WinnerID, v.WinnerStatus, v.Winner)
		fmt.Fprintf(w, "  fact %d [%s] %s   (claims it too)\n", v.FactID, v.FactStatus, v.Fact)
		if v.ResolvedAt == "" {
			fmt.Fprintf(w, "  resolve: recollect conflicts resolve --keep %d %d (or --keep %d, or --both)\n", v.WinnerID, v.ID, v.FactID)
		}
	}
}

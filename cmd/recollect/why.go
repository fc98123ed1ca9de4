package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/integrate"
)

func whyCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "why",
		Usage:     "say why a fact is current or superseded: its sources, merges and supersession chain",
		ArgsUsage: "FACT_ID",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print as JSON"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("why: give one fact id, e.g. recollect why 12 (ids are shown by recollect search)")
			}
			id, err := strconv.ParseInt(c.Args().First(), 10, 64)
			if err != nil || id <= 0 {
				return usagef("why: %q is not a fact id; give the number shown by recollect search, e.g. recollect why 12", c.Args().First())
			}
			p, err := openPipeline(c, env)
			if err != nil {
				return err
			}
			defer p.Close()
			ex, err := integrate.Why(c.Context, p.Store(), id)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(env.Stdout, ex)
			}
			printWhy(env.Stdout, ex)
			return nil
		},
	}
}

func printWhy(w io.Writer, ex integrate.Explanation) {
	f := ex.Fact
	fmt.Fprintf(w, "fact %d [%s] %s\n", f.ID, f.Status, f.Content)
	fmt.Fprintf(w, "  domain %s · source: %s · recorded %s", f.Domain, graph.ProducerLabel(f.Producer), f.RecordedAt)
	if f.RetractedAt != "" {
		fmt.Fprintf(w, " · retracted %s", f.RetractedAt)
	}
	fmt.Fprintln(w)
	if f.ValidFrom != "" || f.ValidUntil != "" {
		fmt.Fprintf(w, "  valid %s → %s\n", orDash(f.ValidFrom), orDash(f.ValidUntil))
	}
	switch {
	case f.Status == "active" && len(ex.ReplacedBy) == 0:
		fmt.Fprintln(w, "  current: nothing has superseded it")
	case len(ex.ReplacedBy) > 0:
		fmt.Fprintf(w, "  superseded: the current successor is fact %d\n", ex.ReplacedBy[len(ex.ReplacedBy)-1].ID)
	}
	fmt.Fprintf(w, "sources (%d):\n", len(ex.Sources))
	for _, s := range ex.Sources {
		fmt.Fprintf(w, "  - session %s", s.SessionID)
		if s.SaidAt != "" {
			fmt.Fprintf(w, ", said %s", s.SaidAt)
		}
		if s.SessionFactID != 0 {
			fmt.Fprintf(w, ", extracted fact %d (%s)", s.SessionFactID, graph.ProducerLabel(s.Producer))
		}
		fmt.Fprintln(w)
		if s.EventSeq != 0 {
			fmt.Fprintf(w, "    event %d (%s): %s\n", s.EventSeq, s.EventRole, oneLine(s.Event))
		}
	}
	if len(ex.ReplacedBy) > 0 {
		fmt.Fprintln(w, "replaced by:")
		for _, l := range ex.ReplacedBy {
			printLink(w, l)
		}
	}
	if len(ex.Replaces) > 0 {
		fmt.Fprintln(w, "replaces:")
		for _, l := range ex.Replaces {
			printLink(w, l)
		}
	}
	for _, c := range ex.Conflicts {
		state := "open"
		if c.ResolvedAt != "" {
			state = "resolved " + c.ResolvedAt
		}
		fmt.Fprintf(w, "conflict %d (%s): %s\n", c.ID, state, c.Reason)
	}
	fmt.Fprintln(w, "decisions:")
	for _, l := range ex.Log {
		fmt.Fprintf(w, "  %s %s by %s: %s\n", l.At, l.Op, l.Actor, l.Reason)
	}
}

func printLink(w io.Writer, l integrate.Link) {
	fmt.Fprintf(w, "  fact %d [%s] %s\n", l.ID, l.Status, l.Content)
	if l.Reason != "" {
		fmt.Fprintf(w, "    because: %s (%s)\n", l.Reason, l.Actor)
	}
}

func orDash(s string) string {
	if s == "" {
		return "…"
	}
	return s
}

package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/integrate"
	"github.com/recollect/recollect/pipeline"
)

func consolidateCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "consolidate",
		Usage: "run copy → extract → integrate now (named steps only, in that order; none named runs all three)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "copy", Usage: "copy new transcript lines into events"},
			&cli.BoolFlag{Name: "extract", Usage: "extract facts from unexamined events"},
			&cli.BoolFlag{Name: "integrate", Usage: "integrate pending facts into knowledge"},
			&cli.BoolFlag{Name: "all", Usage: "extract every unexamined event, not just the capped batch"},
			&cli.IntFlag{Name: "limit", Usage: "extract at most N events (default: extraction.batch_size)"},
			&cli.BoolFlag{Name: "json", Usage: "print the run summary as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.Int("limit") < 0 {
				return usagef("--limit: %d is negative; give a positive number of events", c.Int("limit"))
			}
			if c.Bool("all") && c.IsSet("limit") {
				return usagef("choose one of --all (every unexamined event) or --limit N, not both")
			}
			p, err := openPipeline(c, env)
			if err != nil {
				return err
			}
			defer p.Close()
			sum, err := p.Run(c.Context, pipeline.RunOptions{
				Steps:   pipeline.Steps{Copy: c.Bool("copy"), Extract: c.Bool("extract"), Integrate: c.Bool("integrate")},
				Extract: extract.Options{Limit: c.Int("limit"), All: c.Bool("all")},
				Trigger: "cli",
			})
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(env.Stdout, sum)
			}
			printSummary(env.Stdout, sum)
			return nil
		},
	}
}

func printSummary(w io.Writer, s pipeline.Summary) {
	fmt.Fprintf(w, "run %d (%s) in %s\n", s.RunID, s.Trigger, s.Elapsed)
	if s.Copy != nil {
		if s.Copy.Note != "" {
			fmt.Fprintf(w, "  copy:      %s\n", s.Copy.Note)
		} else {
			fmt.Fprintf(w, "  copy:      %s from %s\n", text.Plural(s.Copy.Events, "event"), text.Plural(s.Copy.Files, "file"))
		}
	}
	if e := s.Extract; e != nil {
		model := e.Provider
		if e.Model != "" {
			model += " / " + e.Model
		}
		fmt.Fprintf(w, "  extract:   %s examined, %s extracted, %s remaining (%s)\n",
			text.Plural(e.EventsExamined, "event"), text.Plural(e.FactsExtracted, "fact"), text.Plural(e.EventsRemaining, "event"), model)
		if e.FactsDropped > 0 {
			fmt.Fprintf(w, "             %d proposed %s dropped (cited no event of the batch)\n", e.FactsDropped, text.PluralNoun(e.FactsDropped, "fact"))
		}
		for _, h := range e.Held {
			fmt.Fprintf(w, "             held: conversation %s (see stats for the error)\n", h)
		}
		for _, warn := range e.Warnings {
			fmt.Fprintf(w, "             warning: %s\n", warn)
		}
	}
	if i := s.Integrate; i != nil {
		fmt.Fprintf(w, "  integrate: %d claimed, %d new %s, %d merged into existing, %d superseded\n",
			i.Claimed, i.Integrated, text.PluralNoun(i.Integrated, "fact"), i.Merged, i.Superseded)
		printIntegrateDetail(w, i)
	}
	if r := s.Window; r != nil && r.Rows > 0 {
		fmt.Fprintf(w, "  retention: %s, %s and %s from before %s deleted (retention.window %s; %s)\n",
			text.Plural(r.Facts, "fact"), text.Plural(r.Events, "event"), text.Plural(r.Summaries, "summary"), r.Floor, r.Window, text.Plural(r.Rows, "row"))
	}
}

// printIntegrateDetail adds what only some runs have: facts found already
// known, conflicts, stage failures and the embedding step.
func printIntegrateDetail(w io.Writer, i *integrate.Report) {
	if i.Noop > 0 {
		fmt.Fprintf(w, "             %d already known (nothing new to add)\n", i.Noop)
	}
	if i.Conflicts > 0 {
		fmt.Fprintf(w, "             %s: two new facts replace the same old one (open threads in the briefing)\n", text.Plural(i.Conflicts, "conflict"))
	}
	safe := map[string]string{"classify": "the heuristic chose the domain", "entities": "the heuristic found the entities",
		"reconcile": "kept as new facts", "supersede": "nothing superseded", "summarise": "the factual summary was written"}
	for _, stage := range sortedKeys(i.StageFailures) {
		fmt.Fprintf(w, "             %s stage failed %s; %s (see stats)\n", stage, text.Plural(i.StageFailures[stage], "time"), safe[stage])
	}
	if e := i.Embedding; e != nil {
		fmt.Fprintf(w, "  embed:     %s embedded in %s, %d still without a vector\n", text.Plural(e.Embedded, "fact"), e.Space, e.Missing)
		if e.Error != "" {
			fmt.Fprintf(w, "             error: %s\n", e.Error)
		}
	}
}

package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/pipeline"
)

func pruneCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "prune",
		Usage: "remove raw events no knowledge needs (report only unless --apply)",
		Description: "Prune takes tool calls, tool output, system notices and other artifacts: an event goes\n" +
			"only when extraction has examined it, no fact cites it, and it is older than its session's\n" +
			"extraction.working_memory_size most recent events. The user's and the agent's text messages\n" +
			"and compaction summaries always stay: they are memory that search answers from.\n" +
			"Facts, entities and embeddings are never touched.",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "apply", Usage: "delete the reclaimable events (default: report only)"},
			&cli.BoolFlag{Name: "vacuum", Usage: "with --apply, rebuild the file afterwards and report its size before and after"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("prune takes no arguments (got %q); pass --apply to delete", c.Args().First())
			}
			if c.Bool("vacuum") && !c.Bool("apply") {
				return usagef("--vacuum rebuilds the file after deleting; pass it together with --apply")
			}
			p, err := openPipeline(c, env)
			if err != nil {
				return err
			}
			defer p.Close()
			rep, err := p.Prune(c.Context, pipeline.PruneOptions{Apply: c.Bool("apply"), Vacuum: c.Bool("vacuum"), Actor: "cli"})
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(env.Stdout, rep)
			}
			printPrune(env.Stdout, rep)
			return nil
		},
	}
}

func printPrune(w io.Writer, rep pipeline.PruneReport) {
	verb := "reclaimable"
	if rep.Applied {
		verb = "pruned"
	}
	takes := ""
	if rep.Events > 0 {
		takes = ": " + pruneTakes(rep.Takes)
	}
	if rep.Window != nil {
		printWindow(w, "retention", rep.Window)
	}
	fmt.Fprintf(w, "%-12s %s (%s) in %s%s\n", verb, text.Plural(rep.Events, "event"), humanBytes(rep.Bytes), text.Plural(len(rep.Ranges), "seq range"), takes)
	fmt.Fprintf(w, "kept         %d messages and summaries (always kept), %d not yet examined by extraction, %d cited by facts, %d in working memory (last %d per session)\n",
		rep.Kept.Conversation, rep.Kept.Unexamined, rep.Kept.Cited, rep.Kept.WorkingMemory, rep.WorkingMemory)
	if rep.FileBefore != nil && rep.FileAfter != nil {
		fmt.Fprintf(w, "%-12s %s before vacuum, %s after\n", rep.Measured, humanBytes(*rep.FileBefore), humanBytes(*rep.FileAfter))
	}
	if !rep.Applied {
		fmt.Fprintln(w, "report only: nothing was deleted; run recollect prune --apply to delete these events")
	}
}

// pruneTakes says what the reclaimable events are, most first: tool
// results, tool calls, artifacts, system messages.
func pruneTakes(m map[string]int) string {
	names := map[string]string{"tool_result": "tool result", "tool_call": "tool call", "artifact": "artifact", "message": "system message"}
	types := sortedKeys(m)
	sort.SliceStable(types, func(i, j int) bool { return m[types[i]] > m[types[j]] })
	var parts []string
	for _, t := range types {
		name := names[t]
		if name == "" {
			name = t + " event"
		}
		parts = append(parts, text.Plural(m[t], name))
	}
	return strings.Join(parts, ", ")
}

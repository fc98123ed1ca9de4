package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/pipeline"
)

func forgetCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "forget",
		Usage:     "hard-delete facts by id; a content-free tombstone stops them being extracted again",
		ArgsUsage: "FACT_ID…",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "reason", Usage: "why, kept in the tombstone and the mutation log"},
			&cli.StringFlag{Name: "matching", Usage: "with --dry-run, list the facts a search for QUERY finds"},
			&cli.BoolFlag{Name: "dry-run", Usage: "list candidates only; nothing is deleted"},
			&cli.IntFlag{Name: "limit", Value: 20, Usage: "at most this many candidates"},
			&cli.BoolFlag{Name: "json", Usage: "print as JSON"},
		},
		Action: func(c *cli.Context) error {
			ids, err := forgetArgs(c)
			if err != nil {
				return err
			}
			p, err := openPipeline(c, env)
			if err != nil {
				return err
			}
			defer p.Close()
			if c.IsSet("matching") {
				cands, err := p.ForgetCandidates(c.Context, c.String("matching"), c.Int("limit"))
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return json.NewEncoder(env.Stdout).Encode(cands)
				}
				printCandidates(env.Stdout, c.String("matching"), cands)
				return nil
			}
			rep, err := p.Forget(c.Context, ids, pipeline.ForgetOptions{Actor: "cli", Reason: c.String("reason")})
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return json.NewEncoder(env.Stdout).Encode(rep)
			}
			printForget(env.Stdout, rep)
			return nil
		},
	}
}

// forgetArgs checks the flags and parses the fact ids before anything opens.
func forgetArgs(c *cli.Context) ([]int64, error) {
	if c.IsSet("matching") {
		if !c.Bool("dry-run") {
			return nil, usagef("--matching lists candidates only; pass --dry-run, then forget the ones you mean by id")
		}
		if c.NArg() > 0 {
			return nil, usagef("pass either --matching QUERY --dry-run or fact ids, not both")
		}
		return nil, nil
	}
	if c.Bool("dry-run") {
		return nil, usagef("--dry-run goes with --matching QUERY; to see a fact before forgetting it, search for it")
	}
	if c.NArg() == 0 {
		return nil, usagef("name the facts to forget: recollect forget FACT_ID… (find ids with recollect forget --matching QUERY --dry-run)")
	}
	var ids []int64
	for _, a := range c.Args().Slice() {
		id, err := strconv.ParseInt(strings.TrimPrefix(a, "#"), 10, 64)
		if err != nil || id <= 0 {
			return nil, usagef("%q is not a fact id; ids are positive numbers, as search prints them", a)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func printCandidates(w io.Writer, query string, cands []pipeline.Candidate) {
	if len(cands) == 0 {
		fmt.Fprintf(w, "no active fact matches %q; nothing would be forgotten\n", query)
		return
	}
	ids := make([]string, len(cands))
	for i, c := range cands {
		fmt.Fprintf(w, "%6d  [%s] %s\n", c.ID, c.Domain, c.Content)
		ids[i] = strconv.FormatInt(c.ID, 10)
	}
	fmt.Fprintf(w, "dry run: nothing deleted; to forget, run recollect forget %s\n", strings.Join(ids, " "))
}

func printForget(w io.Writer, rep pipeline.ForgetReport) {
	ids := make([]string, len(rep.Facts))
	for i, id := range rep.Facts {
		ids[i] = strconv.FormatInt(id, 10)
	}
	noun := "fact"
	if len(ids) > 1 {
		noun = "facts"
	}
	var parts []string
	for _, k := range sortedKeys(rep.RowsBy) {
		if rep.RowsBy[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, rep.RowsBy[k]))
		}
	}
	fmt.Fprintf(w, "forgot %s %s: %d rows removed (%s)\n", noun, strings.Join(ids, ", "), rep.Rows, strings.Join(parts, ", "))
	if rep.Tombstones == 1 {
		fmt.Fprintln(w, "1 tombstone kept (digest only, no content): the same sentence will not be extracted again")
	} else {
		fmt.Fprintf(w, "%d tombstones kept (digest only, no content): the same sentences will not be extracted again\n", rep.Tombstones)
	}
	switch n := rep.ScrubbedEvents; {
	case n == 1:
		fmt.Fprintln(w, "1 raw event another fact still cites keeps its row but not its text")
	case n > 1:
		fmt.Fprintf(w, "%d raw events other facts still cite keep their row but not their text\n", n)
	}
	switch {
	case rep.Engine == "postgres":
		fmt.Fprintf(w, "old text     %s\n", rep.WAL)
	case rep.WAL != "truncated":
		fmt.Fprintf(w, "memory.db-wal %s\n", rep.WAL)
	}
}

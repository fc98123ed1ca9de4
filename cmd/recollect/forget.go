package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/pipeline"
)

func forgetCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "forget",
		Usage:     "hard-delete facts by id, or what --before, --session, --entity or --matching picks; a content-free tombstone stops them being extracted again",
		ArgsUsage: "[FACT_ID…]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "reason", Usage: "why, kept in the tombstone and the mutation log"},
			&cli.StringFlag{Name: "matching", Usage: "the facts a search for `QUERY` finds (at most --limit)"},
			&cli.StringFlag{Name: "before", Usage: "what happened before `DATE` (2026-03-01, an RFC 3339 time, or 90d for 90 days ago): events by their own time, a fact by the newest event it cites"},
			&cli.StringFlag{Name: "session", Usage: "one session's events (`ID`) and the facts they alone support"},
			&cli.StringFlag{Name: "entity", Usage: "the facts that name `NAME`"},
			&cli.BoolFlag{Name: "dry-run", Usage: "show what would go (counts and a sample); nothing is deleted"},
			&cli.BoolFlag{Name: "yes", Usage: "forget what the selectors pick without asking"},
			&cli.IntFlag{Name: "limit", Value: 20, Usage: "with --matching: at most this many facts"},
			&cli.BoolFlag{Name: "json", Usage: "print as JSON"},
		},
		Action: func(c *cli.Context) error {
			sel, err := forgetSelector(c, time.Now())
			if err != nil {
				return err
			}
			if !sel.Empty() && !(sel == pipeline.Selector{Matching: sel.Matching, Limit: sel.Limit} && c.Bool("dry-run")) {
				return forgetSelected(c, env, sel)
			}
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
		return nil, nil
	}
	if c.Bool("dry-run") {
		return nil, usagef("--dry-run goes with a selector (--before, --session, --entity, --matching); to see a fact before forgetting it, search for it")
	}
	if c.NArg() == 0 {
		return nil, usagef("name what to forget: recollect forget FACT_ID…, or --before DATE, --session ID, --entity NAME, --matching QUERY (add --dry-run to see what would go)")
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
	printForgetTail(w, rep)
}

// printForgetCounts is the rows a selector's forget removed, by table, and
// what stays.
func printForgetCounts(w io.Writer, rep pipeline.ForgetReport) {
	var parts []string
	for _, k := range sortedKeys(rep.RowsBy) {
		if rep.RowsBy[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, rep.RowsBy[k]))
		}
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	fmt.Fprintf(w, "%d rows removed (%s)\n", rep.Rows, strings.Join(parts, ", "))
	printForgetTail(w, rep)
}

// printForgetTail says what forget keeps: tombstones, emptied events, and
// where the old text may still be.
func printForgetTail(w io.Writer, rep pipeline.ForgetReport) {
	if rep.InspectPage != "" {
		fmt.Fprintf(w, "removed %s: it showed the store as it was; recollect inspect writes it again\n", rep.InspectPage)
	}
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
	case rep.Residue:
		fmt.Fprintf(w, "old text     %s\n", rep.WAL)
	case rep.WAL != "truncated":
		fmt.Fprintf(w, "memory.db-wal %s\n", rep.WAL)
	}
}

// forgetSelector reads the selector flags, checked before anything opens;
// now is what --before 90d counts back from.
func forgetSelector(c *cli.Context, now time.Time) (pipeline.Selector, error) {
	sel := pipeline.Selector{Session: c.String("session"), Entity: c.String("entity"), Matching: c.String("matching"), Limit: c.Int("limit")}
	for _, name := range []string{"session", "entity", "matching"} {
		if c.IsSet(name) && strings.TrimSpace(c.String(name)) == "" {
			return sel, usagef("--%s is empty; give what to forget", name)
		}
	}
	if c.IsSet("before") {
		t, err := parseBefore(c.String("before"), now)
		if err != nil {
			return sel, usagef("--before %q: %v", c.String("before"), err)
		}
		sel.Before = t
	}
	if !sel.Empty() && c.NArg() > 0 {
		return sel, usagef("pass either fact ids or selectors (--before, --session, --entity, --matching), not both")
	}
	return sel, nil
}

// parseBefore reads a date (UTC midnight), an RFC 3339 time, or Nd for N
// days before now.
func parseBefore(s string, now time.Time) (time.Time, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 && n <= 100000 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("write a date (2026-03-01), an RFC 3339 time (2026-03-01T09:00:00Z) or days ago (90d)")
}

// forgetSelected shows what sel picks (--dry-run), asks on a terminal
// unless --yes, and forgets it.
func forgetSelected(c *cli.Context, env Env, sel pipeline.Selector) error {
	if !c.Bool("dry-run") && !c.Bool("yes") && !isTerminal(env.Stdin) {
		return usagef("forget %s: not asked on a non-terminal; pass --yes to forget it, or --dry-run to see what would go", sel)
	}
	p, err := openPipeline(c, env)
	if err != nil {
		return err
	}
	defer p.Close()
	picked, err := p.Select(c.Context, sel)
	if err != nil {
		return err
	}
	if c.Bool("dry-run") || !c.Bool("yes") {
		if c.Bool("json") && c.Bool("dry-run") {
			return json.NewEncoder(env.Stdout).Encode(picked)
		}
		fmt.Fprintf(env.Stdout, "%s picks %s and %s\n", sel, text.Plural(len(picked.Facts), "fact"), text.Plural(len(picked.Events), "raw event"))
		for _, line := range picked.Sample {
			fmt.Fprintln(env.Stdout, "  "+line)
		}
		if n := len(picked.Facts) - len(picked.Sample); n > 0 {
			fmt.Fprintf(env.Stdout, "  … and %s more\n", text.Plural(n, "fact"))
		}
		if c.Bool("dry-run") {
			fmt.Fprintln(env.Stdout, "dry run: nothing deleted")
			return nil
		}
		if len(picked.Facts)+len(picked.Events) == 0 {
			return nil
		}
		fmt.Fprint(env.Stdout, "forget them for good? [y/N] ")
		answer, _ := bufio.NewReader(env.Stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(env.Stdout, "nothing forgotten")
			return nil
		}
	}
	rep, picked, err := p.ForgetSelected(c.Context, sel, pipeline.ForgetOptions{Actor: "cli", Reason: c.String("reason")})
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return json.NewEncoder(env.Stdout).Encode(map[string]any{"selection": picked, "report": rep})
	}
	fmt.Fprintf(env.Stdout, "forgot %s: %s and %s\n", sel, text.Plural(len(picked.Facts), "fact"), text.Plural(len(picked.Events), "raw event"))
	printForgetCounts(env.Stdout, rep)
	return nil
}

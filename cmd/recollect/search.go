package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/graph"
)

func searchCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "search",
		Usage:     "search integrated knowledge (and, separately, pending facts)",
		ArgsUsage: "QUERY",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Value: 20, Usage: "at most N results"},
			&cli.BoolFlag{Name: "json", Usage: "print the answer as JSON"},
		},
		Action: func(c *cli.Context) error {
			query := strings.Join(c.Args().Slice(), " ")
			if strings.TrimSpace(query) == "" {
				return usagef("search: give a query, e.g. recollect search \"where do I live\"")
			}
			p, err := openPipeline(c, env)
			if err != nil {
				return err
			}
			defer p.Close()
			ans, err := graph.Search(c.Context, p.DB, graph.Query{Text: query, Limit: c.Int("limit")})
			if err != nil {
				return err
			}
			if c.Bool("json") {
				enc := json.NewEncoder(env.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(ans)
			}
			printAnswer(env.Stdout, ans)
			return nil
		},
	}
}

func printAnswer(w io.Writer, ans graph.Answer) {
	if len(ans.Results) == 0 {
		fmt.Fprintf(w, "no knowledge matches %q", ans.Query)
		if ans.Note != "" {
			fmt.Fprintf(w, " (%s)", ans.Note)
		}
		fmt.Fprintln(w)
	}
	for i, h := range ans.Results {
		fmt.Fprintf(w, "%d. [fact %d] %s\n", i+1, h.ID, h.Content)
		var arms []string
		for _, m := range h.MatchedBy {
			arms = append(arms, fmt.Sprintf("%s #%d", m.Arm, m.Rank))
		}
		fmt.Fprintf(w, "   found by: %s · domain %s · %s · source: %s\n", strings.Join(arms, ", "), h.Domain, h.Status, producerLabel(h.Producer))
		fmt.Fprintf(w, "   cites events %v in session %s", h.EventIDs, h.SessionID)
		if h.SaidAt != "" {
			fmt.Fprintf(w, " · said %s", h.SaidAt)
		}
		fmt.Fprintln(w)
		if len(h.Entities) > 0 {
			fmt.Fprintf(w, "   entities: %s\n", strings.Join(h.Entities, ", "))
		}
	}
	if len(ans.Pending) > 0 {
		fmt.Fprintf(w, "pending (captured, not yet integrated; keyword match only):\n")
		for _, p := range ans.Pending {
			fmt.Fprintf(w, "  - [pending %d] %s (%s)\n", p.ID, p.Content, producerLabel(p.Producer))
		}
	}
}

// producerLabel says how a fact was produced; heuristic facts say so.
func producerLabel(p string) string {
	switch p {
	case "heuristic":
		return "heuristic (verbatim sentence, no model)"
	case "capture":
		return "explicit capture"
	}
	return "model via " + p
}

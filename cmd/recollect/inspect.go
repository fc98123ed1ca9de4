package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/graph/inspect"
	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/pipeline/stats"
	"github.com/recollect/recollect/store"
)

// tableLimit caps terminal tables when --limit is not given; the page's
// samples and graph use inspect.DefaultLimit.
const tableLimit = 20

func inspectCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "inspect",
		Usage: "write a self-contained HTML page of the store (or print one layer as a table)",
		Description: "Without --layer, writes inspect.html into the data directory (or --output) and prints\n" +
			"its path; nothing is fetched from the network and no browser is opened.\n" +
			"--layer health|d|i|k|entities|graph|all prints terminal tables, newest first.",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "layer", Usage: "print a table instead: health, d, i, k, entities, graph or all"},
			&cli.StringFlag{Name: "entity", Usage: "only the knowledge and graph around the entity NAME"},
			&cli.IntFlag{Name: "limit", Usage: fmt.Sprintf("rows per table and nodes drawn (default %d for tables, %d for the page)", tableLimit, inspect.DefaultLimit)},
			&cli.BoolFlag{Name: "all", Usage: "draw every node of the graph"},
			&cli.StringFlag{Name: "output", Usage: "write the page to PATH instead of <data>/inspect.html"},
			&cli.BoolFlag{Name: "json", Usage: "print the data as JSON (with --layer) or the written page's summary"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("inspect takes no arguments (got %q); name an entity with --entity NAME", c.Args().First())
			}
			layers, err := inspectLayers(c.String("layer"))
			if err != nil {
				return err
			}
			if c.IsSet("limit") && c.Int("limit") <= 0 {
				return usagef("--limit must be a positive number")
			}
			if layers != nil && c.IsSet("output") {
				return usagef("--output names the page file; drop --layer to write the page")
			}
			p, err := openPipeline(c, env)
			if err != nil {
				return err
			}
			defer p.Close()
			limit := c.Int("limit")
			if limit == 0 && layers != nil {
				limit = tableLimit
			}
			// A table reads only its own rows; the page reads everything.
			var tables []string
			health := layers == nil
			for _, l := range layers {
				if l == "health" {
					health = true
				} else {
					tables = append(tables, l)
				}
			}
			opts := inspect.Options{Limit: limit, All: c.Bool("all"), Entity: c.String("entity"), Layers: tables}
			if layers != nil && len(tables) == 0 {
				// health alone: the counts are all inspect reads.
				opts.Layers = []string{"health"}
			}
			d, err := inspect.Read(c.Context, p.Reader, opts)
			var noEntity *inspect.ErrNoEntity
			if errors.As(err, &noEntity) {
				return usagef("%v", err)
			}
			if err != nil {
				return err
			}
			var st stats.Stats
			if health {
				if st, err = stats.Read(c.Context, p); err != nil {
					return err
				}
			}
			if layers != nil {
				return printLayers(env.Stdout, layers, d, st, c.Bool("json"))
			}
			return writeInspectPage(c, env, p, d, st)
		},
	}
}

// inspectLayers expands --layer; nil means "write the page".
func inspectLayers(given string) ([]string, error) {
	// The layers are D, I and K in the README: either case is taken.
	layer := strings.ToLower(strings.TrimSpace(given))
	switch layer {
	case "":
		return nil, nil
	case "all":
		return append([]string{"health"}, inspect.Layers...), nil
	case "health":
		return []string{"health"}, nil
	}
	for _, l := range inspect.Layers {
		if l == layer {
			return []string{layer}, nil
		}
	}
	return nil, usagef("--layer %q: use health, d, i, k, entities, graph or all", given)
}

func printLayers(w io.Writer, layers []string, d inspect.Data, st stats.Stats, asJSON bool) error {
	if asJSON {
		out := map[string]any{}
		for _, l := range layers {
			out[l] = map[string]any{"health": st, "d": d.Events, "i": d.Extracted, "k": d.Facts, "entities": d.Entities, "graph": d.Graph}[l]
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	for i, l := range layers {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if l == "health" {
			printStats(w, st)
			continue
		}
		if err := inspect.PrintLayer(w, d, l); err != nil {
			return err
		}
	}
	return nil
}

func writeInspectPage(c *cli.Context, env Env, p *pipeline.Pipeline, d inspect.Data, st stats.Stats) error {
	d.Spend = spendView(st)
	path := c.String("output")
	if path == "" {
		path = filepath.Join(p.Dir(), inspect.PageFile)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := inspect.WritePageFile(abs, d); err != nil {
		return err
	}
	if c.Bool("json") {
		return json.NewEncoder(env.Stdout).Encode(map[string]any{"path": abs, "entities": len(d.Graph.Nodes), "drawn": d.Graph.Drawn, "edges": len(d.Graph.Edges)})
	}
	fmt.Fprintf(env.Stdout, "wrote %s (%d of %s drawn, %s); open it in a browser, it needs no network\n",
		abs, d.Graph.Drawn, text.Plural(len(d.Graph.Nodes), "entity"), text.Plural(len(d.Graph.Edges), "fact edge"))
	return nil
}

// spendView maps stats' spend onto the page's Spend tab.
func spendView(st stats.Stats) *inspect.Spend {
	row := func(key string, t stats.SpendTotal) inspect.SpendRow {
		return inspect.SpendRow{Key: key, Calls: t.Calls, Failed: t.Failed, InputTokens: t.InputTokens, OutputTokens: t.OutputTokens, UnreportedCalls: t.UnreportedCalls}
	}
	rows := func(m map[string]stats.SpendTotal) []inspect.SpendRow {
		out := []inspect.SpendRow{}
		for _, k := range sortedKeys(m) {
			out = append(out, row(k, m[k]))
		}
		return out
	}
	sp := &inspect.Spend{Last24h: row("last 24 h", st.Spend.Last24h), AllTime: row("all time", st.Spend.AllTime),
		ByStage: rows(st.Spend.ByStage), ByProvider: rows(st.Spend.ByProvider), ByModel: rows(st.Spend.ByModel), Budgets: []inspect.Budget{}}
	for _, b := range st.Budgets {
		ib := inspect.Budget{Provider: b.Provider, Window: b.Window, Cap: b.Cap, Used: b.Used, Remaining: b.Remaining, Note: b.Note}
		if b.AgesOutAt != nil {
			ib.ResetsAt = store.FormatTime(*b.AgesOutAt)
		}
		sp.Budgets = append(sp.Budgets, ib)
	}
	if len(sp.Budgets) == 0 {
		sp.BudgetNote = "no token budget configured (intelligence.token_budget in config.json)"
	}
	return sp
}

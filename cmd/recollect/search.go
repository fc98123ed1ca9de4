package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/sqlite"
)

func searchCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "search",
		Usage:     "search integrated knowledge (pending facts and raw episodes are listed apart, never as knowledge)",
		ArgsUsage: "QUERY",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Value: graph.DefaultLimit, Usage: "at most N results"},
			&cli.StringFlag{Name: "domain", Usage: "rank facts of this domain higher (never filters)"},
			&cli.StringFlag{Name: "kind", Usage: "only facts of these kinds, comma-separated: " + strings.Join(store.Kinds, ", ")},
			&cli.StringFlag{Name: "as-of", Usage: "answer what the store believed at this time (RFC 3339 or YYYY-MM-DD)"},
			&cli.BoolFlag{Name: "history", Usage: "include superseded facts themselves, marked"},
			&cli.IntFlag{Name: "budget", Usage: "fill about N tokens instead of a fixed count (skips what does not fit)"},
			&cli.StringFlag{Name: "order", Usage: "chronological: the chosen facts in time order, with a digest of the exact text"},
			&cli.BoolFlag{Name: "json", Usage: "print the answer as JSON"},
		},
		Action: func(c *cli.Context) error {
			query := strings.Join(c.Args().Slice(), " ")
			if strings.TrimSpace(query) == "" {
				return usagef("search: give a query, e.g. recollect search \"where do I live\"")
			}
			q := graph.Query{Text: query, Limit: c.Int("limit"), Domain: c.String("domain"), History: c.Bool("history"),
				Budget: c.Int("budget"), Order: graph.Order(c.String("order"))}
			if q.Limit <= 0 || q.Budget < 0 {
				return usagef("search: --limit must be positive and --budget not negative")
			}
			if q.Order != graph.OrderRelevance && q.Order != graph.OrderChronological {
				return usagef("search: --order %q is unknown; use --order chronological or leave it out", q.Order)
			}
			if k := c.String("kind"); k != "" {
				for _, part := range strings.Split(k, ",") {
					kind := store.NormalKind(part)
					if kind == "" {
						return usagef("search: --kind %q is not a kind; use one or more of %s", strings.TrimSpace(part), strings.Join(store.Kinds, ", "))
					}
					q.Kinds = append(q.Kinds, kind)
				}
			}
			var err error
			if q.AsOf, err = parseAsOf(c.String("as-of")); err != nil {
				return err
			}
			dir, cfg, err := searchStore(c, env)
			if err != nil {
				return err
			}
			if out, ok := searchByDaemon(c.Context, dir, q, c.Bool("json")); ok {
				_, err := io.WriteString(env.Stdout, out)
				return err
			}
			ans, err := search(c, env, dir, cfg, q)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(env.Stdout, ans)
			}
			graph.RenderAnswer(env.Stdout, ans)
			return nil
		},
	}
}

// searchStore is the data directory search reads and its config, checked
// as every command checks them.
func searchStore(c *cli.Context, env Env) (string, config.Config, error) {
	dir, err := trustedDataDir(c, env)
	if err != nil {
		return "", config.Config{}, err
	}
	if err := storeExists(dir); err != nil {
		return "", config.Config{}, err
	}
	cfg, err := loadConfig(dir, env)
	return dir, cfg, err
}

// searchByDaemon asks the daemon of dir, when one runs, to search and
// print the answer as this command would (asJSON for --json): its reader
// is open and warm. ok is false when no daemon answered; the command then
// searches itself.
func searchByDaemon(ctx context.Context, dir string, q graph.Query, asJSON bool) (out string, ok bool) {
	query, err := json.Marshal(q)
	if err != nil {
		return "", false
	}
	req := notice.Request{Op: notice.OpSearch, Data: dir, Query: string(query)}
	if asJSON {
		req.Format = "json"
	}
	resp, err := control.Send(ctx, notice.SocketPath(dir), req)
	if err != nil {
		return "", false
	}
	return resp.Stdout, true
}

// search answers q from the store of data directory dir. Without
// embeddings a search is the read side's alone, so an SQLite store is
// opened as the prompt hook opens it (sqlite.OpenReader): read-only, one
// connection, no connection pinned to watch the files, no model router —
// the opening that was a third of a search process on a small store. A
// store that needs a migration, one on PostgreSQL, or a search that embeds
// its query opens the whole pipeline.
func search(c *cli.Context, env Env, dir string, cfg config.Config, q graph.Query) (graph.Answer, error) {
	if cfg.Storage.Provider != "postgres" && cfg.Embedding.Provider == "" {
		db, err := sqlite.OpenReader(c.Context, dir)
		if err == nil {
			defer db.Close()
			r := graph.NewReader(db)
			r.Retain(cfg.Retention.Window.Duration())
			defer r.Close()
			return r.Search(c.Context, q)
		}
		if !errors.Is(err, store.ErrOlderSchema) {
			return graph.Answer{}, err
		}
	}
	p, err := openPipelineAt(c, env, dir, nil)
	if err != nil {
		return graph.Answer{}, err
	}
	defer p.Close()
	return p.Search(c.Context, q)
}

// parseAsOf reads --as-of (store.ParseAsOf): RFC 3339, or a date meaning
// the end of that day, so "--as-of 2026-03-03" includes that whole day.
func parseAsOf(s string) (time.Time, error) {
	t, err := store.ParseAsOf(s)
	if err == nil {
		return t, nil
	}
	return time.Time{}, usagef("--as-of %q is not a time; use RFC 3339 (2026-03-03T12:00:00Z) or a date (2026-03-03)", s)
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/sqlite"
)

func storeCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "store",
		Usage: "move a store between engines",
		Subcommands: []*cli.Command{{
			Name: "copy",
			Usage: "copy this store into the store of --to DIR (SQLite or PostgreSQL, as DIR's config.json says), or the SQLite store at --from PATH into this one, " +
				"verifying every table's count; safe to run again",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "to", Usage: "the destination data `DIR`: its config.json names its engine (sqlite when it has none)"},
				&cli.StringFlag{Name: "from", Usage: "copy into this store the SQLite store at `PATH` (a memory.db, or the directory holding it): the one left behind when storage.provider became postgres"},
				&cli.BoolFlag{Name: "json", Usage: "print the counts as JSON"},
			},
			Action: func(c *cli.Context) error {
				switch {
				case c.String("to") != "" && c.String("from") != "":
					return usagef("store copy: give --to DIR or --from PATH, not both")
				case c.String("from") != "":
					return copyFrom(c, env)
				case c.String("to") == "":
					return usagef("store copy: give the destination with --to DIR (its config.json says sqlite or postgres), or a SQLite store to bring in with --from PATH")
				}
				to, err := filepath.Abs(c.String("to"))
				if err != nil {
					return usagef("store copy: --to %s: %v", c.String("to"), err)
				}
				p, err := openPipeline(c, env)
				if err != nil {
					return err
				}
				defer p.Close()
				if filepath.Clean(p.Dir()) == to {
					return usagef("store copy: --to names this store's own directory; give another")
				}
				cfg, err := config.Load(to)
				if err != nil {
					return err
				}
				dst, err := pipeline.OpenStore(c.Context, to, cfg.Storage, env.Getenv)
				if err != nil {
					return err
				}
				defer dst.Close()
				return copyAndPrint(c, env.Stdout, p.Store(), dst)
			},
		}},
	}
}

// copyFrom copies the SQLite store at --from into this data directory's
// store: what moves a memory.db into PostgreSQL after `settings set
// storage.provider postgres` in the same directory.
func copyFrom(c *cli.Context, env Env) error {
	from, err := filepath.Abs(c.String("from"))
	if err != nil {
		return usagef("store copy: --from %s: %v", c.String("from"), err)
	}
	if fi, err := os.Stat(from); err == nil && fi.IsDir() {
		from = filepath.Join(from, store.DBFile)
	}
	if fi, err := os.Lstat(from); errors.Is(err, os.ErrNotExist) {
		return usagef("store copy: no SQLite store at %s; give a memory.db or the directory holding one", from)
	} else if err != nil {
		return fmt.Errorf("store copy: %w", err)
	} else if !fi.Mode().IsRegular() {
		return usagef("store copy: %s is not a file; give a memory.db or the directory holding one", from)
	}
	p, err := openPipeline(c, env)
	if err != nil {
		return err
	}
	defer p.Close()
	if filepath.Clean(p.Store().Path) == from {
		return usagef("store copy: --from names this store's own file; give another")
	}
	src, err := sqlite.OpenFile(c.Context, from)
	if err != nil {
		return err
	}
	defer src.Close()
	return copyAndPrint(c, env.Stdout, src, p.Store())
}

// copyAndPrint copies from into to and prints each table's count, or them
// all as JSON with --json.
func copyAndPrint(c *cli.Context, w io.Writer, from, to *store.DB) error {
	counts, err := store.Copy(c.Context, from, to)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return printJSON(w, counts)
	}
	copied := 0
	for _, tc := range counts {
		state := "verified, already there"
		if tc.Copied {
			state = "copied and verified"
			copied++
		}
		fmt.Fprintf(w, "%-24s %8d rows  %s\n", tc.Table, tc.Source, state)
	}
	fmt.Fprintf(w, "%s (%s) → %s (%s): every table's count matches; %d tables copied\n",
		from.Path, from.Engine().Name(), to.Path, to.Engine().Name(), copied)
	return nil
}

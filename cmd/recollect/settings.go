package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/store/postgres"
	"github.com/recollect/recollect/store/sqlite"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

func settingsCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "settings",
		Usage: "show every knob of config.json with the value in effect; get or set one by its dotted key",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the config in effect as JSON"}},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("settings: unexpected %q; use recollect settings get KEY or recollect settings set KEY VALUE", c.Args().First())
			}
			cfg, dir, err := loadSettings(c, env)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(env.Stdout, cfg)
			}
			printSettings(env.Stdout, inEffect(config.Settings(cfg), dir))
			return nil
		},
		Subcommands: []*cli.Command{
			{
				Name:      "get",
				Usage:     "print one knob (or a whole section, e.g. intelligence.http)",
				ArgsUsage: "KEY",
				Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the value as JSON"}},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usagef("settings get: give one key, e.g. recollect settings get intelligence.provider")
					}
					cfg, _, err := loadSettings(c, env)
					if err != nil {
						return err
					}
					v, err := config.Get(cfg, c.Args().First())
					if err != nil {
						return err
					}
					if s, ok := v.(string); ok && !c.Bool("json") {
						fmt.Fprintln(env.Stdout, s)
						return nil
					}
					return printJSON(env.Stdout, v)
				},
			},
			{
				Name:      "set",
				Usage:     "change one knob in config.json, checked as loading the file checks it; every other line stays as it is",
				ArgsUsage: "KEY VALUE",
				Action: func(c *cli.Context) error {
					if c.NArg() != 2 {
						return usagef("settings set: give a key and a value, e.g. recollect settings set intelligence.provider ollama")
					}
					before, dir, err := loadSettings(c, env)
					if err != nil {
						return err
					}
					if _, err := trustedDataDir(c, env); err != nil {
						return err // one knob set is no approval of the rest of a project's config
					}
					key, value := c.Args().Get(0), c.Args().Get(1)
					cfg, err := config.Set(dir, key, value)
					if err != nil {
						return err
					}
					if err := approveEdited(c, env); err != nil {
						return err
					}
					v, _ := config.Get(cfg, key)
					b, _ := json.Marshal(v)
					fmt.Fprintf(env.Stdout, "%s = %s in %s; a running daemon reads it when restarted\n", key, b, filepath.Join(dir, config.FileName))
					if key == "retention.window" && cfg.Retention.Window.Set() {
						return sayPastWindow(c, env, dir)
					}
					if before.Storage.Provider != "postgres" && cfg.Storage.Provider == "postgres" {
						noteLeftBehind(c, env.Stdout, dir)
					}
					return nil
				},
			},
		},
	}
}

// loadSettings reads the data directory's config.json, refusing when there
// is none: the defaults alone are no settings to show or change.
func loadSettings(c *cli.Context, env Env) (config.Config, string, error) {
	dir, err := dataDir(c, env)
	if err != nil {
		return config.Config{}, "", err
	}
	if _, err := os.Stat(filepath.Join(dir, config.FileName)); errors.Is(err, os.ErrNotExist) {
		return config.Config{}, "", fmt.Errorf("%w in %s; create one with: recollect init %s", config.ErrNoConfig, dir, dir)
	}
	cfg, err := config.Load(dir)
	return cfg, dir, err
}

// inEffect shows the value in effect where the file leaves a knob empty
// and something else decides it: the PostgreSQL URL's variable and the
// schema named after the data directory.
func inEffect(list []config.Setting, dir string) []config.Setting {
	for i, s := range list {
		if v, ok := s.Value.(string); !ok || v != "" {
			continue
		}
		switch s.Key {
		case "storage.postgres.url_env":
			list[i].Value = postgres.DefaultURLEnv + " (the default)"
		case "storage.postgres.schema":
			list[i].Value = postgres.DefaultSchema(dir) + " (named after the data directory)"
		}
	}
	return list
}

// printSettings writes one knob a line: its key and its value (text as it
// is, "" when empty, anything else as JSON).
func printSettings(w io.Writer, list []config.Setting) {
	width := 0
	for _, s := range list {
		width = max(width, len(s.Key))
	}
	for _, s := range list {
		val := ""
		if str, ok := s.Value.(string); ok && str != "" {
			val = str
		} else {
			b, _ := json.Marshal(s.Value)
			val = string(b)
		}
		fmt.Fprintf(w, "%-*s  %s\n", width, s.Key, strings.TrimSpace(val))
	}
}

// noteLeftBehind says, when a data directory's store moves to PostgreSQL,
// what its memory.db holds that the new store does not read, and the
// command that brings it over: memory that seems gone after a settings
// change is not lost, and the user is told so at once.
func noteLeftBehind(c *cli.Context, w io.Writer, dir string) {
	path := filepath.Join(dir, store.DBFile)
	if _, err := os.Stat(path); err != nil {
		return // nothing was kept here
	}
	what := "its memory"
	if db, err := sqlite.OpenReader(c.Context, dir); err == nil {
		var facts, events int
		err := db.QueryRowContext(c.Context, `SELECT (SELECT count(*) FROM facts), (SELECT count(*) FROM session_events)`).Scan(&facts, &events)
		db.Close()
		if err == nil && facts == 0 && events == 0 {
			return // an empty store: nothing to bring over
		}
		if err == nil {
			what = fmt.Sprintf("its %s and %s", text.Plural(facts, "fact"), text.Plural(events, "event"))
		}
	}
	fmt.Fprintf(w, "note: %s stays where it is with %s, which the postgres store does not read; bring them over with: recollect store copy --from %s --data %s\n",
		path, what, path, dir)
}

// sayPastWindow tells the person who just set retention.window what it
// now hides and what the next consolidation deletes for good, while it
// can still be undone.
func sayPastWindow(c *cli.Context, env Env, dir string) error {
	if storeExists(dir) != nil {
		return nil // no store yet: nothing is past the window
	}
	p, err := openPipelineAt(c, env, dir, nil)
	if err != nil {
		return err
	}
	defer p.Close()
	r, err := p.PastWindow(c.Context)
	if err != nil || r == nil {
		return err
	}
	if r.Facts+r.Events+r.Summaries == 0 {
		fmt.Fprintf(env.Stdout, "nothing stored happened before %s\n", r.Floor)
		return nil
	}
	fmt.Fprintf(env.Stdout, "%s, %s and %s happened before %s: no read returns them from now on, and the next consolidation (the daemon runs them by itself) or recollect prune --apply deletes them for good; recollect settings set retention.window \"\" undoes this until then\n",
		text.Plural(r.Facts, "fact"), text.Plural(r.Events, "event"), text.Plural(r.Summaries, "summary"), r.Floor)
	return nil
}

// Command recollect-bench measures recollect beside baselines run in the
// same process: the systems table (copy, import, search, integrate, notify,
// hooks, CLI, follow, daemon idle), LoCoMo retrieval and the coding
// sessions. It drives the recollect and recollect-notify binaries built
// beside it, so the shipped recollect does not link the harness.
//
// This package is a thin shell: flags and exit codes. The harness is the
// package bench below it; README.md beside this file is the method and
// the current tables.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/cmd/recollect-bench/bench"
	"github.com/recollect/recollect/store/config"
)

// Env is everything the process gives the app: streams, environment and
// the harness's own executable (where recollect is looked for first).
type Env struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Self           string
}

// usageError is bad input from the user: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	self, _ := os.Executable() // empty when unknown: recollect is then looked for on PATH
	code := Run(ctx, os.Args, Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Self: self})
	stop()
	os.Exit(code)
}

// Run runs the harness with args and returns the exit status: 2 for bad
// input, 1 for a failed run.
func Run(ctx context.Context, args []string, env Env) int {
	flagError := func(_ *cli.Context, err error, _ bool) error { return usagef("%v", err) }
	cmd := benchCommand(env)
	for _, sub := range cmd.Subcommands {
		sub.OnUsageError = flagError
	}
	err := (&cli.App{
		Name: cmd.Name, Usage: cmd.Usage, Flags: cmd.Flags, Action: cmd.Action, Commands: cmd.Subcommands,
		Writer: env.Stdout, ErrWriter: env.Stderr, HideHelpCommand: true,
		ExitErrHandler: func(*cli.Context, error) {}, OnUsageError: flagError,
	}).RunContext(ctx, args)
	if err == nil {
		return 0
	}
	fmt.Fprintln(env.Stderr, "recollect-bench: "+strings.SplitN(err.Error(), "\n", 2)[0])
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// recollectBinary is the recollect the harness drives, from --recollect,
// beside the harness, or on PATH.
func recollectBinary(c *cli.Context, env Env) (string, error) {
	return bench.FindRecollect(c.String("recollect"), env.Self, exec.LookPath)
}

// recollectFlag names the recollect binary the harness drives.
var recollectFlag = &cli.StringFlag{Name: "recollect", Usage: "the recollect binary to drive, or the `DIR` holding it and recollect-notify (default: beside recollect-bench, else on PATH)"}

func benchCommand(env Env) *cli.Command {
	def := bench.DefaultSystems()
	return &cli.Command{
		Name:  "recollect-bench",
		Usage: "measure recollect beside baselines run in the same process: notify, copy, follow, search, daemon idle",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.StringFlag{Name: "fixtures", Value: def.Fixtures, Usage: "the real transcripts the copy and search stores are built from"},
			&cli.StringFlag{Name: "only", Usage: "run only these parts, comma-separated: " + strings.Join(bench.Parts, ",")},
			&cli.DurationFlag{Name: "idle", Value: def.Idle, Usage: "how long to watch the idle daemon"},
			&cli.IntFlag{Name: "copy-lines", Value: def.CopyLines, Usage: "lines in the copied transcript"},
			&cli.StringFlag{Name: "search-sizes", Value: "10000,100000", Usage: "store sizes (facts) to search, comma-separated"},
			&cli.IntFlag{Name: "import-mb", Value: def.ImportMB, Usage: "megabytes of history the import part builds from the fixtures"},
			&cli.StringFlag{Name: "integrate-sizes", Value: "1000,100000", Usage: "store sizes (facts) to integrate new facts into, comma-separated; the first is the baseline (add 1000000 for the 1M row)"},
			&cli.IntFlag{Name: "integrate-rounds", Value: def.IntegrateRounds, Usage: "times each integrate store size is timed, the sizes in turn, each on fresh copies; its figure is the median"},
			&cli.StringFlag{Name: "keep-stores", Usage: "keep the integrate part's and the SQLite hooks part's built stores in `DIR` and copy them on later runs instead of building them again (a 1M store takes minutes)"},
			&cli.IntFlag{Name: "notify-runs", Value: def.NotifyRuns, Usage: "runs of each process for the notify medians"},
			&cli.IntFlag{Name: "search-queries", Value: def.SearchQueries, Usage: "queries timed per search store"},
			&cli.IntFlag{Name: "follow", Value: def.FollowAppends, Usage: "appends timed by the follow benchmark"},
			&cli.StringFlag{Name: "engine", Value: "sqlite", Usage: "the storage `ENGINE` of the copy and search stores: sqlite, or postgres (a schema per store on the server $RECOLLECT_POSTGRES_URL names, dropped afterwards; runs copy and search, or hooks with --only)"},
			recollectFlag,
		},
		Action: func(c *cli.Context) error {
			opts, err := systemsOptions(c, env)
			if err != nil {
				return err
			}
			if !c.Bool("json") {
				opts.Progress = func(s string) { fmt.Fprintln(env.Stderr, "bench: "+s) }
			}
			rep, err := bench.RunSystems(c.Context, opts)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(env.Stdout, rep)
			}
			bench.PrintSystems(env.Stdout, rep)
			return nil
		},
		Subcommands: []*cli.Command{locomoCommand(env), codingCommand(env)},
	}
}

func systemsOptions(c *cli.Context, env Env) (bench.SystemsOptions, error) {
	opts := bench.DefaultSystems()
	opts.Fixtures, opts.Idle, opts.CopyLines = c.String("fixtures"), c.Duration("idle"), c.Int("copy-lines")
	opts.NotifyRuns, opts.FollowAppends, opts.ImportMB = c.Int("notify-runs"), c.Int("follow"), c.Int("import-mb")
	opts.SearchQueries, opts.KeepStores, opts.IntegrateRounds = c.Int("search-queries"), c.String("keep-stores"), c.Int("integrate-rounds")
	if c.NArg() > 0 {
		return opts, usagef("unknown part %q; the parts are %s (use --only), or run recollect-bench locomo PATH", c.Args().First(), strings.Join(bench.Parts, ", "))
	}
	var err error
	if opts.SearchSizes, err = factCounts(c, "search-sizes"); err != nil {
		return opts, err
	}
	if opts.IntegrateSizes, err = factCounts(c, "integrate-sizes"); err != nil {
		return opts, err
	}
	if o := c.String("only"); o != "" {
		for _, p := range strings.Split(o, ",") {
			p = strings.TrimSpace(p)
			if !contains(bench.Parts, p) {
				return opts, usagef("--only %q: unknown part %q; the parts are %s", o, p, strings.Join(bench.Parts, ", "))
			}
			opts.Only = append(opts.Only, p)
		}
	}
	switch c.String("engine") {
	case "sqlite":
	case "postgres":
		opts.Stores = bench.Stores{Storage: config.Storage{Provider: "postgres"}, Getenv: env.Getenv}
		if len(opts.Only) == 0 {
			opts.Only = bench.EngineParts
		}
		for _, p := range opts.Only {
			if !contains(bench.EngineOnlyParts, p) {
				return opts, usagef("--engine postgres runs %s only; drop %q from --only", strings.Join(bench.EngineOnlyParts, ", "), p)
			}
		}
	default:
		return opts, usagef("unknown engine %q; use sqlite or postgres", c.String("engine"))
	}
	if opts.NotifyRuns <= 0 || opts.FollowAppends <= 0 || opts.CopyLines <= 0 || opts.Idle <= 0 || opts.ImportMB <= 0 || opts.SearchQueries <= 0 || opts.IntegrateRounds <= 0 {
		return opts, usagef("--notify-runs, --follow, --copy-lines, --import-mb, --search-queries, --integrate-rounds and --idle must be positive")
	}
	needsBinary := len(opts.Only) == 0
	for _, p := range opts.Only {
		needsBinary = needsBinary || contains(bench.BinaryParts, p)
	}
	if needsBinary {
		if opts.Binary, err = recollectBinary(c, env); err != nil {
			return opts, err
		}
	}
	return opts, nil
}

// factCounts parses a comma-separated list of store sizes.
func factCounts(c *cli.Context, flag string) ([]int, error) {
	var out []int
	for _, s := range strings.Split(c.String(flag), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return nil, usagef("--%s %q: give positive fact counts, e.g. 10000,100000", flag, c.String(flag))
		}
		out = append(out, n)
	}
	return out, nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func locomoCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "locomo",
		Usage:     "LoCoMo retrieval: recall@5/10 and MRR of evidence turns, recollect search vs plain BM25",
		ArgsUsage: "[PATH to locomo10.json]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.IntFlag{Name: "conversations", Usage: "score only the first N conversations (0 = all)"},
			&cli.StringFlag{Name: "routes", Usage: "ingest `ROUTES` to score, comma-separated: capture (as capture_fact stores turns) and metadata (speaker and time set); default both"},
			&cli.StringFlag{Name: "embedding-provider", Usage: "score hybrid search too, embedding with `ollama` or http (an OpenAI-compatible host)"},
			&cli.StringFlag{Name: "embedding-model", Usage: "the embedding `MODEL` (e.g. nomic-embed-text)"},
			&cli.StringFlag{Name: "embedding-url", Usage: "the host's base `URL` (default http://localhost:11434, with /v1 for http)"},
			&cli.StringFlag{Name: "embedding-key-env", Usage: "the environment `VARIABLE` holding the host's API key"},
			&cli.StringFlag{Name: "engine", Value: "sqlite", Usage: "the storage `ENGINE` each conversation's store lives in: sqlite, or postgres (a schema per conversation on the server $RECOLLECT_POSTGRES_URL names, dropped after scoring)"},
		},
		Action: func(c *cli.Context) error {
			path := c.Args().First()
			if path == "" {
				path = bench.LocomoDefaultPath
			}
			if c.NArg() > 1 {
				return usagef("locomo: give one path, e.g. recollect-bench locomo %s", bench.LocomoDefaultPath)
			}
			if c.Int("conversations") < 0 {
				return usagef("locomo: --conversations %d is negative; give a count, or 0 for all", c.Int("conversations"))
			}
			var routes []string
			for _, r := range strings.Split(c.String("routes"), ",") {
				if r = strings.TrimSpace(r); r == "" {
					continue
				}
				if !slices.Contains(bench.Routes, r) {
					return usagef("locomo: unknown route %q; the routes are %s", r, strings.Join(bench.Routes, ", "))
				}
				routes = append(routes, r)
			}
			opts := bench.LocomoOptions{Path: path, Conversations: c.Int("conversations"), Routes: routes, Getenv: env.Getenv,
				Embedding: config.Embedding{Provider: c.String("embedding-provider"), Model: c.String("embedding-model"),
					BaseURL: c.String("embedding-url"), APIKeyEnv: c.String("embedding-key-env")}}
			switch c.String("engine") {
			case "sqlite":
			case "postgres":
				opts.Storage = config.Storage{Provider: "postgres"}
			default:
				return usagef("locomo: unknown engine %q; use sqlite or postgres", c.String("engine"))
			}
			if opts.Embedding.Provider == "" && (c.IsSet("embedding-model") || c.IsSet("embedding-url") || c.IsSet("embedding-key-env")) {
				return usagef("locomo: --embedding-model, --embedding-url and --embedding-key-env need --embedding-provider ollama or http")
			}
			if !c.Bool("json") {
				opts.Progress = func(s string) { fmt.Fprintln(env.Stderr, s) }
			}
			rep, err := bench.RunLocomo(c.Context, opts)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(env.Stdout, rep)
			}
			bench.PrintLocomo(env.Stdout, rep)
			return nil
		},
	}
}

func codingCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "coding",
		Usage: "coding sessions: questions a returning developer asks, answered by recollect search, the prompt hook and search after prune, beside plain BM25",
		Description: "Each project's real session files are laid out in a temporary agent home and the store is built and\n" +
			"asked by running the recollect binary as a user does: init --yes --mode copy, consolidate --all, search --limit 10,\n" +
			"hooks user-prompt and hooks session-start, prune --apply --vacuum and search again. Plain BM25 over the\n" +
			"store's user and assistant text messages, one document a message, runs beside it in the same run.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			recollectFlag,
			&cli.StringFlag{Name: "questions", Value: filepath.Join("fixtures", "coding", "questions.json"), Usage: "the question set"},
			&cli.StringFlag{Name: "transcripts", Value: filepath.Join("fixtures", "transcripts"), Usage: "the folder the set's transcript paths are under"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("coding takes no arguments (got %q)", c.Args().First())
			}
			set, err := bench.ReadCodingSet(c.String("questions"))
			if err != nil {
				return fmt.Errorf("%w (run it from a clone, or give --questions and --transcripts)", err)
			}
			bin, err := recollectBinary(c, env)
			if err != nil {
				return err
			}
			opts := bench.CodingOptions{Binary: bin, Set: set, Transcripts: c.String("transcripts")}
			if !c.Bool("json") {
				opts.Progress = func(s string) { fmt.Fprintln(env.Stderr, "bench: "+s) }
			}
			rep, err := bench.RunCoding(c.Context, opts)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(env.Stdout, rep)
			}
			bench.PrintCoding(env.Stdout, rep)
			return nil
		},
	}
}

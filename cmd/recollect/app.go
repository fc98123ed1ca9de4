package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/datadir"
	"github.com/recollect/recollect/store/sqlite"
)

// Env is everything the process gives the app: streams and environment.
// Tests pass their own; main passes the real ones.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
}

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// the module version from the build info is used.
var version = ""

func binaryVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// usageError is bad input from the user: exit status 2, nothing written.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// exitCode maps an error to the process status: 2 for bad input (flags,
// config, event fields, payloads), 1 for everything else.
func exitCode(err error) int {
	var ue *usageError
	var fe *store.FieldError
	var ce *config.Error
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue), errors.As(err, &fe), errors.As(err, &ce):
		return 2
	}
	var ee cli.ExitCoder
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return 1
}

// Run runs the CLI with args and returns the exit status.
func Run(ctx context.Context, args []string, env Env) int {
	// Stored text reaches the terminal shown, never obeyed.
	env.Stdout, env.Stderr = controlEscaper{env.Stdout}, controlEscaper{env.Stderr}
	app := NewApp(env)
	args, err := arrangeArgs(app, args)
	if err == nil {
		err = app.RunContext(ctx, args)
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "recollect: "+oneLine(err.Error()))
	}
	return exitCode(err)
}

func oneLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

const dataUsage = datadir.Usage

// NewApp builds the CLI. Every command accepts --data both before and after
// its name.
func NewApp(env Env) *cli.App {
	app := &cli.App{
		Name:                 "recollect",
		Usage:                "local memory for coding agents",
		Version:              binaryVersion(),
		Reader:               env.Stdin,
		Writer:               env.Stdout,
		ErrWriter:            env.Stderr,
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		Flags:                []cli.Flag{&cli.StringFlag{Name: "data", Usage: dataUsage}},
		ExitErrHandler:       func(*cli.Context, error) {},
		Commands:             commands(env),
	}
	app.OnUsageError = func(c *cli.Context, err error, _ bool) error {
		return flagError(app.Name, err, app.Flags)
	}
	for _, cmd := range app.Commands {
		addDataFlag(cmd, app.Name)
	}
	return app
}

// addDataFlag gives cmd and its subcommands --data and a usage-error
// handler that names the command and the nearest flag.
func addDataFlag(cmd *cli.Command, parent string) {
	where := parent + " " + cmd.Name
	cmd.Flags = append(cmd.Flags, &cli.StringFlag{Name: "data", Usage: dataUsage})
	if cmd.OnUsageError == nil {
		cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error {
			return flagError(where, err, cmd.Flags)
		}
	}
	for _, sub := range cmd.Subcommands {
		addDataFlag(sub, where)
	}
}

// commands lists every subcommand; each lives in its own file.
func commands(env Env) []*cli.Command {
	return []*cli.Command{
		initCommand(env),
		trustCommand(env),
		recordCommand(env),
		consolidateCommand(env),
		searchCommand(env),
		entityCommand(env),
		contextCommand(env),
		briefingCommand(env),
		mcpCommand(env),
		statsCommand(env),
		settingsCommand(env),
		pruneCommand(env),
		storeCommand(env),
		forgetCommand(env),
		inspectCommand(env),
		demoCommand(env),
		whyCommand(env),
		conflictsCommand(env),
		benchElsewhere(),
		versionCommand(env),
		daemonCommand(env),
		notifyCommand(env),
		hooksCommand(env),
		serviceCommand(env),
	}
}

// dataDir resolves the data directory for c: --data (either side of the
// command name), then the environment, the project, the home directory.
func dataDir(c *cli.Context, env Env) (string, error) {
	flag := ""
	for _, cc := range c.Lineage() {
		if cc.IsSet("data") {
			flag = cc.String("data")
			break
		}
	}
	cwd, _ := os.Getwd()
	dir, _, err := datadir.Resolve(flag, cwd, env.Getenv)
	if err != nil {
		return "", err
	}
	return dir, nil
}

// resolveDataDir is dataDir with the rule that chose the directory.
func resolveDataDir(c *cli.Context, env Env) (string, datadir.Source, error) {
	cwd, _ := os.Getwd()
	return datadir.Resolve(dataFlag(c), cwd, env.Getenv)
}

// dataFlag is the --data flag given before or after c's name, "" when none.
func dataFlag(c *cli.Context) string {
	for _, cc := range c.Lineage() {
		if cc.IsSet("data") {
			return cc.String("data")
		}
	}
	return ""
}

// trustedDataDir is dataDir for commands that act on the store's config
// (read sources, call a provider) or print commands that would: a project
// store — one found by walking up from the current directory, or named by
// --data or $RECOLLECT_DATA but lying in a repository or named .recollect
// (config.Subject) — must hold no config.json and no memory.db the user
// has not approved with recollect trust (see config.CheckProject). A store
// elsewhere, and ~/.recollect, is the user's own.
func trustedDataDir(c *cli.Context, env Env) (string, error) {
	cwd, _ := os.Getwd()
	return trustedDataDirAt(dataFlag(c), cwd, env)
}

// trustedDataDirAt is trustedDataDir for the --data flag flag (""
// when not given) in working directory cwd.
func trustedDataDirAt(flag, cwd string, env Env) (string, error) {
	dir, from, err := datadir.Resolve(flag, cwd, env.Getenv)
	if err != nil {
		return "", err
	}
	if from == datadir.FromProject || config.Subject(dir, env.Getenv) {
		if err := config.CheckProject(dir, env.Getenv); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// openPipeline opens the existing store of c's data directory. Reading
// commands (and those that change what is stored) use it: on a directory
// without a store they say so and create nothing.
func openPipeline(c *cli.Context, env Env) (*pipeline.Pipeline, error) {
	dir, err := trustedDataDir(c, env)
	if err != nil {
		return nil, err
	}
	if err := storeExists(dir); err != nil {
		return nil, err
	}
	return openPipelineAt(c, env, dir, nil)
}

// createPipeline opens the store of c's data directory, creating it when
// there is none: for record and mcp, where an event or an MCP snippet alone
// must be enough to start. log receives the pipeline's lines
// (slog.Default() when nil).
func createPipeline(c *cli.Context, env Env, log *slog.Logger) (*pipeline.Pipeline, error) {
	dir, err := trustedDataDir(c, env)
	if err != nil {
		return nil, err
	}
	return openPipelineAt(c, env, dir, log)
}

// openPipelineAt opens dir's pipeline with the command's environment and
// version; log as for createPipeline.
// A store this command creates is the user's: it is approved (see
// config.ApproveStore), so a later walk up to it needs no recollect trust.
func openPipelineAt(c *cli.Context, env Env, dir string, log *slog.Logger) (*pipeline.Pipeline, error) {
	_, statErr := os.Stat(filepath.Join(dir, store.DBFile))
	cfg, err := loadConfig(dir, env)
	if err != nil {
		return nil, err
	}
	opts := pipeline.Options{Getenv: env.Getenv, Log: log, Version: binaryVersion(), Config: &cfg}
	p, err := pipeline.Open(c.Context, dir, opts)
	if err != nil {
		return nil, err
	}
	if errors.Is(statErr, os.ErrNotExist) {
		if err := adoptStore(c.Context, p.Store(), dir, env); err != nil {
			return nil, errors.Join(err, p.Close())
		}
	}
	return p, nil
}

// adoptStore records a store this user's command made (or approved) as
// theirs: in a project store, a new random identity is written into it
// and the approval records it (config.ApproveStoreIdentity), so a file
// whose content is swapped for another's later is refused. A store that
// is not the data directory's file (one on a server) is approved as it is.
func adoptStore(ctx context.Context, db *store.DB, dir string, env Env) error {
	if !config.Subject(dir, env.Getenv) || !db.InDir() {
		return config.ApproveStore(dir, env.Getenv)
	}
	id, err := store.NewIdentity(ctx, db)
	if err != nil {
		return err
	}
	return config.ApproveStoreIdentity(dir, id, env.Getenv)
}

// checkIdentity refuses a project store whose database does not hold the
// identity its approval recorded: its content was replaced in place (a
// copy over it keeps the file's inode) since the user approved it.
func checkIdentity(ctx context.Context, dir string, env Env) error {
	want, err := config.StoreIdentity(dir, env.Getenv)
	if err != nil || want == "" {
		return err
	}
	path := filepath.Join(dir, store.DBFile)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	db, err := sqlite.OpenReader(ctx, dir)
	if err != nil {
		return &config.UntrustedError{Path: path, Changed: true, Store: true}
	}
	defer db.Close()
	got, err := store.Identity(ctx, db)
	if err != nil || got != want {
		return &config.UntrustedError{Path: path, Changed: true, Store: true}
	}
	return nil
}

// loadConfig reads dir's config.json for use: a project store's once,
// checked and then parsed from the same bytes (config.TrustedConfig), so a
// file swapped after the check cannot be what runs.
func loadConfig(dir string, env Env) (config.Config, error) {
	if config.Subject(dir, env.Getenv) {
		cfg, err := config.TrustedConfig(dir, env.Getenv)
		if err != nil {
			return cfg, err
		}
		// Before anything opens the database: opening it would replay a
		// WAL this machine's recollect did not write.
		if err := config.CheckWAL(dir, env.Getenv); err != nil {
			return cfg, err
		}
		return cfg, checkIdentity(context.Background(), dir, env)
	}
	return config.Load(dir)
}

// storeExists reports a missing store as one line that names the directory
// and the command that creates it. A directory whose config.json keeps the
// store on PostgreSQL has its store there: its schema is opened (and made,
// the first time) by whichever command comes first.
func storeExists(dir string) error {
	_, err := os.Stat(filepath.Join(dir, store.DBFile))
	if err == nil {
		return nil
	}
	if errors.Is(err, os.ErrNotExist) {
		cfg, cerr := config.Load(dir)
		if cerr != nil {
			return cerr // a broken config.json is the first thing to fix
		}
		if _, serr := os.Stat(filepath.Join(dir, config.FileName)); serr == nil && cfg.Storage.Provider == "postgres" {
			return nil
		}
		return fmt.Errorf("no store in %s; create one with: recollect init %s (or pass --data DIR of an existing store)", dir, dir)
	}
	return fmt.Errorf("open store in %s: %w", dir, err)
}

func versionCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the binary and schema versions",
		Action: func(c *cli.Context) error {
			fmt.Fprintf(env.Stdout, "recollect %s (schema %d, sqlite_fts5 on)\n", binaryVersion(), store.SchemaVersion)
			return nil
		},
	}
}

package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/scheduler"
)

func daemonCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "daemon",
		Usage:     "run in the foreground: follow the transcripts, answer hooks on the control socket, consolidate at the right moments (one per data directory)",
		ArgsUsage: " ",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("daemon takes no arguments (got %q)", c.Args().First())
			}
			dir, err := trustedDataDir(c, env)
			if err != nil {
				return err
			}
			// An editor's MCP server that consolidates while no daemon runs
			// steps back; the daemon takes the store over.
			release, from, err := scheduler.TakeOver(c.Context, dir, scheduler.DefaultShutdownTimeout+15*time.Second)
			if err != nil {
				return err
			}
			defer release()
			log, logFile, err := scheduler.DaemonLogger(dir, env.Stderr)
			if err != nil {
				return err
			}
			if from != nil {
				log.Info("took over copying and consolidating from the MCP server, which now defers to this daemon", "pid", from.PID)
			}
			p, err := openPipelineAt(c, env, dir, log)
			if err != nil {
				logFile.Close()
				return err
			}
			// The daemon stays up with a pool of connections, each keeping
			// pages: a smaller cache each holds its memory down.
			p.Store().LimitCache(daemonCacheKiB)
			p.LogSources()
			runErr := scheduler.New(p, scheduler.Options{Log: log, Reads: readServer(p)}).Run(c.Context)
			if runErr != nil {
				log.Error("daemon stopped with an error", "err", runErr)
			}
			closeErr := p.Close()
			if closeErr != nil {
				closeErr = fmt.Errorf("close store: %w", closeErr)
			}
			return errors.Join(runErr, closeErr, logFile.Close())
		},
	}
}

// daemonCacheKiB is the page cache of each of the daemon's SQLite
// connections, a quarter of what a command's keeps: the daemon stays up
// with up to four pooled connections, whose caches at 16 MiB each would
// be most of its memory on a large store, while a smaller one costs a
// search little CPU (the file's pages stay in the system's cache).
const daemonCacheKiB = 4096

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/cmd/recollect/mcpserver"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/scheduler"
)

func mcpCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve the memory tools and resources over MCP on stdin/stdout (an MCP client starts this)",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "no-scheduler", Usage: "do not copy and consolidate in this process when no daemon runs"}},
		Action: func(c *cli.Context) error {
			srv, p, err := newMCPServer(c.Context, c, env)
			if err != nil {
				return serveUnavailable(c, env, err)
			}
			defer p.Close()
			// A user who only pasted the MCP snippet still gets copying and
			// consolidation: the daemon's scheduler runs here while no
			// daemon holds this data directory, and steps back while one
			// does.
			ctx, cancel := context.WithCancel(c.Context)
			defer cancel()
			done := make(chan error, 1)
			if c.Bool("no-scheduler") {
				done <- nil
			} else {
				go func() {
					done <- scheduler.Standby(ctx, p, scheduler.Options{Reads: readServer(p)})
				}()
			}
			// A malformed line is answered and skipped, never the end of the
			// session (the SDK's IOTransport ends it).
			t := &mcpserver.LineTransport{Reader: io.NopCloser(env.Stdin), Writer: nopWriteCloser{env.Stdout}}
			err = srv.Run(ctx, t)
			cancel()
			return errors.Join(err, <-done)
		},
	}
}

// newMCPServer opens the store and builds the MCP server over it. The
// caller owns both and closes the pipeline after the server returns; the
// daemon-less scheduler can start from here with the same ctx.
func newMCPServer(ctx context.Context, c *cli.Context, env Env) (*mcpserver.Server, *pipeline.Pipeline, error) {
	log := slog.New(slog.NewTextHandler(env.Stderr, nil))
	dir, err := trustedDataDir(c, env)
	if err != nil {
		return nil, nil, err
	}
	cwd, _ := os.Getwd()
	if err := pluginFirstRun(ctx, env, dir, cwd); err != nil {
		log.Warn("could not make the store's config; serving it as it is", "err", err)
	}
	p, err := openPipelineAt(c, env, dir, log)
	if err != nil {
		return nil, nil, err
	}
	if err := p.Store().PingContext(ctx); err != nil {
		p.Close()
		return nil, nil, fmt.Errorf("open store for mcp: %w", err)
	}
	srv, err := mcpserver.New(p, mcpserver.Options{Version: binaryVersion(), HomeDir: env.Getenv("HOME"), Log: log})
	if err != nil {
		p.Close()
		return nil, nil, err
	}
	return srv, p, nil
}

// serveUnavailable answers the MCP client with why the store cannot be
// opened (a broken config.json, say) on every call, instead of exiting
// before the handshake, which a client shows only as "Connection closed".
// It returns cause once the client goes, for the exit status and stderr.
func serveUnavailable(c *cli.Context, env Env, cause error) error {
	dir, err := dataDir(c, env)
	if err != nil {
		return errors.Join(cause, err)
	}
	fmt.Fprintf(env.Stderr, "recollect: mcp: %s; answering every tool call with it\n", oneLine(cause.Error()))
	srv := mcpserver.NewUnavailable(dir, cause, mcpserver.Options{Version: binaryVersion(), HomeDir: env.Getenv("HOME"),
		Log: slog.New(slog.NewTextHandler(env.Stderr, nil))})
	t := &mcpserver.LineTransport{Reader: io.NopCloser(env.Stdin), Writer: nopWriteCloser{env.Stdout}}
	if err := srv.Run(c.Context, t); err != nil {
		return errors.Join(cause, err)
	}
	return cause
}

// nopWriteCloser keeps stdout open when the transport closes.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

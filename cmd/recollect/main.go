// Command recollect is a local memory engine for coding agents: it follows
// their transcripts, extracts durable facts, integrates them into a
// knowledge graph and answers agents over MCP and people on the CLI.
//
// This package is a thin shell: it builds the CLI app and maps errors to
// exit codes; the work happens in the library packages.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if !builtWithFTS5 {
		fmt.Fprintln(os.Stderr, "recollect: built without the sqlite_fts5 build tag, so search cannot work; rebuild with: go install -tags sqlite_fts5 ./cmd/recollect")
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Run(ctx, os.Args, Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv})
	stop()
	os.Exit(code)
}

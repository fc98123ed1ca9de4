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
	"time"

	"github.com/recollect/recollect/scheduler"
	"github.com/recollect/recollect/store/sqlite"
)

// hardStop is how long the process may keep running after SIGTERM or
// SIGINT: the daemon's shutdown moment has scheduler.DefaultShutdownTimeout,
// and closing the store a little more. Whatever is still running then (a
// read blocked in the kernel) does not keep the process alive.
const hardStop = scheduler.DefaultShutdownTimeout + 15*time.Second

// exitAfterSignal ends the process hardStop after the first signal if it
// has not ended by itself.
func exitAfterSignal(ctx context.Context) {
	<-ctx.Done()
	time.Sleep(hardStop)
	fmt.Fprintf(os.Stderr, "recollect: still running %s after the stop signal; exiting\n", hardStop)
	os.Exit(1)
}

func main() {
	if !sqlite.BuiltWithFTS5 {
		fmt.Fprintln(os.Stderr, "recollect: built without the sqlite_fts5 build tag, so search cannot work; rebuild with: go install -tags sqlite_fts5 ./cmd/recollect")
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go exitAfterSignal(ctx)
	code := Run(ctx, os.Args, Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv})
	stop()
	os.Exit(code)
}

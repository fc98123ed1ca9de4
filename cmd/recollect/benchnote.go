package main

import "github.com/urfave/cli/v2"

// benchMoved is what `recollect bench` answers: the benchmarks are a
// binary of their own, so the shipped recollect does not link them.
const benchMoved = "the benchmarks are not part of recollect: run recollect-bench (build it beside recollect with `go build -tags sqlite_fts5 -o bin/ ./cmd/...`)"

// benchElsewhere is a hidden command that points whoever types
// `recollect bench …` to recollect-bench, whatever follows it.
func benchElsewhere() *cli.Command {
	return &cli.Command{
		Name:            "bench",
		Hidden:          true,
		SkipFlagParsing: true,
		Action:          func(*cli.Context) error { return usagef("%s", benchMoved) },
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/pipeline"
)

func statsCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "stats",
		Usage: "what the store holds, every number read from it",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print as JSON"}},
		Action: func(c *cli.Context) error {
			p, err := openPipeline(c, env)
			if err != nil {
				return err
			}
			defer p.Close()
			st, err := p.Stats(c.Context)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				enc := json.NewEncoder(env.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			printStats(env.Stdout, st)
			return nil
		},
	}
}

func printStats(w io.Writer, st pipeline.Stats) {
	fmt.Fprintf(w, "store        %s (schema %d, %s)\n", st.DataDir, st.SchemaVersion, humanBytes(st.FileBytes))
	fmt.Fprintf(w, "provider     %s\n", st.Provider)
	fmt.Fprintf(w, "facts        %d active, %d total (%d superseded)\n", st.Facts.Active, st.Facts.Total, st.Facts.Superseded)
	printCounts(w, "  by source", st.FactsBy)
	fmt.Fprintf(w, "entities     %d\n", st.Entities)
	printCounts(w, "domains", st.Domains)
	fmt.Fprintf(w, "events       %d (%s)\n", st.Events.Count, humanBytes(st.Events.Bytes))
	keys := sortedKeys(st.Events.ByKind)
	for _, k := range keys {
		v := st.Events.ByKind[k]
		fmt.Fprintf(w, "  %-24s %d (%s)\n", k, v.Count, humanBytes(v.Bytes))
	}
	fmt.Fprintf(w, "unextracted  %d events\n", st.Unextracted)
	fmt.Fprintf(w, "pending      %d facts\n", st.Pending)
	printCounts(w, "  by source", st.PendingBy)
	printCounts(w, "skipped", st.Skipped)
	printCounts(w, "redactions", st.Redactions)
	for k, why := range st.Unknown {
		fmt.Fprintf(w, "%-12s unknown: %s\n", k, why)
	}
}

func printCounts(w io.Writer, label string, m map[string]int) {
	if len(m) == 0 {
		return
	}
	fmt.Fprintf(w, "%-12s", label)
	for i, k := range sortedKeys(m) {
		sep := ", "
		if i == 0 {
			sep = " "
		}
		fmt.Fprintf(w, "%s%s %d", sep, k, m[k])
	}
	fmt.Fprintln(w)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

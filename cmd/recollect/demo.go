package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/fixtures"
	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/pipeline/stats"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/config"
)

func demoCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "build a throwaway store from the bundled statements, consolidate with the heuristic provider, search and print stats",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "keep", Usage: "keep the throwaway store and print its path"}},
		Action: func(c *cli.Context) error {
			dir, err := os.MkdirTemp("", "recollect-demo-")
			if err != nil {
				return fmt.Errorf("demo: %w", err)
			}
			if !c.Bool("keep") {
				defer os.RemoveAll(dir)
			}
			// The heuristic provider is written into the store's config,
			// so the pipeline's model router is built with it at Open.
			cfg := config.Default()
			cfg.Intelligence.Provider = "heuristic"
			if err := config.Write(dir, cfg); err != nil {
				return fmt.Errorf("demo: %w", err)
			}
			p, err := pipeline.Open(c.Context, dir, pipeline.Options{})
			if err != nil {
				return err
			}
			defer p.Close()
			data, err := fixtures.FS.ReadFile("demo/statements.txt")
			if err != nil {
				return fmt.Errorf("demo: %w", err)
			}
			fmt.Fprintf(env.Stdout, "== recording the bundled conversation into %s\n", dir)
			for _, msg := range demoMessages(data) {
				ev := store.Event{SessionID: "demo", Source: "record", Role: "user", EventType: "message", ContentType: "text", Content: msg}
				res, err := p.Record(c.Context, []store.Event{ev})
				if err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "  event %d  %s\n", res.Seqs[0], firstLine(msg))
			}
			fmt.Fprintln(env.Stdout, "\n== consolidate (heuristic provider: verbatim declarative sentences, no model)")
			sum, err := p.Run(c.Context, pipeline.RunOptions{Trigger: "demo"})
			if err != nil {
				return err
			}
			printSummary(env.Stdout, sum)
			fmt.Fprintln(env.Stdout, "\n== search \"Atlas\"")
			ans, err := p.Reader.Search(c.Context, graph.Query{Text: "Atlas", Limit: 5})
			if err != nil {
				return err
			}
			graph.RenderAnswer(env.Stdout, ans)
			fmt.Fprintln(env.Stdout, "\n== stats")
			st, err := stats.Read(c.Context, p)
			if err != nil {
				return err
			}
			printStats(env.Stdout, st)
			if len(ans.Results) == 0 {
				return fmt.Errorf("demo: the search for Atlas found nothing; the heuristic pipeline is broken")
			}
			return nil
		},
	}
}

// demoMessages splits the statements file into messages: one per line,
// except a fenced code block, which stays one message.
func demoMessages(data []byte) []string {
	var out []string
	var block []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			block = append(block, line)
			if in {
				out = append(out, strings.Join(block, "\n"))
				block = nil
			}
			in = !in
			continue
		}
		if in {
			block = append(block, line)
			continue
		}
		if strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

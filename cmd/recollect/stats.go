package main

import (
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/extract/model"
	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/pipeline/stats"
	"github.com/recollect/recollect/store"
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
			st, err := stats.Read(c.Context, p)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(env.Stdout, st)
			}
			printStats(env.Stdout, st)
			return nil
		},
	}
}

// machineLine names this machine (its id's first 8 characters) and, on a
// store several machines can share, how many copy into it.
func machineLine(st stats.Stats) string {
	id := st.Storage.Machine
	if reason, ok := st.Unknown["storage.machine"]; ok {
		id = "unknown: " + reason
	} else if len(id) > 8 {
		id = id[:8]
	}
	if !st.Storage.Server {
		return id
	}
	if reason, ok := st.Unknown["storage.machines_copying"]; ok {
		return id + "; machines copying into this store unknown: " + reason
	}
	line := fmt.Sprintf("%s; %s copying into this store", id, text.Plural(st.Storage.Machines, "machine"))
	if st.Storage.Unowned > 0 {
		line += fmt.Sprintf(" (and %s copied before machines were told apart, not yet taken over)", text.Plural(st.Storage.Unowned, "file"))
	}
	return line
}

func printStats(w io.Writer, st stats.Stats) {
	fmt.Fprintf(w, "store        %s (schema %d, recollect %s)\n", st.DataDir, st.SchemaVersion, st.BinaryVersion)
	if st.Storage.Server {
		fmt.Fprintf(w, "storage      %s: %s\n", st.Storage.Engine, st.Storage.Where)
		fmt.Fprintf(w, "vectors      %s\n", orUnknown(st.Storage.Vectors, st.Unknown["storage.vectors"]))
		if st.Storage.LeftBehind != "" {
			fmt.Fprintf(w, "left behind  %s (%s), a SQLite store this one does not read; recollect store copy --from %s brings it in (safe to repeat), after which it can go\n",
				st.Storage.LeftBehind, humanBytes(st.Storage.LeftBehindBytes), st.Storage.LeftBehind)
		}
	}
	fmt.Fprintf(w, "machine      %s\n", machineLine(st))
	fmt.Fprintf(w, "provider     %s\n", st.Provider)
	// A count that could not be read says so in its own line, never 0.
	line := func(label, key string, text func() string) {
		if reason, ok := st.Unknown[key]; ok {
			fmt.Fprintf(w, "%-12s unknown: %s\n", label, reason)
			return
		}
		fmt.Fprintf(w, "%-12s %s\n", label, text())
	}
	line("facts", "facts", func() string {
		return fmt.Sprintf("%d active, %d total (%d superseded)", st.Facts.Active, st.Facts.Total, st.Facts.Superseded)
	})
	printCounts(w, "  by source", st.FactsBy)
	line("entities", "entities", func() string { return fmt.Sprint(st.Entities) })
	printCounts(w, "domains", st.Domains)
	line("events", "events", func() string { return fmt.Sprintf("%d (%s)", st.Events.Count, humanBytes(st.Events.Bytes)) })
	keys := sortedKeys(st.Events.ByKind)
	for _, k := range keys {
		v := st.Events.ByKind[k]
		fmt.Fprintf(w, "  %-24s %d (%s)\n", k, v.Count, humanBytes(v.Bytes))
	}
	line("unextracted", "unextracted_events", func() string { return text.Plural(st.Unextracted, "event") })
	line("pending", "pending_facts", func() string { return text.Plural(st.Pending, "fact") })
	printCounts(w, "  by source", st.PendingBy)
	printBacklog(w, st.Backlog)
	printClaims(w, st.Claims)
	if st.SignUpTo > 0 {
		fmt.Fprintf(w, "signatures   the next integrate run signs the stored facts again, up to fact %d, for near-duplicate lookups (once, after an upgrade; about a minute a million facts)\n", st.SignUpTo)
	}
	printCounts(w, "extracted by", st.Produced)
	printCounts(w, "skipped", st.Skipped)
	printCounts(w, "redactions", st.Redactions)
	printNotRead(w, st.NotRead)
	printSources(w, st.Sources)
	printEmbeddings(w, st.Embeddings)
	printSpend(w, st.Spend)
	printBudgets(w, st.Budgets)
	printModel(w, st.Model)
	printDisk(w, st.Disk)
	printDaemon(w, st.Daemon)
	shown := map[string]bool{"facts": true, "entities": true, "events": true, "unextracted_events": true, "pending_facts": true}
	for _, k := range sortedKeys(st.Unknown) {
		if !shown[k] {
			fmt.Fprintf(w, "%-12s unknown: %s\n", k, st.Unknown[k])
		}
	}
}

// printSources gives each configured source one line: home found or
// not, project folders, transcripts matched and skipped and why, and the
// last copy.
func printSources(w io.Writer, srcs []stats.SourceStats) {
	for _, s := range srcs {
		last := "never copied"
		if s.LastCopy != "" {
			last = fmt.Sprintf("%s copied, last at %s", text.Plural(s.FilesCopied, "file"), s.LastCopy)
		}
		fmt.Fprintf(w, "source       %s; %s\n", pipeline.SourceSummary(s.SourceReport), last)
	}
}

// printClaims says which pending facts an integrate run holds, who and
// since when.
func printClaims(w io.Writer, claims []stats.ClaimStats) {
	for _, c := range claims {
		note := "integrating"
		if c.Gone {
			note = "that process is gone; the next integrate run takes them over"
		}
		fmt.Fprintf(w, "  claimed    %d by %s (%s)\n", c.Facts, c.By, note)
	}
}

// printNotRead lists what the copier could not read, so a FIFO, a full
// disk or a folder without permission is not a silent gap.
func printNotRead(w io.Writer, nr stats.NotReadStats) {
	printCounts(w, "not read", nr.ByProblem)
	for _, r := range nr.Paths {
		fmt.Fprintf(w, "  %-24s %s: %s (%s since %s)\n", r.Problem, r.Path, r.Detail, plural(r.Failures, "failure", "failures"), r.Since)
	}
}

// printBacklog says how the backlog is worked through and when it will
// be done; without a projection the unknown line below says why.
func printBacklog(w io.Writer, b stats.BacklogStats) {
	eta := "done in an unknown time (see backlog.eta below)"
	if b.ETASeconds != nil {
		eta = "done in about " + (time.Duration(*b.ETASeconds * float64(time.Second))).Round(time.Second).String() + ": " + b.Basis
		if *b.ETASeconds == 0 {
			eta = b.Basis
		}
	}
	size := fmt.Sprintf("at most %d events a run", b.EventsPerBatch)
	if b.Drain {
		size = fmt.Sprintf("batches of %d to %d events", b.EventsPerBatch, b.MaxEventsPerBatch)
	}
	fmt.Fprintf(w, "backlog      %s, %s (%s); %s\n", b.Policy, size, b.Why, eta)
}

func printEmbeddings(w io.Writer, es stats.EmbeddingStats) {
	switch sem := es.Semantic; {
	case sem == nil:
		fmt.Fprintln(w, "semantic     off: no embedding provider configured (embedding.provider)")
	case sem.Dim == nil:
		fmt.Fprintf(w, "semantic     %s/%s: 0 of %d active facts embedded (no vector stored yet)\n", sem.Provider, sem.Model, sem.Missing)
	default:
		fmt.Fprintf(w, "semantic     %s/%s/%d: %d of %d active facts embedded (%d missing)\n",
			sem.Provider, sem.Model, *sem.Dim, sem.Embedded, sem.Embedded+sem.Missing, sem.Missing)
		if sem.Uncoded > 0 {
			fmt.Fprintf(w, "             %d vectors have no sign code yet, so search scans every vector; recollect consolidate writes them\n", sem.Uncoded)
		}
	}
	for _, s := range es.Leftover {
		fmt.Fprintf(w, "  leftover   %s/%s/%d: %d vectors kept, never compared with the working space\n", s.Provider, s.Model, s.Dim, s.Vectors)
	}
}

func spendLine(t stats.SpendTotal) string {
	if t.Calls == 0 {
		return "no model calls"
	}
	s := plural(t.Calls, "call", "calls")
	if t.Failed > 0 {
		s += fmt.Sprintf(" (%d failed)", t.Failed)
	}
	s += fmt.Sprintf(", %d input + %d output tokens", t.InputTokens, t.OutputTokens)
	if t.UnreportedCalls > 0 {
		s += fmt.Sprintf(" (%s did not report tokens)", plural(t.UnreportedCalls, "call", "calls"))
	}
	return s
}

func printSpend(w io.Writer, sp stats.SpendStats) {
	fmt.Fprintf(w, "spend        last 24 h: %s; all time: %s\n", spendLine(sp.Last24h), spendLine(sp.AllTime))
	for _, g := range []struct {
		label string
		m     map[string]stats.SpendTotal
	}{{"  by stage", sp.ByStage}, {"  by provider", sp.ByProvider}, {"  by model", sp.ByModel}} {
		for _, k := range sortedKeys(g.m) {
			fmt.Fprintf(w, "%-14s %s: %s\n", g.label, k, spendLine(g.m[k]))
		}
	}
	for _, r := range sp.LastRuns {
		if r.Error != "" {
			fmt.Fprintf(w, "  run %-8d %s %s: failed: %s\n", r.ID, r.Trigger, r.StartedAt, r.Error)
		}
		if r.Spend.Calls == 0 {
			continue
		}
		fmt.Fprintf(w, "  run %-8d %s %s: %s\n", r.ID, r.Trigger, r.StartedAt, spendLine(r.Spend))
	}
}

func printDisk(w io.Writer, d stats.DiskStats) {
	if d.Measured == "schema" {
		fmt.Fprintf(w, "schema       %s on the server, %s in use (live rows, as the server counts them)\n", humanBytes(d.FileBytes), humanBytes(d.UsedBytes))
	} else {
		fmt.Fprintf(w, "file         %s on disk, %s in use\n", humanBytes(d.FileBytes), humanBytes(d.UsedBytes))
	}
	fmt.Fprintf(w, "privacy      %s\n", d.Privacy)
	if d.CacheBytes == 0 {
		fmt.Fprintln(w, "caches       none (the embedding step writes them once facts have vectors)")
	} else {
		fmt.Fprintf(w, "caches       %s of vector codes and vectors beside the store, outside the disk budget; safe to delete (searches read the table instead)\n", humanBytes(d.CacheBytes))
	}
	if d.BudgetBytes == nil {
		fmt.Fprintln(w, "disk budget  none (retention.disk_budget is unset)")
	} else {
		fmt.Fprintf(w, "disk budget  %s: %s in use\n", d.Budget, humanBytes(d.UsedBytes))
	}
	printWindow(w, "retention", d.Window)
	fmt.Fprintf(w, "reclaimable  %s (%s); recollect prune --apply removes them\n", plural(d.ReclaimableEvents, "event", "events"), humanBytes(d.ReclaimableBytes))
	if d.LastPruneAt != "" && d.LastPruneEvents != nil {
		fmt.Fprintf(w, "  last prune %s: %s\n", d.LastPruneAt, text.Plural(*d.LastPruneEvents, "event"))
	}
	if r := d.LastRefusal; r != nil {
		fmt.Fprintf(w, "refused      %s refused for the disk budget, last at %s: %s\n", plural(r.Count, "write", "writes"), r.At, r.Message)
	}
}

// printWindow says what retention.window hides and deletes, on a line
// headed label (stats, prune).
func printWindow(w io.Writer, label string, r *pipeline.WindowReport) {
	if r == nil {
		fmt.Fprintf(w, "%-12s no window (retention.window is unset): nothing expires\n", label)
		return
	}
	if r.Facts+r.Events+r.Summaries == 0 {
		fmt.Fprintf(w, "%-12s window %s: nothing stored happened before %s\n", label, r.Window, r.Floor)
		return
	}
	past := fmt.Sprintf("%s, %s and %s happened before %s", text.Plural(r.Facts, "fact"), text.Plural(r.Events, "event"), text.Plural(r.Summaries, "summary"), r.Floor)
	if r.Applied {
		fmt.Fprintf(w, "%-12s window %s: %s and were deleted (%s)\n", label, r.Window, past, text.Plural(r.Rows, "row"))
		return
	}
	fmt.Fprintf(w, "%-12s window %s: %s; no read returns them, and the next consolidation or recollect prune --apply deletes them\n", label, r.Window, past)
}

func printDaemon(w io.Writer, d stats.DaemonStatus) {
	switch {
	case d.Listening && d.PID > 0 && d.Kind == "mcp":
		fmt.Fprintf(w, "daemon       none; recollect mcp (pid %d, an editor's or agent's MCP server) copies and consolidates until one starts, listening on %s\n", d.PID, d.Socket)
	case d.Listening && d.PID > 0:
		fmt.Fprintf(w, "daemon       listening (pid %d) on %s; it copies and consolidates\n", d.PID, d.Socket)
	case d.Listening:
		fmt.Fprintf(w, "daemon       listening on %s; %s\n", d.Socket, d.Note)
	default:
		fmt.Fprintf(w, "daemon       %s\n", d.Note)
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

func humanBytes(n int64) string { return pipeline.FormatBytes(n) }

// plural is "1 call" or "n calls".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func printBudgets(w io.Writer, bs []model.Budget) {
	if len(bs) == 0 {
		fmt.Fprintln(w, "budgets      none configured (intelligence.token_budget)")
		return
	}
	for _, b := range bs {
		line := fmt.Sprintf("budget       %s per %s: %d of %s tokens used, %d left", b.Provider, b.Window, b.Used, b.CapText, b.Remaining)
		if b.AgesOutAt != nil {
			line += "; the oldest usage ages out at " + store.FormatTime(*b.AgesOutAt)
		}
		if b.UnreportedCalls > 0 {
			line += fmt.Sprintf(" (%s reported no tokens)", plural(b.UnreportedCalls, "call", "calls"))
		}
		if b.Note != "" {
			line += "; " + b.Note
		}
		fmt.Fprintln(w, line)
	}
}

// orUnknown is s, or "unknown" with the reason when s could not be read.
func orUnknown(s, reason string) string {
	if s == "" {
		return "unknown: " + reason
	}
	return s
}

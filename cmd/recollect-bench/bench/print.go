package bench

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/recollect/recollect/graph/text"
)

// PrintLocomo writes the report as plain-text tables, one per route, the
// headline route first.
func PrintLocomo(w io.Writer, r LocomoReport) {
	fmt.Fprintf(w, "LoCoMo retrieval — %d conversations, %d turns, %d questions of categories 1-4\n",
		r.Conversations, r.Turns, r.Questions)
	for _, rr := range r.Routes {
		fmt.Fprintf(w, "\nroute %s: %d facts made, %d active, %s superseded; %d turns repeated a turn of their session word for word\n",
			rr.Route, rr.Facts, rr.Active, shareOf(rr.Superseded, rr.Facts), rr.DuplicateTurn)
		fmt.Fprintf(w, "ingest: %s total, %s per turn (store + consolidate)\n", rr.Ingest.Round(time.Millisecond), perItem(rr.Ingest, r.Turns))
		if rr.Embed > 0 {
			fmt.Fprintf(w, "embed: %s total, %s per fact (hybrid)\n", rr.Embed.Round(time.Millisecond), perItem(rr.Embed, rr.Active))
		}
		fmt.Fprintf(w, "%-18s %-8s %5s %9s %9s %7s %10s %10s\n", "system", "category", "n", "recall@5", "recall@10", "MRR", "p50", "p95")
		for _, s := range rr.Systems {
			row := func(cat string, sc Score, lat string) {
				fmt.Fprintf(w, "%-18s %-8s %5d %9.3f %9.3f %7.3f %s\n", s.Name, cat, sc.N, sc.RecallAt5, sc.RecallAt10, sc.MRR, lat)
			}
			row("all", s.Overall, fmt.Sprintf("%10s %10s", fmtDur(s.Latency.P50), fmtDur(s.Latency.P95)))
			for cat := 1; cat <= 4; cat++ {
				if sc, ok := s.ByCategory[cat]; ok {
					row(fmt.Sprintf("%d %s", cat, categoryName(cat)), sc, "")
				}
			}
		}
	}
	if r.Hybrid != "" {
		fmt.Fprintf(w, "\nrecollect hybrid: %s\n", r.Hybrid)
	}
	c := r.Cleaning
	fmt.Fprintf(w, "evidence cleaning: %d multi-id strings split, %d ids repaired, %d junk, %d ids naming no turn dropped, %d questions without evidence not scored\n",
		c.Split, c.Repaired, c.Junk, c.Missing, c.NoEvidence)
	fmt.Fprintf(w, "protocol: %s\n", r.Protocol)
}

// shareOf is "n (p%)" of total, or "n (share unknown: nothing made)".
func shareOf(n, total int) string {
	if total == 0 {
		return fmt.Sprintf("%d (share unknown: no fact was made)", n)
	}
	return fmt.Sprintf("%d (%.1f%%)", n, 100*float64(n)/float64(total))
}

func categoryName(cat int) string {
	return map[int]string{1: "multi", 2: "time", 3: "infer", 4: "single"}[cat]
}

func perItem(d time.Duration, n int) string {
	if n == 0 {
		return "unknown"
	}
	return fmtDur(d / time.Duration(n))
}

func fmtDur(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	}
	return strings.TrimSpace(d.Round(time.Millisecond).String())
}

// Targets of the systems table.
const (
	NotifyMax      = 10 * time.Millisecond
	NotifyNodeFrac = 15.0
	CopyMinRatio   = 0.5
	FollowP95Max   = time.Second
	SearchP50Max   = 20 * time.Millisecond
	SearchMaxRatio = 3.0
	// SearchRatioFrom is the smallest store the ratio to the raw query is
	// judged at (issue #15: "at 10k and above"); smaller ones are reported.
	SearchRatioFrom = 10_000
	// VectorMaxRatio bounds search with a query vector against text-only
	// search; FirstMaxRatio a new handle's first search with a vector
	// against the warm one.
	VectorMaxRatio = 1.5
	FirstMaxRatio  = 2.0
	// IntegrateMaxRatio bounds integrate's cost per fact in a big store
	// against the smallest one measured.
	IntegrateMaxRatio = 2.0
	// ImportMax bounds the time from a daemon's start on an imported
	// history until all of it is searchable.
	ImportMax    = 2 * time.Minute
	IdleRSSMaxKB = 40 << 10
	// SessionHookP50Max and PromptHookP50Max bound the context hooks'
	// whole-process medians.
	SessionHookP50Max = 60 * time.Millisecond
	PromptHookP50Max  = 80 * time.Millisecond
	// DaemonHookP95Max bounds the context hooks' whole-process p95 through
	// recollect-notify with a daemon serving the store, and
	// DaemonSearchP50Max the median of recollect search answered by it;
	// DaemonRSSMaxKB the daemon's resident memory after them.
	DaemonHookP95Max   = 15 * time.Millisecond
	DaemonSearchP50Max = 15 * time.Millisecond
	DaemonRSSMaxKB     = 60 << 10
	// IdleCPUMax is "no CPU": at most 0.1% of one core over the window.
	IdleCPUMax = 0.001
)

// PrintSystems writes the systems table: each figure beside its baseline
// from the same run, the ratio, the target and whether it is met.
func PrintSystems(w io.Writer, r SystemsReport) {
	m := r.Machine
	fmt.Fprintf(w, "machine: %s, %d CPUs, %s %s, load average %s\n", m.CPU, m.NumCPU, m.GoVersion, m.OS, m.LoadAvg)
	if r.Engine != "" {
		fmt.Fprintf(w, "engine of the copy and search stores: %s\n", r.Engine)
	}
	fmt.Fprintf(w, "%-12s %-30s %-36s %-14s %-30s %s\n", "figure", "recollect", "baseline (same run)", "ratio", "target", "met")
	row := func(name, fig, base, ratio, target string, ok bool) {
		fmt.Fprintf(w, "%-12s %-30s %-36s %-14s %-30s %s\n", name, fig, base, ratio, target, yesNo(ok))
	}
	// report prints a figure no target applies to: measured, not judged.
	report := func(name, fig, base, ratio string) {
		fmt.Fprintf(w, "%-12s %-30s %-36s %-14s %-30s %s\n", name, fig, base, ratio, "none (reported)", "-")
	}
	if n := r.Notify; n != nil {
		base := fmt.Sprintf("true %s", fmtDur(n.True))
		if n.Node > 0 {
			base = fmt.Sprintf("node -e 0 %s · %s", fmtDur(n.Node), base)
		}
		ofNode := func(d time.Duration) (string, bool) {
			if n.Node <= 0 {
				return "node unknown", false
			}
			return fmt.Sprintf("1/%.1f of node", float64(n.Node)/float64(d)), d <= NotifyMax && float64(n.Node)/float64(d) >= NotifyNodeFrac
		}
		if n.Hook > 0 {
			ratio, ok := ofNode(n.Hook)
			row("notify hook", fmt.Sprintf("%s median of %d", fmtDur(n.Hook), n.Runs), base, ratio, "≤ 10 ms and ≤ 1/15 of node", ok)
			if n.HookStart > 0 {
				fmt.Fprintf(w, "%-12s %-30s %s\n", "", fmt.Sprintf("(start only %s)", fmtDur(n.HookStart)), "recollect-notify --help: the process start inside the hook's time")
			}
		} else {
			fmt.Fprintf(w, "%-12s %s\n", "notify hook", n.HookMissing)
		}
		ratio, _ := ofNode(n.Notify)
		fmt.Fprintf(w, "%-12s %-30s %-36s %-14s %s\n", "notify full", fmt.Sprintf("%s median of %d", fmtDur(n.Notify), n.Runs), "recollect notify compaction", ratio, "(the full binary, for reference)")
	}
	for _, h := range r.Hooks {
		base := fmt.Sprintf("true %s", fmtDur(h.True.P50))
		if h.Node.N > 0 {
			base = fmt.Sprintf("node -e 0 %s · %s", fmtDur(h.Node.P50), base)
		}
		ofNode := func(d time.Duration) string {
			if h.Node.N == 0 || d <= 0 {
				return "node unknown"
			}
			return fmt.Sprintf("%.2f of node", float64(d)/float64(h.Node.P50))
		}
		row(fmt.Sprintf("start %dk", h.Facts/1000), fmt.Sprintf("p50 %s · p95 %s (%d)", fmtDur(h.SessionStart.P50), fmtDur(h.SessionStart.P95), h.Runs),
			base, ofNode(h.SessionStart.P50), "p50 ≤ 60 ms", h.SessionStart.P50 <= SessionHookP50Max)
		row(fmt.Sprintf("prompt %dk", h.Facts/1000), fmt.Sprintf("p50 %s · p95 %s (%d)", fmtDur(h.Prompt.P50), fmtDur(h.Prompt.P95), h.Runs),
			"the same", ofNode(h.Prompt.P50), "p50 ≤ 80 ms", h.Prompt.P50 <= PromptHookP50Max)
		fmt.Fprintf(w, "%-12s session-start context %d bytes; %d of %d prompts added facts, the rest nothing\n", "", h.SessionBytes, h.PromptAdded, h.Runs)
		report(fmt.Sprintf("search %s", sizeName(h.Facts)), fmt.Sprintf("p50 %s · p95 %s (%d)", fmtDur(h.Search.P50), fmtDur(h.Search.P95), h.Runs), "the same", ofNode(h.Search.P50))
		if h.DaemonMissing != "" {
			fmt.Fprintf(w, "%-12s %s\n", "", h.DaemonMissing)
			continue
		}
		report(fmt.Sprintf("fallback %s", sizeName(h.Facts)), fmt.Sprintf("p50 %s · p95 %s (%d)", fmtDur(h.Fallback.P50), fmtDur(h.Fallback.P95), h.Runs),
			"the same", ofNode(h.Fallback.P50))
		fmt.Fprintf(w, "%-12s %s\n", "", "(recollect-notify user-prompt with no daemon: it runs recollect hooks user-prompt)")
		dbase := fmt.Sprintf("true %s", fmtDur(h.DaemonTrue.P50))
		dNode := func(d time.Duration) string {
			if h.DaemonNode.N == 0 || d <= 0 {
				return "node unknown"
			}
			return fmt.Sprintf("%.2f of node", float64(d)/float64(h.DaemonNode.P50))
		}
		if h.DaemonNode.N > 0 {
			dbase = fmt.Sprintf("node -e 0 %s · %s", fmtDur(h.DaemonNode.P50), dbase)
		}
		row(fmt.Sprintf("d-start %s", sizeName(h.Facts)), fmt.Sprintf("p50 %s · p95 %s (%d)", fmtDur(h.DaemonSessionStart.P50), fmtDur(h.DaemonSessionStart.P95), h.Runs),
			dbase, dNode(h.DaemonSessionStart.P50), "p95 ≤ 15 ms", h.DaemonSessionStart.P95 <= DaemonHookP95Max)
		row(fmt.Sprintf("d-prompt %s", sizeName(h.Facts)), fmt.Sprintf("p50 %s · p95 %s (%d)", fmtDur(h.DaemonPrompt.P50), fmtDur(h.DaemonPrompt.P95), h.Runs),
			"the same", dNode(h.DaemonPrompt.P50), "p95 ≤ 15 ms", h.DaemonPrompt.P95 <= DaemonHookP95Max)
		row(fmt.Sprintf("d-search %s", sizeName(h.Facts)), fmt.Sprintf("p50 %s · p95 %s (%d)", fmtDur(h.DaemonSearch.P50), fmtDur(h.DaemonSearch.P95), h.Runs),
			"the same", dNode(h.DaemonSearch.P50), "p50 ≤ 15 ms", h.DaemonSearch.P50 <= DaemonSearchP50Max)
		row(fmt.Sprintf("d-lsearch %s", sizeName(h.Facts)), fmt.Sprintf("p50 %s · p95 %s (%d)", fmtDur(h.DaemonLeanSearch.P50), fmtDur(h.DaemonLeanSearch.P95), h.Runs),
			"the same", dNode(h.DaemonLeanSearch.P50), "p50 ≤ 15 ms", h.DaemonLeanSearch.P50 <= DaemonSearchP50Max)
		report(fmt.Sprintf("d-floor %s", sizeName(h.Facts)), fmt.Sprintf("p50 %s · p95 %s (%d)", fmtDur(h.DaemonFloor.P50), fmtDur(h.DaemonFloor.P95), h.Runs),
			"the same", dNode(h.DaemonFloor.P50))
		fmt.Fprintf(w, "%-12s %s\n", "", "(recollect-notify --help: the lean binary starting and printing, no daemon asked; every d- row above includes it)")
		row(fmt.Sprintf("d-rss %s", sizeName(h.Facts)), fmt.Sprintf("%.1f MB (peak %.1f MB)", float64(h.DaemonRSSKB)/1024, float64(h.DaemonPeakKB)/1024),
			"-", "-", "≤ 60 MB", h.DaemonRSSKB <= DaemonRSSMaxKB)
		fmt.Fprintf(w, "%-12s %s\n", "", "(d-: recollect-notify session-start|user-prompt, recollect search and recollect-notify search (lsearch) answered by a running daemon, in later rounds; "+h.Engine+")")
	}
	if c := r.CLI; c != nil {
		var base []string
		ratio := "sqlite3 unknown"
		if c.SQLite.N > 0 {
			base = append(base, "sqlite3 shell "+fmtDur(c.SQLite.P50))
			ratio = fmt.Sprintf("%.1f× sqlite3", float64(c.Search.P50)/float64(c.SQLite.P50))
		}
		base = append(base, "recollect version "+fmtDur(c.Start.P50))
		if c.GoStart.N > 0 {
			base = append(base, "recollect-notify --help "+fmtDur(c.GoStart.P50))
		}
		fmt.Fprintf(w, "%-12s %-30s %-36s %-14s %s\n", fmt.Sprintf("cli %s", sizeName(c.Facts)), fmt.Sprintf("p50 %s · p95 %s (%d)", fmtDur(c.Search.P50), fmtDur(c.Search.P95), c.Runs),
			strings.Join(base, " · "), ratio, "(recollect search as a whole process; no target)")
		for _, why := range []string{c.SQLiteMissing, c.GoStartMissing} {
			if why != "" {
				fmt.Fprintf(w, "%-12s %s\n", "", why)
			}
		}
	}
	if im := r.Import; im != nil {
		row(fmt.Sprintf("import %dMB", im.Bytes>>20), fmt.Sprintf("searchable after %s", fmtDur(im.Searchable)),
			fmt.Sprintf("consolidate --all %s", fmtDur(im.Baseline)), fmt.Sprintf("%.1f×", float64(im.Searchable)/float64(max(im.Baseline, 1))),
			"≤ 2 min", im.Searchable <= ImportMax)
		fmt.Fprintf(w, "%-12s %d files, %d events, %s; the daemon copies, drains and integrates by itself\n", "", im.Files, im.Events, text.Plural(im.Facts, "active fact"))
	}
	for _, in := range r.Integrate {
		first := r.Integrate[0]
		ratio := func(d, base time.Duration) (string, bool) {
			if in.Facts == first.Facts || base <= 0 {
				return "(the baseline)", true
			}
			x := float64(d) / float64(base)
			return fmt.Sprintf("%.2f× %s", x, sizeName(first.Facts)), x <= IntegrateMaxRatio
		}
		x, ok := ratio(in.Lookup, first.Lookup)
		row("dedupe "+sizeName(in.Facts), fmt.Sprintf("%s per fact (%d facts)", fmtDur(in.Lookup), in.New),
			fmt.Sprintf("store-wide OR query %s", fmtDur(in.OR)), x, "≤ 2× the smallest store", ok)
		x, ok = ratio(in.PerFact, first.PerFact)
		per := fmt.Sprintf("%s per fact", fmtDur(in.PerFact))
		if len(in.Rounds) > 1 {
			rounds := make([]string, len(in.Rounds))
			for i, d := range in.Rounds {
				rounds[i] = fmtDur(d)
			}
			per = fmt.Sprintf("%s per fact, median of %d rounds (%s)", fmtDur(in.PerFact), len(in.Rounds), strings.Join(rounds, " · "))
		}
		row("integrate "+sizeName(in.Facts), per, "", x, "≤ 2× the smallest store", ok)
	}
	if c := r.Copy; c != nil {
		row("copy", fmt.Sprintf("%.0f lines/s (%dk lines)", c.CopyRate, c.Lines/1000), fmt.Sprintf("raw batched insert %.0f lines/s", c.RawRate),
			fmt.Sprintf("%.2f of raw", c.CopyToRaw), "≥ 0.50 of raw", c.CopyToRaw >= CopyMinRatio)
	}
	if f := r.Follow; f != nil {
		row("follow", fmt.Sprintf("p50 %s · p95 %s (%d)", fmtDur(f.Latency.P50), fmtDur(f.Latency.P95), f.Appends), "-", "-", "p95 < 1 s", f.Latency.P95 < FollowP95Max)
	}
	// The raw query is the engine's own full-text best 20; the 20 ms bound
	// is stated for the embedded store, the ratio for both engines.
	raw, sqlite := "FTS5 MATCH", r.Engine != "postgres"
	if !sqlite {
		raw = "ts_rank query"
	}
	for _, s := range r.Search {
		target, ok := "p50 ≤ 3× "+raw, s.P50Ratio <= SearchMaxRatio
		if s.Facts >= 100_000 && sqlite {
			target, ok = "p50 ≤ 20 ms and ≤ 3× FTS5", ok && s.Hybrid.P50 <= SearchP50Max
		}
		// The ratio to the raw query is a target from 10k facts up; below,
		// fixed costs dwarf a raw query of a few hundred microseconds.
		judge := row
		if s.Facts < SearchRatioFrom {
			judge = func(name, fig, base, ratio, _ string, _ bool) { report(name, fig, base, ratio) }
		}
		judge(fmt.Sprintf("search %dk", s.Facts/1000), fmt.Sprintf("p50 %s · p95 %s", fmtDur(s.Hybrid.P50), fmtDur(s.Hybrid.P95)),
			fmt.Sprintf("%s p50 %s · p95 %s", raw, fmtDur(s.Raw.P50), fmtDur(s.Raw.P95)), fmt.Sprintf("%.1f×", s.P50Ratio), target, ok)
		if s.Vectors.N > 0 && s.Raw.P50 > 0 {
			ratio := float64(s.Vectors.P50) / float64(s.Raw.P50)
			vok := ratio <= SearchMaxRatio && (s.Facts < 100_000 || !sqlite || s.Vectors.P50 <= SearchP50Max)
			judge(fmt.Sprintf("  +%d-d vec", VectorDim), fmt.Sprintf("p50 %s · p95 %s", fmtDur(s.Vectors.P50), fmtDur(s.Vectors.P95)),
				"the same "+raw, fmt.Sprintf("%.1f×", ratio), target, vok)
			row("  vec/text", fmt.Sprintf("p50 %s with a vector", fmtDur(s.Vectors.P50)), fmt.Sprintf("text-only search p50 %s", fmtDur(s.Hybrid.P50)),
				fmt.Sprintf("%.2f×", s.VectorRatio), "p50 ≤ 1.5× text-only", s.VectorRatio <= VectorMaxRatio)
		}
		if s.FirstRuns > 0 && s.WarmVector > 0 {
			ratio := float64(s.FirstVector) / float64(s.WarmVector)
			row("  vec first", fmt.Sprintf("%s new handle, open to answer (median of %d)", fmtDur(s.FirstVector), s.FirstRuns),
				fmt.Sprintf("the same warm %s", fmtDur(s.WarmVector)), fmt.Sprintf("%.2f×", ratio), "≤ 2× warm", ratio <= FirstMaxRatio)
		}
	}
	if i := r.Idle; i != nil {
		share := i.CPU.Seconds() / i.Window.Seconds()
		row(fmt.Sprintf("idle %s", i.Window.Round(time.Second)), fmt.Sprintf("RSS %.1f MB · CPU %s", float64(i.RSSKB)/1024, i.CPU),
			"-", fmt.Sprintf("%.3f%% of a core", 100*share), "RSS < 40 MB, no CPU (≤ 0.1%)", i.RSSKB < IdleRSSMaxKB && share <= IdleCPUMax)
	}
	for part, why := range r.Failed {
		fmt.Fprintf(w, "%-12s not measured: %s\n", part, why)
	}
	if len(r.Search) > 0 {
		fmt.Fprintf(w, "search arms: %s; with a query vector: %s (synthetic %d-component vectors in %d topics: the cost of the arm, not its quality)\n",
			strings.Join(r.Search[0].Arms, ", "), strings.Join(r.Search[0].VectorArms, ", "), VectorDim, vectorTopics)
	}
	for _, s := range r.Search {
		if len(s.Recall) != len(RecallCandidates) {
			continue
		}
		var parts []string
		for i, c := range RecallCandidates {
			parts = append(parts, fmt.Sprintf("%d → %.3f", c, s.Recall[i]))
		}
		fmt.Fprintf(w, "vector candidates %s: recall@%d against exact cosine over every vector (%d queries), by candidates picked: %s\n",
			sizeName(s.Facts), RecallK, s.RecallQueries, strings.Join(parts, " · "))
	}
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}

// sizeName is a store size as 1k, 100k, 1M.
func sizeName(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

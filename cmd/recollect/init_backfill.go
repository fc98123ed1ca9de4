package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/recollect/recollect/graph/text"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/sources"
)

// offerBackfill counts the lines already in the new copy store's
// transcripts, says what extracting them costs with the configured
// provider and, when the user says yes (a walk-through only), runs copy →
// extract → integrate with progress and a closing summary.
func offerBackfill(ctx context.Context, env Env, a *asker, dir string) error {
	p, err := pipeline.Open(ctx, dir, pipeline.Options{Getenv: env.Getenv, Log: discardLogger(), Version: binaryVersion()})
	if err != nil {
		return err
	}
	defer p.Close()
	files, err := sources.MatchedFiles(p.Config.Sources, env.Getenv)
	if err != nil {
		return err
	}
	lines, bytes := countLines(files)
	if lines == 0 {
		fmt.Fprintf(env.Stdout, "backfill: no transcript of the configured source exists yet; new conversations are copied as they happen\n")
		return nil
	}
	fmt.Fprintf(env.Stdout, "backfill: %s (%s) in %s already exist; %s\n", text.Plural(lines, "line"), humanBytes(bytes),
		text.Plural(len(files), "transcript"), extractionEstimate(p.ProviderName(), lines, p.Config.Extraction.BatchSize))
	if a == nil {
		fmt.Fprintf(env.Stdout, "backfill: run recollect consolidate --all --data %s (or start the daemon) to take them in\n", dir)
		return nil
	}
	def := "y"
	if p.ProviderName() != "heuristic" {
		def = "n" // a model provider costs time and perhaps money: ask for a yes
	}
	ans, err := a.ask("Backfill them now: copy, extract and integrate (y/n)?", def, yesNo)
	if err != nil || ans != "y" {
		return err
	}
	return backfill(ctx, env, p)
}

// extractionEstimate says how long extraction of lines takes with
// provider: the heuristic needs no model; a model provider makes about one
// call per batch of conversation lines (fewer: tool output and progress
// records are not extracted), each some seconds.
func extractionEstimate(provider string, lines, batch int) string {
	if provider == "heuristic" {
		return "the built-in heuristic extracts them without a model, in seconds to a few minutes"
	}
	if batch <= 0 {
		batch = 50
	}
	calls := (lines + batch - 1) / batch
	lo, hi := time.Duration(calls)*5*time.Second, time.Duration(calls)*30*time.Second
	return fmt.Sprintf("with provider %s, at most %s of up to %d lines (only conversation lines count), about %s to %s at 5–30 s a call",
		provider, text.Plural(calls, "model call"), batch, lo.Round(time.Minute), hi.Round(time.Minute))
}

func countLines(files []string) (lines int, size int64) {
	buf := make([]byte, 1<<20)
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		for {
			n, err := f.Read(buf)
			lines += bytes.Count(buf[:n], []byte{'\n'})
			size += int64(n)
			if err != nil {
				break
			}
		}
		f.Close()
	}
	return lines, size
}

// backfill runs copy, then extract batch by batch with a progress bar,
// then integrate, and closes with what it did.
func backfill(ctx context.Context, env Env, p *pipeline.Pipeline) error {
	start := time.Now()
	bar := newProgress(env.Stdout)
	sum, err := p.Run(ctx, pipeline.RunOptions{Steps: pipeline.Steps{Copy: true}, Trigger: "init"})
	if err != nil {
		return fmt.Errorf("backfill: copy: %w", err)
	}
	copied := 0
	if sum.Copy != nil {
		copied = sum.Copy.Events
	}
	fmt.Fprintf(env.Stdout, "backfill: copied %s\n", text.Plural(copied, "event"))
	stage, err := p.ExtractStage(ctx)
	if err != nil {
		return err
	}
	total, err := stage.Remaining(ctx)
	if err != nil {
		return err
	}
	facts, done := 0, 0
	for remaining := total; remaining > 0; {
		bar.show("extract", done, total)
		sum, err := p.Run(ctx, pipeline.RunOptions{Steps: pipeline.Steps{Extract: true}, Trigger: "init"})
		if err != nil {
			bar.end()
			return fmt.Errorf("backfill: extract: %w", err)
		}
		e := sum.Extract
		if e == nil || e.EventsRemaining >= remaining {
			break // held or no progress: the daemon goes on later
		}
		facts += e.FactsExtracted
		done += remaining - e.EventsRemaining
		remaining = e.EventsRemaining
	}
	bar.show("extract", done, total)
	bar.end()
	sum, err = p.Run(ctx, pipeline.RunOptions{Steps: pipeline.Steps{Integrate: true}, Trigger: "init"})
	if err != nil {
		return fmt.Errorf("backfill: integrate: %w", err)
	}
	integrated := 0
	if sum.Integrate != nil {
		integrated = sum.Integrate.Integrated
	}
	fmt.Fprintf(env.Stdout, "backfill: %s copied, %s examined, %s extracted, %s integrated in %s\n",
		text.Plural(copied, "event"), text.Plural(done, "event"), text.Plural(facts, "fact"), text.Plural(integrated, "fact"),
		time.Since(start).Round(time.Second))
	if done < total {
		fmt.Fprintf(env.Stdout, "backfill: %s still wait for extraction (see recollect stats); the daemon takes them in\n", text.Plural(total-done, "event"))
	}
	return nil
}

// progress draws one bar that rewrites its line, on a terminal only;
// elsewhere it prints nothing.
type progress struct {
	w  io.Writer
	on bool
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	if fw, isFW := w.(interface{ File() *os.File }); isFW {
		f = fw.File()
		ok = f != nil
	}
	on := false
	if ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			on = true
		}
	}
	return &progress{w: w, on: on}
}

func (b *progress) show(label string, done, total int) {
	if !b.on || total <= 0 {
		return
	}
	const width = 30
	filled := min(width, done*width/total)
	fmt.Fprintf(b.w, "\r%-8s [%s%s] %3d%% %d/%d", label, strings.Repeat("#", filled), strings.Repeat(".", width-filled), done*100/total, done, total)
}

func (b *progress) end() {
	if b.on {
		fmt.Fprintln(b.w)
	}
}

// discardLogger keeps the pipeline's log lines off the walk-through.
func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

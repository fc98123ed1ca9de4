// Package scheduler runs recollect in the background for one data
// directory: it follows the configured transcript sources as they are
// written, serves the control socket that hooks reach, and decides which
// consolidation steps run at which moment (the Moments table). Both the
// daemon and an MCP server that finds no daemon run it.
//
// It owns the daemon's lifecycle (lock, socket, log, shutdown) and its
// policies; the steps themselves are pipeline's, and the follower copies
// through the pipeline's one Copier (the one the MCP server in the same
// process copies with), watching with a sources Watcher.
package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/hooks/notice"
	"github.com/recollect/recollect/pipeline"
)

// DefaultShutdownTimeout bounds the integrate run at a clean shutdown.
const DefaultShutdownTimeout = 30 * time.Second

// Options tune a Scheduler; the zero value is what the daemon uses.
type Options struct {
	// Log receives the scheduler's lines; the pipeline's logger when nil.
	Log *slog.Logger
	// Now is the clock of the threshold interval; time.Now when nil.
	Now func() time.Time
	// ShutdownTimeout bounds the integrate run at shutdown;
	// DefaultShutdownTimeout when zero.
	ShutdownTimeout time.Duration
	// Kind is who runs the scheduler, KindDaemon when "". A KindMCP
	// scheduler steps back (its Run returns) when a daemon asks it to.
	Kind string
	// StandbyPoll is how often Standby looks whether the store is free;
	// DefaultStandbyPoll when zero.
	StandbyPoll time.Duration
	// Reads answers the read requests — context hooks (notice.OpContext)
	// and searches (notice.OpSearch) — from this process's open store. Nil
	// refuses them, and the client reads the store itself.
	Reads func(context.Context, notice.Request) control.Response
}

// Scheduler follows one data directory's sources and runs its pipeline at
// the moments of the Moments table. Create it with New, run it with Run
// while holding the directory's lock (Lock or TryLock).
type Scheduler struct {
	p    *pipeline.Pipeline
	opts Options
	log  *slog.Logger
	wake chan struct{}

	// policy is how the backlog is worked through, decided at Run.
	policy pipeline.BacklogPolicy

	mu      sync.Mutex
	pending batch
	running bool
	// settled is closed, and replaced, each time a run ends, so a wait
	// request learns of it without polling.
	settled chan struct{}
	// waiting counts the wait requests held in waitSettled.
	waiting   int
	lastGated time.Time
	status    control.Status
	// backlog is the unexamined events the last extracting run left; a
	// draining policy runs batches while it is above zero.
	backlog int
	// drainLimit is the next backlog batch's size (nextDrainLimit); only
	// the worker goroutine reads and writes it.
	drainLimit int
	// followed counts the events the follower stored since the last run's
	// line was logged: that line reports them with the run's own copies.
	followed int64
	// yield ends Run for a daemon that takes over (KindMCP only); yielded
	// says it was asked.
	yield   context.CancelFunc
	yielded bool
}

// batch is the notifications waiting for the next run.
type batch struct {
	moments map[notice.Moment]bool
	paths   []string
	count   int
}

func (b *batch) add(m notice.Moment, path string) {
	if b.moments == nil {
		b.moments = map[notice.Moment]bool{}
	}
	b.moments[m] = true
	b.count++
	if path == "" {
		return
	}
	for _, p := range b.paths {
		if p == path {
			return
		}
	}
	b.paths = append(b.paths, path)
}

// New builds a scheduler over an opened pipeline. The pipeline stays the
// caller's: Run does not close it.
func New(p *pipeline.Pipeline, opts Options) *Scheduler {
	if opts.Log == nil {
		opts.Log = p.Logger()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ShutdownTimeout == 0 {
		opts.ShutdownTimeout = DefaultShutdownTimeout
	}
	if opts.Kind == "" {
		opts.Kind = KindDaemon
	}
	return &Scheduler{
		p: p, opts: opts, log: opts.Log,
		wake:    make(chan struct{}, 1),
		settled: make(chan struct{}),
		status:  control.Status{PID: os.Getpid(), Kind: opts.Kind, DataDir: p.Dir(), Runs: map[string]int{}},
	}
}

// Run serves the data directory until ctx is cancelled: it runs the start
// moment, follows the sources, answers the control socket, and at the end
// runs the shutdown moment (integrate) even though ctx is done. The caller
// must hold the directory's lock. Failures of single runs are logged and
// reported in Status, not returned; Run returns what kept it from serving
// or from shutting down cleanly.
func (s *Scheduler) Run(ctx context.Context) error {
	dir := s.p.Dir()
	if s.opts.Kind == KindMCP {
		var stop context.CancelFunc
		ctx, stop = context.WithCancel(ctx)
		defer stop()
		s.mu.Lock()
		s.yield = stop
		s.mu.Unlock()
	}
	if err := privateDir(dir, s.log); err != nil {
		return err
	}
	fol, err := newFollower(s.p, s.log)
	if err != nil {
		return err
	}
	ln, err := listen(notice.SocketPath(dir), s.log)
	if err != nil {
		return err
	}
	s.policy = s.p.BacklogPolicy()
	s.mu.Lock()
	s.status.Started = s.opts.Now().UTC()
	s.mu.Unlock()
	srv := &server{ln: ln, handle: s.handle, log: s.log}
	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	// The start run waits for the follower's first pass over every file,
	// so the two never copy the same backlog side by side.
	followed := make(chan struct{})
	followFailed := make(chan error, 1)
	if fol == nil {
		close(followed)
	} else {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.follow(inner, fol, followed); err != nil && inner.Err() == nil {
				followFailed <- err
			}
		}()
	}
	s.enqueue(notice.MomentStart, "")
	wg.Add(2)
	go func() { defer wg.Done(); s.work(inner, followed, fol) }()
	go func() { defer wg.Done(); srv.serve(inner) }()
	s.log.Info("daemon started", "as", Describe(s.opts.Kind), "data", dir, "pid", os.Getpid(), "socket", notice.SocketPath(dir), "mode", s.p.Config.Mode,
		"backlog", s.policy.Name(), "why", s.policy.Why)

	var followErr error
	select {
	case <-ctx.Done():
		s.log.Info("shutting down")
	case err := <-followFailed:
		followErr = fmt.Errorf("follow sources: %w", err)
		s.log.Error("stopping: cannot follow the sources", "err", err)
	}
	cancel()
	closeErr := srv.close()
	wg.Wait()
	shutErr := s.shutdown(ctx)
	return errors.Join(followErr, closeErr, shutErr)
}

// shutdown runs the shutdown moment on a context that outlives ctx.
func (s *Scheduler) shutdown(ctx context.Context) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.ShutdownTimeout)
	defer cancel()
	if _, err := s.runPlan(sctx, Moments[notice.MomentShutdown], notice.MomentShutdown, 0); err != nil {
		return fmt.Errorf("integrate at shutdown: %w", err)
	}
	s.log.Info("daemon stopped")
	return nil
}

// Yielded reports whether a daemon asked this scheduler to step back.
func (s *Scheduler) Yielded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.yielded
}

// Notify queues the run a moment calls for and says what became of it, as
// the control socket would. Runs happen on Run's goroutine.
func (s *Scheduler) Notify(req notice.Request) control.Response {
	return s.handle(context.Background(), req)
}

// Status reports what the scheduler is doing.
func (s *Scheduler) Status() control.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status
	st.Running, st.Pending, st.Waiting = s.running, s.pending.count > 0, s.waiting
	st.Runs = make(map[string]int, len(s.status.Runs))
	for k, v := range s.status.Runs {
		st.Runs[k] = v
	}
	return st
}

// handle answers one control request.
func (s *Scheduler) handle(ctx context.Context, req notice.Request) control.Response {
	switch req.Op {
	case notice.OpStatus:
		st := s.Status()
		return control.Response{OK: true, Message: "running", Status: &st}
	case notice.OpWait:
		return s.waitSettled(ctx, time.Duration(min(max(req.WaitMS, 0), notice.MaxWaitMS))*time.Millisecond)
	case notice.OpYield:
		s.mu.Lock()
		yield := s.yield
		if yield != nil {
			s.yielded = true
		}
		s.mu.Unlock()
		if yield == nil {
			return control.Response{Message: "a daemon does not step back; stop it first"}
		}
		s.log.Info("a daemon takes this data directory over; this MCP server's scheduler steps back")
		yield()
		return control.Response{OK: true, Message: "stepping back: the MCP server stops copying and consolidating once its last run ends"}
	case notice.OpNotify:
		m, err := notice.ParseMoment(string(req.Moment))
		if err != nil {
			return control.Response{Message: err.Error()}
		}
		return control.Response{OK: true, Message: s.enqueue(m, req.TranscriptPath)}
	case notice.OpContext, notice.OpSearch:
		if s.opts.Reads == nil {
			return control.Response{Message: "this scheduler does not answer " + req.Op + " requests; read the store directly"}
		}
		resp := s.opts.Reads(ctx, req)
		if resp.OK {
			s.mu.Lock()
			s.status.Answered++
			s.mu.Unlock()
		}
		return resp
	}
	return control.Response{Message: fmt.Sprintf("unknown op %q; use %s, %s, %s, %s, %s or %s", req.Op, notice.OpNotify, notice.OpStatus, notice.OpWait, notice.OpYield, notice.OpContext, notice.OpSearch)}
}

// waitSettled answers once no run is in flight or queued, or when limit
// (or ctx) runs out, with the status at that moment: Running or Pending
// still set means the wait ran out first.
func (s *Scheduler) waitSettled(ctx context.Context, limit time.Duration) control.Response {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		s.mu.Lock()
		busy := s.running || s.pending.count > 0
		settled := s.settled
		if busy {
			s.waiting++
		}
		s.mu.Unlock()
		if !busy {
			st := s.Status()
			return control.Response{OK: true, Message: "no consolidation in flight", Status: &st}
		}
		var ended string
		select {
		case <-settled:
		case <-timer.C:
			ended = fmt.Sprintf("a consolidation is still in flight after %s", limit)
		case <-ctx.Done():
			ended = "stopped waiting: the daemon is shutting down"
		}
		s.mu.Lock()
		s.waiting--
		s.mu.Unlock()
		if ended != "" {
			st := s.Status()
			return control.Response{OK: true, Message: ended, Status: &st}
		}
	}
}

// enqueue adds a moment to the next run and wakes the worker. Whatever
// arrives while a run is in flight joins one follow-up run.
func (s *Scheduler) enqueue(m notice.Moment, path string) string {
	s.mu.Lock()
	joined := s.pending.count > 0
	s.pending.add(m, path)
	running := s.running
	if joined {
		s.status.Coalesced++
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	switch {
	case joined:
		return fmt.Sprintf("%s noted; joined the run already queued", m)
	case running:
		return fmt.Sprintf("%s noted; runs after the one in progress", m)
	}
	return fmt.Sprintf("%s noted; run queued", m)
}

// take hands the pending batch to the worker and marks a run in flight.
func (s *Scheduler) take() batch {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.pending
	s.pending = batch{}
	s.running = b.count > 0
	return b
}

func (s *Scheduler) done() {
	s.mu.Lock()
	s.running = false
	close(s.settled)
	s.settled = make(chan struct{})
	s.mu.Unlock()
}

// work runs queued batches one at a time until ctx ends, starting once
// followed is closed. Under a draining policy, while events wait it runs
// backlog batches DrainPause apart; a notification that arrives in the
// pause runs first, and cancelling ctx stops the drain between batches
// or inside one (the batch's watermarks stay where its last commit left
// them).
func (s *Scheduler) work(ctx context.Context, followed <-chan struct{}, fol *follower) {
	select {
	case <-ctx.Done():
		return
	case <-followed:
	}
	for {
		var drain <-chan time.Time
		var timer *time.Timer
		if s.draining() {
			timer = time.NewTimer(pipeline.DrainPause)
			drain = timer.C
		}
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-drain:
			// A notification that arrived with the pause's end runs
			// before the next batch: select alone would pick at random.
			select {
			case <-s.wake:
			default:
				s.drainBatch(ctx)
				continue
			}
		}
		if timer != nil {
			timer.Stop()
		}
		b := s.take()
		if b.count == 0 {
			continue
		}
		s.runBatch(ctx, b, fol)
		s.done()
	}
}

// drainBatch runs one backlog batch. A batch that fails or examines
// nothing (every waiting conversation held) ends the drain until the next
// notification, so a broken provider is not retried back to back.
func (s *Scheduler) drainBatch(ctx context.Context) {
	s.mu.Lock()
	s.running = true
	s.mu.Unlock()
	defer s.done()
	limit := s.drainLimit
	if limit <= 0 {
		limit = s.p.Config.Scheduler.ExtractCap
	}
	start := time.Now()
	sum, err := s.runPlan(ctx, drainPlan, MomentBacklog, limit)
	s.drainLimit = nextDrainLimit(limit, s.p.Config.Scheduler.ExtractCap, time.Since(start))
	switch {
	case err != nil && ctx.Err() == nil:
		s.fail(fmt.Errorf("%s run: %w", MomentBacklog, err))
		s.setBacklog(0)
	case err == nil && sum.Extract != nil && sum.Extract.EventsExamined == 0:
		s.log.Warn("backlog drain paused: a batch examined nothing", "remaining", sum.Extract.EventsRemaining, "held", len(sum.Extract.Held))
		s.setBacklog(0)
	}
}

// DrainTarget is the work one backlog batch aims at: batches start at
// scheduler.extract_cap events and double while one takes under it (up
// to DrainMaxFactor times the cap), halve when one takes over twice it,
// so a fast extractor (the heuristic) drains in few batches — each run
// also pays a fixed cost that grows with the store — and a slow model
// still yields between short ones.
const (
	DrainTarget    = time.Second
	DrainMaxFactor = pipeline.DrainMaxFactor
)

// nextDrainLimit sizes the next backlog batch from the last one's.
func nextDrainLimit(limit, limitCap int, took time.Duration) int {
	switch {
	case took < DrainTarget && limit < limitCap*DrainMaxFactor:
		return min(limit*2, limitCap*DrainMaxFactor)
	case took > 2*DrainTarget && limit > limitCap:
		return max(limit/2, limitCap)
	}
	return limit
}

// draining reports whether a backlog batch is due: the policy drains and
// the last extracting run left events unexamined.
func (s *Scheduler) draining() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.policy.Drain && s.backlog > 0
}

func (s *Scheduler) setBacklog(n int) {
	s.mu.Lock()
	s.backlog = n
	s.mu.Unlock()
}

// runBatch performs one run for every moment in b: the transcripts the
// notifications named are copied first, then the merged plan runs.
func (s *Scheduler) runBatch(ctx context.Context, b batch, fol *follower) {
	plan, name := merge(b.moments)
	if plan.Copy && fol != nil && len(b.paths) > 0 {
		s.copyPaths(ctx, fol, b.paths)
	}
	if plan.Gated && !s.policy.Drain {
		due, why, err := s.due(ctx)
		if err != nil {
			s.fail(fmt.Errorf("check threshold: %w", err))
			return
		}
		if !due {
			s.mu.Lock()
			s.status.Skipped++
			s.mu.Unlock()
			s.log.Debug("threshold not due", "why", why)
			return
		}
		s.mu.Lock()
		s.lastGated = s.opts.Now()
		s.mu.Unlock()
	}
	if _, err := s.runPlan(ctx, plan, name, 0); err != nil && ctx.Err() == nil {
		s.fail(fmt.Errorf("%s run: %w", name, err))
	}
}

// runPlan runs plan's steps through the pipeline, named after moment,
// extracting at most limit events (scheduler.extract_cap when 0).
func (s *Scheduler) runPlan(ctx context.Context, plan Plan, moment notice.Moment, limit int) (pipeline.Summary, error) {
	if limit <= 0 {
		limit = s.p.Config.Scheduler.ExtractCap
	}
	sum, err := s.p.Run(ctx, pipeline.RunOptions{
		Steps:   plan.steps(),
		Extract: extract.Options{Limit: limit},
		Trigger: string(moment),
	})
	if err != nil {
		return sum, err
	}
	s.mu.Lock()
	if sum.Extract != nil {
		s.backlog = sum.Extract.EventsRemaining
	}
	s.status.Runs[string(moment)]++
	recovered := s.status.LastError != ""
	s.status.LastError = ""
	followed := s.followed
	s.followed = 0
	s.mu.Unlock()
	if recovered {
		s.log.Info("runs recovered", "trigger", moment)
	}
	s.log.Info("run finished", summaryAttrs(sum, followed)...)
	return sum, nil
}

// due reports whether a threshold notification should extract now.
func (s *Scheduler) due(ctx context.Context) (bool, string, error) {
	cfg := s.p.Config.Scheduler
	if err := cfg.ThresholdInterval.Err(); err != nil {
		return false, "", fmt.Errorf("scheduler.threshold_interval: %w", err)
	}
	interval := cfg.ThresholdInterval.Duration()
	s.mu.Lock()
	last := s.lastGated
	s.mu.Unlock()
	if !last.IsZero() {
		if since := s.opts.Now().Sub(last); since < interval {
			return false, fmt.Sprintf("last gated run %s ago (< %s)", since.Round(time.Second), interval), nil
		}
	}
	stage, err := s.p.ExtractStage(ctx)
	if err != nil {
		return false, "", err
	}
	n, err := stage.Remaining(ctx)
	if err != nil {
		return false, "", err
	}
	if n < cfg.ThresholdEvents {
		return false, fmt.Sprintf("%d unexamined events (< %d)", n, cfg.ThresholdEvents), nil
	}
	return true, "", nil
}

// fail records and logs a failed run or copy.
func (s *Scheduler) fail(err error) {
	s.mu.Lock()
	s.status.LastError = err.Error()
	s.mu.Unlock()
	s.log.Error("run failed", "err", err)
}

// summaryAttrs are a finished run's log attributes. copied_events counts
// what was copied since the previous run's line: the run's own copy step
// and followed, the events the follower stored meanwhile (which is where
// a start run's backlog is copied, before the run's step finds it done).
func summaryAttrs(sum pipeline.Summary, followed int64) []any {
	attrs := []any{"trigger", sum.Trigger, "run", sum.RunID, "elapsed", sum.Elapsed}
	switch {
	case sum.Copy != nil:
		attrs = append(attrs, "copied_events", int64(sum.Copy.Events)+followed, "files_checked", sum.Copy.Files)
	case followed > 0:
		attrs = append(attrs, "copied_events", followed)
	}
	if sum.Extract != nil {
		attrs = append(attrs, "examined", sum.Extract.EventsExamined, "facts", sum.Extract.FactsExtracted, "remaining", sum.Extract.EventsRemaining)
	}
	if sum.Integrate != nil {
		attrs = append(attrs, "integrated", sum.Integrate.Integrated, "merged", sum.Integrate.Merged)
	}
	return attrs
}

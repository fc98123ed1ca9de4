package scheduler_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/recollect/recollect/fixtures/testbin"
	"github.com/recollect/recollect/hooks/control"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/scheduler"
	"github.com/recollect/recollect/scheduler/daemonproc"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/sqlite"
	"github.com/recollect/recollect/store/storetest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// openPipeline opens a record store in a fresh temporary directory.
func openPipeline(tb testing.TB) *pipeline.Pipeline {
	tb.Helper()
	p, err := pipeline.Open(context.Background(), tb.TempDir(), pipeline.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { p.Close() })
	return p
}

// running is a scheduler served in this process.
type running struct {
	s      *scheduler.Scheduler
	cancel context.CancelFunc
	done   chan error
}

// startScheduler takes the lock and runs s until the test ends or stop.
func startScheduler(tb testing.TB, p *pipeline.Pipeline, opts scheduler.Options) *running {
	tb.Helper()
	release, held, err := scheduler.TryLock(p.Dir())
	if err != nil || held {
		tb.Fatalf("TryLock: held=%v err=%v", held, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{s: scheduler.New(p, opts), cancel: cancel, done: make(chan error, 1)}
	go func() {
		r.done <- r.s.Run(ctx)
		release()
	}()
	tb.Cleanup(func() { r.stop(tb) })
	return r
}

// stop cancels the scheduler and returns what Run returned; stopping twice
// returns nil the second time.
func (r *running) stop(tb testing.TB) error {
	tb.Helper()
	r.cancel()
	select {
	case err, ok := <-r.done:
		if ok {
			close(r.done)
		}
		return err
	case <-time.After(20 * time.Second):
		tb.Fatal("scheduler did not stop within 20s")
	}
	return nil
}

// recordEvents stores n extractable user messages in session.
func recordEvents(tb testing.TB, p *pipeline.Pipeline, session string, n int) {
	tb.Helper()
	evs := make([]store.Event, n)
	for i := range evs {
		evs[i] = store.Event{SessionID: session, Source: "record", Role: "user", EventType: "message", ContentType: "text",
			Content: fmt.Sprintf("We decided to keep the build cache under /var/cache number %d %s", i, session)}
	}
	if _, err := p.Record(context.Background(), evs); err != nil {
		tb.Fatal(err)
	}
}

// runTriggers lists the triggers of the finished runs, oldest first.
func runTriggers(tb testing.TB, db *store.DB) []string {
	tb.Helper()
	return storetest.Column[string](tb, db, `SELECT trigger FROM runs WHERE finished_at IS NOT NULL ORDER BY id`)
}

// status asks the daemon of dir over the socket.
func status(dir string) (control.Status, error) {
	return daemonproc.Status(context.Background(), dir)
}

// holdWriteLock takes SQLite's write lock on the store of dir from a
// second connection, so that any run blocks until release is called.
func holdWriteLock(tb testing.TB, dir string) (release func()) {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	tx, err := db.BeginTx(context.Background(), nil) // _txlock=immediate: takes the write lock now
	if err != nil {
		tb.Fatal(err)
	}
	return func() {
		tx.Rollback()
		db.Close()
	}
}
